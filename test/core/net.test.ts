// freePort (src/core/net.ts): a port the system gave out a moment ago on the host asked for, or the
// listen error when that host cannot be listened on.
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/core/net.js';

describe('freePort', () => {
  it('gives a port that can be listened on at 127.0.0.1 right after', async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise((r) => server.close(r));
  });

  it('rejects with the listen error for an address that is not one of this machine', async () => {
    await expect(freePort('192.0.2.1')).rejects.toMatchObject({ code: 'EADDRNOTAVAIL' });
  });
});
