// Everything the server sends out: callbacks of backups, restores and point-in-time recoveries, and
// alarm notifications. An entry becomes due at a time on the store's clock; `tick()` sends
// what is due as an HTTP POST of JSON with a timeout and a bounded number of attempts. Channels
// without HTTP (e-mail, paging, incident tools) are only recorded (`record()`, status `recorded`). A slow,
// failing or unreachable target never blocks a request: delivery runs apart from the API, a fixed
// number at a time, and the kept history is bounded.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Clock } from './clock.js';

export interface OutboxEntry {
  id: number;
  kind: 'callback' | 'notification';
  /** What caused it, e.g. `backup`, `restore`, `pitr`. */
  event: string;
  /** The URL POSTed to. */
  target: string;
  body: unknown;
  /** When it is due, on the store's clock (ms since the epoch). */
  dueAt: number;
  attempts: number;
  /** `recorded`: kept for inspection, never sent (channels without HTTP, see record()). */
  status: 'pending' | 'sending' | 'delivered' | 'failed' | 'recorded';
  /** Last HTTP status or error text. */
  result?: string;
  /** The account whose store queued it; its time is that account's clock (absent: the server's). */
  account?: string;
}

/** What a store writes to: the outbox as one account sees it (Outbox.forAccount). */
export interface OutboxWriter {
  schedule(entry: {
    kind?: OutboxEntry['kind'];
    event: string;
    target: string;
    body: unknown;
    dueAt?: number;
  }): OutboxEntry;
  record(entry: { kind?: OutboxEntry['kind']; event: string; target: string; body: unknown; at?: number }): OutboxEntry;
}

export interface OutboxOptions {
  clock: Clock;
  /** The clock of an account's entries (default: `clock`): entries fall due on their account's time. */
  clockOf?: (account: string) => Clock | undefined;
  /** ms an attempt may take before it is abandoned. */
  timeoutMs?: number;
  /** attempts in all, the first included. */
  maxAttempts?: number;
  /** ms on the store's clock between attempts (times the attempt number). */
  retryDelayMs?: number;
  /** entries kept at most; the oldest finished ones go first. */
  maxEntries?: number;
  /** deliveries in flight at most. */
  concurrency?: number;
  fetch?: typeof fetch;
}

/**
 * The default sender: one POST over node:http(s), without keep-alive. fetch leaves the connection
 * of an aborted request open for seconds, so a hanging target piled up connections beyond the
 * deliveries in flight; here a timeout closes the connection at once, and so does dropping the
 * response body. Fetch-shaped (status, body.cancel) for deliver(); tests may pass a real fetch.
 */
const postJson = ((url: string | URL, init: RequestInit = {}) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const signal = init.signal ?? undefined;
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
      target,
      { method: init.method ?? 'POST', headers: init.headers as Record<string, string>, agent: false },
      (res) => {
        resolve({ status: res.statusCode ?? 0, body: { cancel: async () => void res.destroy() } });
      },
    );
    const abort = () => {
      req.destroy();
      reject(signal!.reason);
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', abort));
    req.on('error', (err) => reject(Object.assign(new Error(err.message), { cause: err })));
    req.end(typeof init.body === 'string' ? init.body : undefined);
  })) as unknown as typeof fetch;

