// The recording of `tusk proxy --record FILE`: each exchange that passed through, as one HAR entry
// appended to FILE (har.ts) with its secrets redacted (redact.ts) unless `secrets` is asked.
import type { InterfaceName } from '../openapi/documents.js';
import { HarWriter, harHeaders, type HarEntry, type HarNameValue } from './har.js';
import { Redactor } from './redact.js';

/** One exchange as the proxy saw it. */
export interface SeenExchange {
  api: InterfaceName;
  method: string;
  /** The URL the client asked for (the proxy's own origin, path and query). */
  url: string;
  requestHeaders: Record<string, string | string[] | undefined>;
  requestBody: Uint8Array;
  status: number;
  statusText?: string;
  responseHeaders: Record<string, string | string[] | undefined>;
  /** The answer's body; undefined when it was too large to keep. */
  responseBody: string | undefined;
  responseSize: number;
  startedAt: Date;
  ms: number;
  /** Why the proxy answered itself (a request refused by --strict). */
  comment?: string;
}

export interface RecorderOptions {
  /** Keep secrets as they are (`--record-secrets`). */
  secrets?: boolean;
  creator: { name: string; version: string };
}

const headerOf = (headers: SeenExchange['requestHeaders'], name: string) => {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
};

export class ExchangeRecorder {
  private readonly har: HarWriter;
  readonly redactor: Redactor;

  constructor(file: string, options: RecorderOptions) {
    this.redactor = new Redactor(!options.secrets);
    this.har = new HarWriter(
      file,
      options.creator,
      options.secrets
        ? 'recorded with --record-secrets: keys and passwords are in clear'
        : 'secrets redacted: each is a placeholder <redacted:KIND:N>, the same secret the same placeholder',
    );
  }

  get path(): string {
    return this.har.path;
  }

  get count(): number {
    return this.har.count;
  }

  /** Appends one exchange; never throws for the traffic's sake (a failing disk is reported by the caller's catch). */
  record(x: SeenExchange): void {
    this.har.append(this.entry(x));
  }

  entry(x: SeenExchange): HarEntry {
    const r = this.redactor;
    const headers = (h: SeenExchange['requestHeaders']): HarNameValue[] =>
      harHeaders(h).map(({ name, value }) => ({ name, value: r.header(name, value) }));
    const requestType = headerOf(x.requestHeaders, 'content-type') ?? '';
    const requestText = Buffer.from(x.requestBody).toString('utf8');
    const responseType = headerOf(x.responseHeaders, 'content-type') ?? '';
    // Every secret of the exchange is met first, so that one the answer reveals (a created
    // instance's key) is redacted in the request too, wherever it stands.
    headers(x.requestHeaders);
    r.url(x.url);
    r.body(requestText, requestType);
    if (x.responseBody !== undefined) r.body(x.responseBody, responseType);
    const form = requestType.includes('x-www-form-urlencoded');
    const text = r.body(requestText, requestType);
    const postData = requestText
      ? {
          mimeType: requestType,
          text,
          ...(form ? { params: [...new URLSearchParams(text)].map(([name, value]) => ({ name, value })) } : {}),
        }
      : undefined;
    const url = r.url(x.url);
    const query = [...new URL(url).searchParams].map(([name, value]) => ({ name, value }));
    return {
      startedDateTime: x.startedAt.toISOString(),
      time: x.ms,
      _api: x.api,
      request: {
        method: x.method,
        url,
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: headers(x.requestHeaders),
        queryString: query,
        ...(postData ? { postData } : {}),
        headersSize: -1,
        bodySize: x.requestBody.byteLength,
      },
      response: {
        status: x.status,
        statusText: x.statusText ?? '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: headers(x.responseHeaders),
        content: {
          size: x.responseSize,
          mimeType: responseType,
          ...(x.responseBody !== undefined
            ? { text: r.body(x.responseBody, responseType) }
            : { comment: 'too large to record' }),
        },
        redirectURL: '',
        headersSize: -1,
        bodySize: x.responseSize,
      },
      cache: {},
      timings: { send: 0, wait: x.ms, receive: 0 },
      ...(x.comment ? { comment: x.comment } : {}),
    };
  }

  close(): void {
    this.har.close();
  }
}
