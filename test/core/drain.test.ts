// Closing a server lets a request it has read be answered (a balancer would otherwise send it to
// another replica and the write would happen twice), closes idle keep-alive connections at once,
// and cuts a request that outlasts the grace period.
import { createServer, request, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { drain } from '../../src/core/drain.js';

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

/** A server whose answer takes `ms`; resolves with its port once it listens. */
async function slowServer(ms: number): Promise<number> {
  server = createServer((_req, res) => setTimeout(() => res.end('done'), ms));
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

function get(port: number, agent?: Agent): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', agent }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('drain', () => {
  it('answers a request it has read before it closes', async () => {
    const port = await slowServer(300);
    const answer = get(port);
    await new Promise((r) => setTimeout(r, 100));
    const closed = drain(server!, 5_000);
    expect(await answer).toEqual({ status: 200, body: 'done' });
    await closed;
    expect(server!.listening).toBe(false);
  });

  it('closes an idle keep-alive connection at once', async () => {
    const port = await slowServer(0);
    server!.keepAliveTimeout = 120_000;
    const agent = new Agent({ keepAlive: true });
    expect((await get(port, agent)).status).toBe(200);
    // Neither the keep-alive timeout nor the grace period ends it: the test's 5 s would.
    await drain(server!, 120_000);
    expect(server!.listening).toBe(false);
    agent.destroy();
  });

  it('cuts a request that outlasts the grace period', async () => {
    const port = await slowServer(60_000);
    const answer = get(port).then(
      () => 'answered',
      () => 'cut',
    );
    await new Promise((r) => setTimeout(r, 100));
    await drain(server!, 200);
    expect(await answer).toBe('cut');
  });
});