export class Outbox implements OutboxWriter {
  private readonly entries: OutboxEntry[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private nextId = 1;
  private readonly opts: Required<Omit<OutboxOptions, 'fetch' | 'clockOf'>> &
    Pick<OutboxOptions, 'clockOf'> & { fetch: typeof fetch };

  constructor(options: OutboxOptions) {
    this.opts = {
      timeoutMs: 2000,
      maxAttempts: 3,
      retryDelayMs: 1000,
      maxEntries: 1000,
      concurrency: 8,
      fetch: postJson,
      ...options,
    };
  }

  /** The clock an entry's times are on. */
  private clockFor(account: string | undefined): Clock {
    return (account !== undefined && this.opts.clockOf?.(account)) || this.opts.clock;
  }

  /** The outbox as the stores of account `id` write to it: entries marked with the account, on its clock. */
  forAccount(id: string): OutboxWriter {
    return {
      schedule: (entry) =>
        this.add({
          kind: entry.kind ?? 'callback',
          event: entry.event,
          target: entry.target,
          body: entry.body,
          dueAt: entry.dueAt ?? this.clockFor(id).now(),
          status: 'pending',
          account: id,
        }),
      record: (entry) =>
        this.add({
          kind: entry.kind ?? 'notification',
          event: entry.event,
          target: entry.target,
          body: entry.body,
          dueAt: entry.at ?? this.clockFor(id).now(),
          status: 'recorded',
          account: id,
        }),
    };
  }

  /** Queues a POST of `body` to `target` at `dueAt` (default: now). */
  schedule(entry: {
    kind?: OutboxEntry['kind'];
    event: string;
    target: string;
    body: unknown;
    dueAt?: number;
  }): OutboxEntry {
    return this.add({
      kind: entry.kind ?? 'callback',
      event: entry.event,
      target: entry.target,
      body: entry.body,
      dueAt: entry.dueAt ?? this.opts.clock.now(),
      status: 'pending',
    });
  }

  /**
   * Keeps what would be sent to a channel without HTTP (e-mail, paging, incident tools) without
   * sending it: status `recorded`, no attempts. `target` names the address (an e-mail address, a key).
   */
  record(entry: {
    kind?: OutboxEntry['kind'];
    event: string;
    target: string;
    body: unknown;
    at?: number;
  }): OutboxEntry {
    return this.add({
      kind: entry.kind ?? 'notification',
      event: entry.event,
      target: entry.target,
      body: entry.body,
      dueAt: entry.at ?? this.opts.clock.now(),
      status: 'recorded',
    });
  }

  private add(fields: Omit<OutboxEntry, 'id' | 'attempts'>): OutboxEntry {
    const e: OutboxEntry = { id: this.nextId++, ...fields, attempts: 0 };
    this.entries.push(e);
    this.trim();
    return e;
  }

  /** Starts every due delivery (not awaited: see settle()). */
  tick(): void {
    const server = this.opts.clock.now();
    const nows = new Map<string, number>(); // one reading per account and tick
    const nowOf = (account: string | undefined) => {
      if (account === undefined || !this.opts.clockOf) return server;
      let now = nows.get(account);
      if (now === undefined) nows.set(account, (now = this.clockFor(account).now()));
      return now;
    };
    for (const e of this.entries) {
      if (this.inFlight.size >= this.opts.concurrency) break;
      if (e.status === 'pending' && e.dueAt <= nowOf(e.account)) this.deliver(e);
    }
  }

  /** Waits until nothing is in flight (tests and shutdown). */
  async settle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /** The entries, or those of one account. */
  list(account?: string): readonly OutboxEntry[] {
    this.trim(true);
    return account === undefined ? this.entries : this.entries.filter((e) => e.account === account);
  }

  /** Forgets every entry, or every entry of one account (deliveries in flight finish, unlisted); ids go on. */
  clear(account?: string): void {
    if (account === undefined) this.entries.length = 0;
    else
      for (let i = this.entries.length - 1; i >= 0; i--)
        if (this.entries[i]!.account === account) this.entries.splice(i, 1);
  }

  /** Takes over entries of account `id` (an account's dump): each gets a fresh id; one being sent is pending again. */
  adopt(id: string, entries: readonly OutboxEntry[]): void {
    for (const e of entries) {
      const { id: _old, attempts, ...fields } = structuredClone(e);
      this.entries.push({
        ...fields,
        id: this.nextId++,
        attempts,
        status: e.status === 'sending' ? 'pending' : e.status,
        account: id,
      });
    }
    this.trim();
  }

  /** The entries and the id sequence as plain JSON. */
  toJSON(): { last_id: number; entries: OutboxEntry[] } {
    this.trim(true);
    return { last_id: this.nextId - 1, entries: this.entries.map((e) => structuredClone(e)) };
  }

  /** Takes over a state written by toJSON(); an entry that was being sent is pending again. */
  load(state: { last_id: number; entries: OutboxEntry[] }): void {
    this.entries.length = 0;
    for (const e of state.entries)
      this.entries.push({ ...structuredClone(e), status: e.status === 'sending' ? 'pending' : e.status });
    // A loop, not Math.max(...ids): a spread of many entries overflows the stack.
    this.nextId = state.entries.reduce((max, e) => Math.max(max, e.id), state.last_id) + 1;
    this.trim();
  }

  private deliver(e: OutboxEntry): void {
    e.status = 'sending';
    e.attempts++;
    const p = (async () => {
      try {
        const res = await this.opts.fetch(e.target, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'tusk-mock' },
          body: JSON.stringify(e.body),
          signal: AbortSignal.timeout(this.opts.timeoutMs),
          redirect: 'manual',
        });
        await res.body?.cancel().catch(() => undefined);
        e.result = `HTTP ${res.status}`;
        if (res.status >= 200 && res.status < 300) {
          e.status = 'delivered';
          return;
        }
      } catch (err) {
        e.result =
          (err as Error).name === 'TimeoutError'
            ? `timeout after ${this.opts.timeoutMs} ms`
            : String((err as Error).cause ?? (err as Error).message);
      }
      if (e.attempts >= this.opts.maxAttempts) e.status = 'failed';
      else {
        e.status = 'pending';
        e.dueAt = this.clockFor(e.account).now() + this.opts.retryDelayMs * e.attempts;
      }
    })();
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
  }

  /**
   * Drops the oldest finished entries (delivered, failed, recorded) beyond maxEntries, then, when
   * too few are finished, the oldest of any. Adding lets the history run a little over (an eighth,
   * at least 64) and then cuts it back in one pass, so that a busy server does not move the whole
   * history for every entry; what is read (list, toJSON) is cut back exactly first.
   */
  private trim(exact = false): void {
    const max = this.opts.maxEntries;
    const length = this.entries.length;
    if (length <= (exact ? max : max + Math.max(64, max >> 3))) return;
    let finishedToDrop = length - max;
    let kept = 0;
    for (const e of this.entries) {
      if (finishedToDrop > 0 && (e.status === 'delivered' || e.status === 'failed' || e.status === 'recorded'))
        finishedToDrop--;
      else this.entries[kept++] = e;
    }
    this.entries.length = kept;
    if (kept > max) this.entries.splice(0, kept - max);
  }
}
