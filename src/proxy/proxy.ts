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
// once and stops, the traffic goes on. forward.ts passes the exchanges on; departures.ts logs,
// counts and keeps the departures.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import { ExchangeChecker } from '../openapi/exchange.js';
import { CoverageRecorder } from '../openapi/coverage-recorder.js';
import { readOperations } from '../openapi/operations.js';
import type { ExchangeRecorder, SeenExchange } from '../record/recorder.js';
import { departureHeader, DepartureLog, type ReportedDeparture } from './departures.js';
import { Forwarder, MAX_REQUEST_BYTES, readBody } from './forward.js';

export type { ReportedDeparture } from './departures.js';

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

export class ValidatingProxy {
  readonly checker: ExchangeChecker;
  readonly coverage: CoverageRecorder;
  private readonly departureLog = new DepartureLog((line) => this.log(line));
  exchanges = 0;
  private readonly servers = new Map<InterfaceName, Server>();
  private readonly forwarder: Forwarder;
  readonly urls = {} as Record<InterfaceName, string>;

  constructor(private readonly options: ProxyOptions) {
    this.checker = new ExchangeChecker(options.documents);
    this.coverage = new CoverageRecorder([
      ...readOperations('customer', options.documents.customer),
      ...readOperations('instance', options.documents.instance),
    ]);
    for (const api of ['customer', 'instance'] as const) new URL(options.targets[api]); // throws on a bad URL
    this.forwarder = new Forwarder(options.timeoutMs ?? 30_000);
  }

  /** The latest departures, oldest first (bounded). */
  get departures(): ReportedDeparture[] {
    return this.departureLog.kept;
  }

  /** Departures seen in all (the kept list is bounded). */
  get departureCount(): number {
    return this.departureLog.count;
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
    this.forwarder.close();
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
      this.departureLog.note(api, operationId, method, url.pathname, undefined, checked.departures);
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
    this.forwarder.forward(
      { api, target: new URL(this.options.targets[api]), method, url, headers: req.headers, body, res },
      {
        annotate: Boolean(this.options.annotate),
        answered: (answer, text, size) => {
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
          this.departureLog.note(api, operationId, method, url.pathname, status, found);
          this.coverage.record(api, operationId ?? undefined, status, undefined, { method, path: url.pathname });
          this.record(seen(status, answer.headers, text, size, { statusText: answer.statusMessage ?? '' }));
          return found;
        },
        failed: (status, why) => {
          this.log(`tusk proxy: ${status} to ${method} ${url.pathname}: ${why}`);
          this.fail(res, status, `${status === 504 ? 'Gateway timeout' : 'Bad gateway'}: ${why}`);
        },
      },
    );
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
