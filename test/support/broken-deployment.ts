// Deployments that each break promises of the documents, for proving that the conformance suite
// catches them (issue 32, "Done when"): a small proxy in front of a running Tusk that forwards
// every request and answer and changes only what its breakages say: a request rewritten before it
// is forwarded, a request answered by the proxy itself, an answer's JSON body rewritten.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Api = 'customer' | 'instance';
type Json = Record<string, unknown>;

/** One exchange as a breakage sees it: the body read as JSON or form data (undefined when empty). */
export interface Exchange {
  api: Api;
  method: string;
  /** The path without the query. */
  path: string;
  headers: Record<string, string>;
  body: Json | undefined;
}

export interface Breakage {
  /** Answers the request itself (the target never sees it); undefined: forward it. */
  answer?: (x: Exchange) => { status: number; body?: unknown } | undefined;
  /** The body to forward instead of the request's (undefined: unchanged). */
  request?: (x: Exchange) => Json | undefined;
  /** The JSON body to answer instead of the target's; `call` asks the target something else with the same credentials. */
  response?: (x: Exchange, body: unknown, call: (api: Api, path: string) => Promise<unknown>) => unknown;
}

export interface BrokenDeployment {
  customerUrl: string;
  instanceUrl: string;
  close(): Promise<void>;
}

function readBody(text: string, contentType: string): Json | undefined {
  if (!text) return undefined;
  if (contentType.includes('json')) {
    try {
      const v = JSON.parse(text) as unknown;
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
    } catch {
      return undefined;
    }
  }
  return Object.fromEntries(new URLSearchParams(text));
}

/** A proxy in front of `target` (its two base URLs) that applies `breakages` in order. */
export async function brokenDeployment(
  target: { customerUrl: string; instanceUrl: string },
  breakages: Breakage[],
): Promise<BrokenDeployment> {
  const servers: Server[] = [];
  const urls = {} as Record<Api, string>;
  const base = (api: Api) => (api === 'customer' ? target.customerUrl : target.instanceUrl);
  for (const api of ['customer', 'instance'] as const) {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        void (async () => {
          const url = new URL(req.url ?? '/', 'http://proxy');
          const headers: Record<string, string> = {};
          for (const [k, v] of Object.entries(req.headers))
            if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
          const text = Buffer.concat(chunks).toString('utf8');
          const x: Exchange = {
            api,
            method: req.method ?? 'GET',
            path: url.pathname,
            headers,
            body: readBody(text, headers['content-type'] ?? ''),
          };
          for (const b of breakages) {
            const own = b.answer?.(x);
            if (!own) continue;
            res.writeHead(own.status, own.body === undefined ? {} : { 'content-type': 'application/json' });
            res.end(own.body === undefined ? undefined : JSON.stringify(own.body));
            return;
          }
          let body: string | undefined = text || undefined;
          for (const b of breakages) {
            const rewritten = b.request?.(x);
            if (!rewritten) continue;
            x.body = rewritten;
            body = JSON.stringify(rewritten);
            headers['content-type'] = 'application/json';
          }
          const answer = await fetch(base(api) + url.pathname + url.search, {
            method: x.method,
            headers,
            ...(body !== undefined && x.method !== 'GET' && x.method !== 'HEAD' ? { body } : {}),
          });
          const out: Record<string, string> = {};
          answer.headers.forEach((v, k) => {
            if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(k))
              out[k] = v;
          });
          let answerText = await answer.text();
          if (/json/.test(answer.headers.get('content-type') ?? '') && answerText) {
            const call = async (other: Api, path: string) =>
              (await fetch(base(other) + path, { headers: { authorization: headers.authorization ?? '' } })).json();
            let value: unknown = JSON.parse(answerText);
            for (const b of breakages) if (b.response) value = await b.response(x, value, call);
            answerText = JSON.stringify(value);
          }
          res.writeHead(answer.status, out);
          res.end(answerText);
        })().catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: `the broken deployment failed: ${(err as Error).message}` }));
        });
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.push(server);
    urls[api] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return {
    customerUrl: urls.customer,
    instanceUrl: urls.instance,
    close: () =>
      Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.close(() => resolve());
              s.closeAllConnections();
            }),
        ),
      ).then(() => undefined),
  };
}

/** POSTs `body` as JSON to `url` after `ms` (a callback the broken deployment sends itself). */
export function callBackLater(url: unknown, body: unknown, ms = 300): void {
  if (typeof url !== 'string') return;
  // As a deployment's outbox does: a failed attempt (a kept-alive connection the receiver closed
  // meanwhile, a busy machine) is tried again, up to three times.
  const attempt = (left: number) =>
    void fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      .then((res) => {
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
      })
      .catch(() => {
        if (left > 1) setTimeout(() => attempt(left - 1), 1000).unref();
      });
  setTimeout(() => attempt(3), ms).unref();
}
