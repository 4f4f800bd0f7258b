// The validating proxy (`tusk proxy`): listens on one port per interface and forwards
// every request to that interface's target unchanged (method, path, query, headers but Host, body)
// and every answer back unchanged, streamed, over kept-alive connections. Each exchange is checked
// against the documents with the checks the suite and the stand-in use (src/openapi/exchange.ts):
// the request (operation, credentials' form, parameters, body: the client's departures) and the
// response (declared status, content type, schema, required headers: the server's departures).
// Every departure of an exchange is reported, not only the first (each field a body misses or
// gets wrong, each parameter). Departures are logged one line each (operation, side, field, rule; never a key or a body), kept
// for GET /__tusk/departures, optionally named in a `Tusk-Departures` response header (annotate),
// and counted into API coverage (GET /__tusk/coverage). With `strict`, a request that departs is
// refused with the stand-in's own answer (400 naming field and rule, 401, 404) instead of being
// forwarded. A target that cannot be reached is a 502 (one that does not answer in time a 504)
// with a JSON Error body; nothing a client or a target does crashes the proxy. With `record`, every
// exchange the target answered (and every request --strict refused) is appended to a HAR file as
// it happens, its secrets redacted (src/record/); a recording that cannot be written is logged
// once and stops, the traffic goes on.
import {
  createServer,
  request as httpRequest,
  Agent as HttpAgent,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import { ExchangeChecker, type Departure } from '../openapi/exchange.js';
import { CoverageRecorder } from '../openapi/coverage-recorder.js';
import { readOperations } from '../openapi/operations.js';
import type { ExchangeRecorder, SeenExchange } from '../record/recorder.js';

/** One departure as the proxy reports it. */
export interface ReportedDeparture extends Departure {
  time: string;
  api: InterfaceName;
  /** The operation the request was for (null: none of the document's). */
  operation_id: string | null;
  method: string;
  path: string;
  /** The target's status (absent for a request refused by --strict or not forwarded). */
  status?: number;
}

export interface ProxyOptions {
  documents: Record<InterfaceName, OpenApiDocument>;
  targets: Record<InterfaceName, string>;
  ports?: Partial<Record<InterfaceName, number>>;
  host?: string;
  /** Name the departures of an exchange in a `Tusk-Departures` response header (the answer is then buffered). */
  annotate?: boolean;
  /** Refuse a request that departs instead of forwarding it. */
  strict?: boolean;
  /** One line per departure (default: console.error). */
  log?: (line: string) => void;
  /** ms a target may take to answer before the client gets a 504 (default 30 s). */
  timeoutMs?: number;
  /** Where every exchange is appended as HAR (`--record FILE`); closed by close(). */
  recorder?: ExchangeRecorder;
}

/** Largest request body read (and forwarded); a larger one is a 413, as at the stand-in. */
const MAX_REQUEST_BYTES = 1024 * 1024;
/** Largest response body checked; a larger one is forwarded unchecked past this size. */
const MAX_CHECKED_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Departures kept for GET /__tusk/departures (the oldest go first). */
const MAX_KEPT = 10_000;
/** Hop-by-hop headers, never forwarded (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-authenticate',
]);

export class ValidatingProxy {
  readonly checker: ExchangeChecker;
  readonly coverage: CoverageRecorder;
  readonly departures: ReportedDeparture[] = [];
  /** Departures seen in all (the kept list is bounded). */
  departureCount = 0;
  exchanges = 0;
  private readonly servers = new Map<InterfaceName, Server>();
  /** Kept-alive connections to the targets; one left idle for 4 s is closed (before a common 5 s keep-alive timeout of the target's closes it under a request). */
  private readonly agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 256, timeout: 4_000 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 256, timeout: 4_000 }),
  };
  readonly urls = {} as Record<InterfaceName, string>;

  constructor(private readonly options: ProxyOptions) {
    this.checker = new ExchangeChecker(options.documents);
    this.coverage = new CoverageRecorder([
      ...readOperations('customer', options.documents.customer),
      ...readOperations('instance', options.documents.instance),
    ]);
    for (const api of ['customer', 'instance'] as const) new URL(options.targets[api]); // throws on a bad URL
  }

  async listen(): Promise<void> {
    const host = this.options.host ?? '127.0.0.1';
    for (const api of ['customer', 'instance'] as const) {
      const server = createServer((req, res) => {
        this.handle(api, req, res).catch((err: unknown) =>
          this.fail(res, 500, `the proxy failed: ${(err as Error).message}`),
        );
      });
      server.keepAliveTimeout = 5_000;
      server.headersTimeout = 10_000;
      server.requestTimeout = 60_000;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(this.options.ports?.[api] ?? 0, host, () => resolve());
      });
      this.servers.set(api, server);
      const { port } = server.address() as AddressInfo;
      this.urls[api] = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    }
  }

  async close(): Promise<void> {
    await Promise.all(
      [...this.servers.values()].map(
        (s) =>
          new Promise<void>((resolve) => {
            s.close(() => resolve());
            s.closeAllConnections();
          }),
      ),
    );
    this.agents.http.destroy();
    this.agents.https.destroy();
    this.options.recorder?.close();
  }

  /** Appends an exchange to the recording; a failure (a full disk) is logged once and ends the recording. */
  private record(x: SeenExchange): void {
    const recorder = this.options.recorder;
    if (!recorder || this.recordingFailed) return;
    try {
      recorder.record(x);
    } catch (err) {
      this.recordingFailed = true;
      this.log(`tusk proxy: cannot record to ${recorder.path}, recording stopped: ${(err as Error).message}`);
    }
  }

  private recordingFailed = false;

  private log(line: string): void {
    (this.options.log ?? ((l: string) => console.error(l)))(line);
  }

  private note(
    api: InterfaceName,
    operationId: string | null,
    method: string,
    path: string,
    status: number | undefined,
    found: Departure[],
  ): void {
    for (const d of found) {
      this.departureCount++;
      const reported: ReportedDeparture = {
        time: new Date().toISOString(),
        api,
        operation_id: operationId,
        method,
        path,
        ...(status !== undefined ? { status } : {}),
        ...d,
      };
      this.departures.push(reported);
      if (this.departures.length > MAX_KEPT) this.departures.shift();
      // Never the message of a request departure: it may quote a value of the body.
      this.log(
        `tusk proxy: departure (${d.side}) ${api} ${operationId ?? '-'} ${method} ${path}${status !== undefined ? ` ${status}` : ''}: ${d.field ? `${d.field}: ` : ''}rule ${d.rule}${d.side === 'response' ? ` - ${d.message}` : ''}`,
      );
    }
  }

  private async handle(api: InterfaceName, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const method = (req.method ?? 'GET').toUpperCase();
    if (url.pathname === '/__tusk/departures' && method === 'GET')
      return this.json(res, 200, { count: this.departureCount, departures: this.departures });
    if (url.pathname === '/__tusk/coverage' && method === 'GET') return this.json(res, 200, this.coverage.report());
    const body = await readBody(req);
    if (body === 'too large')
      return this.fail(
        res,
        413,
        `Payload too large: the proxy reads request bodies of at most ${MAX_REQUEST_BYTES} bytes`,
      );
    if (body === 'aborted') return; // the client went away
    this.exchanges++;
    const startedAt = new Date();
    const seen = (
      status: number,
      headers: SeenExchange['responseHeaders'],
      text: string | undefined,
      size: number,
      extra: Partial<SeenExchange> = {},
    ): SeenExchange => ({
      api,
      method,
      url: `${this.urls[api]}${req.url ?? '/'}`,
      requestHeaders: req.headers,
      requestBody: body,
      status,
      responseHeaders: headers,
      responseBody: text,
      responseSize: size,
      startedAt,
      ms: Date.now() - startedAt.getTime(),
      ...extra,
    });
    const checked = await this.checker.requestDepartures(api, {
      method,
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      body,
    });
    const operationId = checked.op?.operationId ?? null;
    if (this.options.strict && checked.departures.length && checked.error) {
      this.note(api, operationId, method, url.pathname, undefined, checked.departures);
      const err = checked.error;
      this.coverage.record(api, operationId ?? undefined, err.status, undefined, { method, path: url.pathname });
      const headers = {
        'content-type': 'application/json',
        ...err.headers,
        ...(this.options.annotate ? { 'tusk-departures': departureHeader(checked.departures) } : {}),
      };
      const text = JSON.stringify(err.body);
      res.writeHead(err.status, headers);
      res.end(text);
      this.record(
        seen(err.status, headers, text, Buffer.byteLength(text), {
          comment: 'refused by tusk proxy --strict, not forwarded',
        }),
      );
      return;
    }
    const target = new URL(this.options.targets[api]);
    const upstreamPath = target.pathname.replace(/\/$/, '') + url.pathname + url.search;
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (v !== undefined && !HOP_BY_HOP.has(k) && k !== 'host') headers[k] = v;
    headers.host = target.host;
    if (body.byteLength > 0 || headers['content-length'] !== undefined)
      headers['content-length'] = String(body.byteLength);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const dispatch = (again: boolean) => {
      const upstream = send({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method,
        path: upstreamPath,
        headers,
        agent: target.protocol === 'https:' ? this.agents.https : this.agents.http,
      });
      const timeout = setTimeout(
        () => upstream.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
        this.options.timeoutMs ?? 30_000,
      );
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timeout);
        if (res.headersSent) return void res.destroy();
        // A kept-alive connection that the target closed while it was idle (its keep-alive timeout
        // passing as the request went out) fails before the target read the request: sent once
        // more, on a new connection, as Node's documentation advises (not a 502 of the target's).
        if (!again && upstream.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE'))
          return void dispatch(true);
        const status = err.code === 'ETIMEDOUT' ? 504 : 502;
        const why = `the ${api} target ${target.origin} ${status === 504 ? 'did not answer in time' : `cannot be reached (${err.code ?? err.message})`}`;
        this.log(`tusk proxy: ${status} to ${method} ${url.pathname}: ${why}`);
        this.fail(res, status, `${status === 504 ? 'Gateway timeout' : 'Bad gateway'}: ${why}`);
      });
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.on('response', (answer) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const outHeaders: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers))
          if (v !== undefined && !HOP_BY_HOP.has(k)) outHeaders[k] = v;
        const finish = () => {
          clearTimeout(timeout);
          const text = size <= MAX_CHECKED_RESPONSE_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined;
          const status = answer.statusCode ?? 502;
          const found = [...checked.departures];
          if (checked.op && text !== undefined)
            found.push(
              ...this.checker.responseDepartures(
                checked.op,
                { status, headers: answer.headers, text },
                { head: method === 'HEAD' },
              ),
            );
          this.note(api, operationId, method, url.pathname, status, found);
          this.coverage.record(api, operationId ?? undefined, status, undefined, { method, path: url.pathname });
          this.record(seen(status, answer.headers, text, size, { statusText: answer.statusMessage ?? '' }));
          return found;
        };
        if (this.options.annotate) {
          // The header goes before the body: the answer is read whole first.
          answer.on('data', (c: Buffer) => {
            size += c.byteLength;
            chunks.push(c);
          });
          answer.on('end', () => {
            const found = finish();
            const buffered = Buffer.concat(chunks);
            if ('content-length' in outHeaders) outHeaders['content-length'] = String(buffered.byteLength);
            if (found.length) outHeaders['tusk-departures'] = departureHeader(found);
            res.writeHead(answer.statusCode ?? 502, outHeaders);
            res.end(buffered);
          });
        } else {
          res.writeHead(answer.statusCode ?? 502, outHeaders);
          answer.on('data', (c: Buffer) => {
            size += c.byteLength;
            if (size <= MAX_CHECKED_RESPONSE_BYTES) chunks.push(c);
            res.write(c);
          });
          answer.on('end', () => {
            res.end();
            finish();
          });
        }
        answer.on('error', () => res.destroy());
      });
      upstream.end(body);
    };
    dispatch(false);
  }

  private json(res: ServerResponse, status: number, value: unknown): void {
    const text = JSON.stringify(value);
    res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  private fail(res: ServerResponse, status: number, message: string): void {
    if (res.headersSent) return void res.destroy();
    this.json(res, status, { error: message });
  }
}

/** `Tusk-Departures`: the departures of one exchange, `side field rule` each, comma-separated (Latin-1 safe). */
function departureHeader(found: Departure[]): string {
  return found
    .map((d) => `${d.side} ${d.field ?? '-'} ${d.rule}`.replace(/[^\x20-\x7e]|,/g, (ch) => encodeURIComponent(ch)))
    .join(', ');
}

async function readBody(req: IncomingMessage): Promise<Uint8Array | 'too large' | 'aborted'> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > MAX_REQUEST_BYTES) return 'too large';
      chunks.push(chunk);
    }
  } catch {
    return 'aborted';
  }
  return Buffer.concat(chunks);
}
