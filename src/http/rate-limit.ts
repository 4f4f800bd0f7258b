// A fixed-window rate limiter per API key, on the store's clock so that a test can roll the window
// by advancing the clock instead of sleeping (generic limiters read Date.now()).
import type { Clock } from '../domain/clock.js';
import { parseDuration } from '../core/duration.js';

export interface RateLimitOptions {
  /** Requests admitted per window and key. */
  limit: number;
  /** Window length in ms. */
  windowMs: number;
  clock: Clock;
  /** Keys tracked at most; the oldest windows are dropped first, so memory stays bounded. */
  maxKeys?: number;
}

export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly options: RateLimitOptions) {}

  /**
   * Counts a request for `key` at `now` (default: the limiter's clock; a key's account may run a
   * clock of its own); returns undefined when admitted, else the seconds to wait.
   */
  hit(key: string, now = this.options.clock.now()): number | undefined {
    const { limit, windowMs, maxKeys = 100_000 } = this.options;
    let w = this.windows.get(key);
    if (!w || now - w.start >= windowMs || now < w.start) {
      this.windows.delete(key);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
      if (this.windows.size > maxKeys) this.windows.delete(this.windows.keys().next().value!);
    }
    w.count++;
    if (w.count <= limit) return undefined;
    return Math.max(1, Math.ceil((w.start + windowMs - now) / 1000));
  }

  describe(): string {
    return `${this.options.limit} per ${this.options.windowMs / 1000} s`;
  }
}

/** Parses `N/S` (N requests per S seconds, or per a duration: `100/1m`) as used by --rate-limit. */
export function parseRateLimit(text: string): { limit: number; windowMs: number } {
  const m = /^(\d+)\/(\S+)$/.exec(text.trim());
  const windowMs = m ? parseDuration(m[2], 's') : undefined;
  if (!m || Number(m[1]) < 1 || !windowMs)
    throw new Error(
      `--rate-limit must look like N/S (N requests per S seconds, or per a duration: 100/1m), got "${text}"`,
    );
  return { limit: Number(m[1]), windowMs };
}
