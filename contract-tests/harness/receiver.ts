// A callback receiver for contract tests: a local HTTP server that answers 200 to every request and
// records the JSON POSTed to it. Each test takes its own path (`url('/restore-1')`) and waits for
// what arrives there. For a remote target, set TUSK_CALLBACK_HOST to a host name of this machine
// that the target can reach (the server then listens on all interfaces) and, if needed, fix the
// port with TUSK_CALLBACK_PORT.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The body read as JSON; the raw text when it is not JSON. */
  body: unknown;
  text: string;
  /** Date.now() on arrival. */
  at: number;
}

export interface Receiver {
  /** The URL the target should call for `path` (default: a fresh unique path). */
  url(path?: string): string;
  /** Everything received so far, oldest first. */
  readonly received: readonly ReceivedRequest[];
  /** What arrived at `path` (the path part of a URL from url()). */
  at(pathOrUrl: string): ReceivedRequest[];
  /** Waits until a request arrives at `pathOrUrl` (and passes `match`), up to `timeoutMs`. */
  waitFor(
    pathOrUrl: string,
    options?: { timeoutMs?: number; match?: (r: ReceivedRequest) => boolean },
  ): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

const pathOf = (pathOrUrl: string) => (/^https?:\/\//.test(pathOrUrl) ? new URL(pathOrUrl).pathname : pathOrUrl);

export async function openReceiver(env: NodeJS.ProcessEnv = process.env): Promise<Receiver> {
  const publicHost = env.TUSK_CALLBACK_HOST || '127.0.0.1';
  const listenHost = env.TUSK_CALLBACK_HOST ? '0.0.0.0' : '127.0.0.1';
  const port = Number(env.TUSK_CALLBACK_PORT ?? 0);
  const received: ReceivedRequest[] = [];
  const waiters = new Set<() => void>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        // keep the text
      }
      received.push({
        method: req.method ?? '',
        path: pathOf(req.url ?? '/'),
        headers: req.headers,
        body,
        text,
        at: Date.now(),
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      for (const w of [...waiters]) w();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, listenHost, () => resolve());
  });
  const { port: actual } = server.address() as AddressInfo;
  const base = `http://${publicHost.includes(':') ? `[${publicHost}]` : publicHost}:${actual}`;

  const at = (pathOrUrl: string) => received.filter((r) => r.path === pathOf(pathOrUrl));
  return {
    url: (path = `/callback/${randomUUID()}`) => `${base}${path.startsWith('/') ? path : `/${path}`}`,
    received,
    at,
    waitFor(pathOrUrl, { timeoutMs = 5000, match = () => true } = {}) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = at(pathOrUrl).find(match);
          if (!found) return false;
          clearTimeout(timer);
          waiters.delete(listener);
          resolve(found);
          return true;
        };
        const listener = () => void check();
        const timer = setTimeout(() => {
          waiters.delete(listener);
          reject(
            new Error(
              `no callback arrived at ${pathOf(pathOrUrl)} within ${timeoutMs} ms (received: ${received.map((r) => r.path).join(', ') || 'nothing'})`,
            ),
          );
        }, timeoutMs);
        waiters.add(listener);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
