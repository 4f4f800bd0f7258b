// A TCP proxy that delays what the server sends back (a Postgres across a slow network): the tests
// of a team's Tusk give one replica its state database through it, so that each of its queries is
// in flight for a known time after Postgres ran it. Bytes keep their order; what the client sends
// goes through at once. close() ends every connection and the listener.
import { createConnection, createServer, type Socket } from 'node:net';

export interface LatencyProxy {
  /** The port it listens on (127.0.0.1). */
  port: number;
  close(): Promise<void>;
}

export async function latencyProxy(target: { host: string; port: number }, delayMs: number): Promise<LatencyProxy> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => setTimeout(() => client.write(d), delayMs));
    client.on('end', () => upstream.end());
    upstream.on('end', () => setTimeout(() => client.end(), delayMs));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as { port: number }).port,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
