// The rate limit of a team's Tusk: each key's requests are counted across every replica, in
// Postgres (one upsert per request, rows.ts `hit`), in fixed windows of the limit's length on the
// account's clock; the same limit one process counts alone (src/http/rate-limit.ts). When Postgres
// cannot count (it is gone for a moment), a request is admitted rather than refused: a limit is no
// reason to fail a client's request.
import type { Limiter } from '../http/rate-limit.js';
import type { Logger } from '../core/log.js';
import { hit, type Queryable } from './rows.js';

export class SharedRateLimiter implements Limiter {
  private warned = false;

  constructor(
    private readonly db: Queryable,
    private readonly options: { limit: number; windowMs: number; now: () => number; logger: Logger },
  ) {}

  async hit(key: string, now = this.options.now()): Promise<number | undefined> {
    const { limit, windowMs } = this.options;
    const win = Math.floor(now / windowMs);
    try {
      const n = await hit(this.db, key, win);
      this.warned = false;
      return n <= limit ? undefined : Math.max(1, Math.ceil(((win + 1) * windowMs - now) / 1000));
    } catch (err) {
      if (!this.warned) this.options.logger.warn(`tusk: team: the rate limit cannot count: ${(err as Error).message}`);
      this.warned = true;
      return undefined;
    }
  }

  describe(): string {
    return `${this.options.limit} per ${this.options.windowMs / 1000} s`;
  }
}
