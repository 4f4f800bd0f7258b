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

describe('freePort with a preferred port', () => {
  it('gives the preferred port when it is free, and another when something listens on it', async () => {
    const preferred = await freePort();
    expect(await freePort('127.0.0.1', preferred)).toBe(preferred);
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(preferred, '127.0.0.1', () => resolve()));
    try {
      const other = await freePort('127.0.0.1', preferred);
      expect(other).not.toBe(preferred);
      expect(other).toBeGreaterThan(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
