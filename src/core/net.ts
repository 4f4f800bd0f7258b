// A port to listen on for a process that must name its port before it starts (an embedded server,
// a child process): one the system gave out a moment ago and took back. Another process may take
// it meanwhile; the caller that cannot retry says so. A port kept across restarts is taken again
// when it is still free.
import { createServer } from 'node:net';

/**
 * A TCP port of `host` that was free a moment ago: `preferred` when it is free (a port to keep across
 * restarts), else one the system gives.
 */
export function freePort(host = '127.0.0.1', preferred?: number): Promise<number> {
  if (preferred) return freePort(host, 0).then(async (any) => ((await listens(host, preferred)) ? preferred : any));
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Whether `port` of `host` can be listened on now. */
function listens(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}
