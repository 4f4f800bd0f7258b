// The rate limit of a team's Tusk: each key's requests are counted across every replica, in
// Postgres, in fixed windows of the limit's length on the account's clock; the same limit one
// process counts alone (src/http/rate-limit.ts). The hits of the requests that came while the last
// count was in flight are counted together, in one statement (batch.ts, rows.ts `hits`): each
// request still gets a number of its own in its key's window (the count before the statement, plus
// its place among that key's requests in it), so that exactly `limit` requests of a window are
// admitted across the team, as if each had been counted alone. When Postgres cannot count (it is
// gone for a moment), a request is admitted rather than refused: a limit is no reason to fail a
// client's request.
import type { Limiter } from '../http/rate-limit.js';
import type { Logger } from '../core/log.js';
import { Batch } from './batch.js';
import { hits, type Queryable } from './rows.js';

/** One request's hit: its key and window. */
interface Hit {
  key: string;
  win: number;
}

export class SharedRateLimiter implements Limiter {
  private warned = false;
  private readonly counts = new Batch<Hit, number>((batch) => this.count(batch));

  constructor(
    private readonly db: Queryable,
    private readonly options: { limit: number; windowMs: number; now: () => number; logger: Logger },
  ) {}

  async hit(key: string, now = this.options.now()): Promise<number | undefined> {
    const { limit, windowMs } = this.options;
    const win = Math.floor(now / windowMs);
    try {
      const n = await this.counts.answer({ key, win });
      this.warned = false;
      return n <= limit ? undefined : Math.max(1, Math.ceil(((win + 1) * windowMs - now) / 1000));
    } catch (err) {
      if (!this.warned) this.options.logger.warn(`tusk: team: the rate limit cannot count: ${(err as Error).message}`);
      this.warned = true;
      return undefined;
    }
  }

  /** Counts a batch of hits in one statement; the number of each hit in its key's window. */
  private async count(batch: readonly Hit[]): Promise<number[]> {
    const pairs = new Map<string, { key: string; win: number; n: number }>();
    const place = batch.map((h) => {
      const id = `${h.win} ${h.key}`;
      const pair = pairs.get(id) ?? { key: h.key, win: h.win, n: 0 };
      pairs.set(id, pair);
      return { pair, index: pair.n++ };
    });
    const list = [...pairs.values()];
    const totals = await hits(
      this.db,
      list.map((p) => p.key),
      list.map((p) => p.win),
      list.map((p) => p.n),
    );
    const total = new Map(list.map((p, i) => [p, totals[i]!]));
    // The count after the statement, less this key's later hits in the batch.
    return place.map(({ pair, index }) => total.get(pair)! - pair.n + index + 1);
  }

  describe(): string {
    return `${this.options.limit} per ${this.options.windowMs / 1000} s`;
  }
}
