// Closing an HTTP server without cutting a request it is answering. A balancer that retries on a
// connection error (nginx's `proxy_next_upstream error non_idempotent`) sends a cut request to
// another replica: if the first had already acted on it, the write happens twice. So a closing
// server stops accepting, closes only its idle connections (a request sent on one meanwhile was
// never read: retrying it is safe), lets every request it has read finish, and cuts what is left
// only after `graceMs`.
import type { Server } from 'node:http';

/** Resolves once `server` is closed: at once when idle, at the latest after `graceMs`. */
export function drain(server: Server, graceMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    let done = false;
    const sweep = setInterval(() => server.closeIdleConnections(), 50);
    const cut = setTimeout(() => server.closeAllConnections(), graceMs);
    sweep.unref();
    cut.unref();
    server.close(() => {
      done = true;
      clearInterval(sweep);
      clearTimeout(cut);
      resolve();
    });
    if (!done) server.closeIdleConnections();
  });
}
