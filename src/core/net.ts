// A port to listen on for a process that must name its port before it starts (an embedded server,
// a child process): one the system gave out a moment ago and took back. Another process may take
// it meanwhile; the caller that cannot retry says so.
import { createServer } from 'node:net';

/** A TCP port of `host` that was free a moment ago. */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
