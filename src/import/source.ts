// The deployment `tusk import` reads: a client of its two interfaces that sends GET requests and
// nothing else (send() refuses any other method before a byte leaves), respects the deployment's
// rate limit (a 429 waits for its Retry-After, seconds or an HTTP date, then asks again), asks again
// after a 5xx or a failed connection with a growing pause, and keeps the deployment's time: the
// latest `Date` header its answers carried (the account's clock on a Tusk).
import type { InterfaceName } from '../openapi/documents.js';

export interface SourceOptions {
  customerUrl: string;
  instanceUrl: string;
  /** The customer key (HTTP Basic password) the account is read with. */
  apiKey: string;
  /** Progress and waiting lines. */
  log: (line: string) => void;
  /** Waits; tests pass a fake. */
  sleep?: (ms: number) => Promise<void>;
  /** Attempts of one request in all (429s and 5xx; default 10; a failed connection is tried 3 times at most). */
  attempts?: number;
  /** Longest wait for one Retry-After, ms (default 120 s); a longer one fails the request. */
  maxWaitMs?: number;
  /** ms one answer may take (default 30 s). */
  timeoutMs?: number;
}

export interface SourceAnswer {
  status: number;
  text: string;
  contentType: string;
}

/** A read that failed: its interface, path and status (0: no answer). */
export class SourceError extends Error {
  constructor(
    readonly api: InterfaceName,
    readonly path: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SourceError';
  }
}

const basic = (key: string) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;

/** Retry-After as ms: a number of seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(value)) return Math.ceil(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export class Source {
  /** Every request answered, in order: what the import read (its report, and the tests). */
  readonly reads: { api: InterfaceName; path: string; status: number }[] = [];
  /** The deployment's time: the latest Date header seen (ms), NaN before any. */
  now = Number.NaN;
  /** 429 answers met (each waited for). */
  rateLimited = 0;

  constructor(private readonly options: SourceOptions) {}

  private base(api: InterfaceName): string {
    return (api === 'customer' ? this.options.customerUrl : this.options.instanceUrl).replace(/\/+$/, '');
  }

  /** GET `path` of an interface with `key` (the customer key by default); any status is returned. */
  get(api: InterfaceName, path: string, key = this.options.apiKey): Promise<SourceAnswer> {
    return this.send('GET', api, path, key);
  }

  /** GET that must answer 200 with JSON: the value, or a SourceError naming the read and its status. */
  async json<T>(api: InterfaceName, path: string, key?: string): Promise<T> {
    const answer = await this.get(api, path, key);
    if (answer.status !== 200)
      throw new SourceError(
        api,
        path,
        answer.status,
        `${api} GET ${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`,
      );
    try {
      return JSON.parse(answer.text) as T;
    } catch {
      throw new SourceError(api, path, answer.status, `${api} GET ${path} answered 200 with a body that is not JSON`);
    }
  }

  /** The one place a request is made. `tusk import` only reads: any method but GET is refused here. */
  private async send(method: string, api: InterfaceName, path: string, key: string): Promise<SourceAnswer> {
    if (method !== 'GET') throw new Error(`tusk import sends GET requests only, never ${method}`);
    const url = `${this.base(api)}${path}`;
    const sleep = this.options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
    const attempts = this.options.attempts ?? 10;
    let pause = 500;
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        res = await fetch(url, {
          method,
          headers: { authorization: basic(key), accept: 'application/json, text/csv' },
          signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
        });
      } catch (err) {
        const why =
          (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
        // A deployment that does not answer at all is given three tries, not the 429's patience.
        if (attempt >= Math.min(attempts, 3))
          throw new SourceError(api, path, 0, `${api} GET ${path}: no answer (${why})`);
        this.options.log(`tusk import: ${api} GET ${path}: no answer (${why}); again in ${pause / 1000} s`);
        await sleep(pause);
        pause = Math.min(pause * 2, 30_000);
        continue;
      }
      const text = await res.text();
      const date = Date.parse(res.headers.get('date') ?? '');
      if (!Number.isNaN(date) && !(date < this.now)) this.now = date;
      if (res.status === 429 || res.status >= 500) {
        const wait = res.status === 429 ? (retryAfterMs(res.headers.get('retry-after')) ?? 1000) : pause;
        if (res.status === 429) this.rateLimited++;
        if (attempt >= attempts || wait > (this.options.maxWaitMs ?? 120_000))
          throw new SourceError(api, path, res.status, `${api} GET ${path} answered ${res.status} ${attempt} times`);
        this.options.log(
          `tusk import: ${api} GET ${path} answered ${res.status}; again in ${wait / 1000} s${res.status === 429 ? ' (Retry-After)' : ''}`,
        );
        await sleep(wait);
        if (res.status >= 500) pause = Math.min(pause * 2, 30_000);
        continue;
      }
      this.reads.push({ api, path, status: res.status });
      return { status: res.status, text, contentType: res.headers.get('content-type') ?? '' };
    }
  }
}
