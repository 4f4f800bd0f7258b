// The fixed-window rate limiter (src/http/rate-limit.ts) on a pinned VirtualClock, and the parser
// of --rate-limit N/S.
import { describe, expect, it } from 'vitest';
import { RateLimiter, parseRateLimit } from '../../src/http/rate-limit.js';
import { VirtualClock } from '../../src/domain/clock.js';

const T0 = 1_700_000_000_000;

function limiter(limit: number, windowMs: number, maxKeys?: number) {
  const clock = new VirtualClock();
  clock.pin(T0);
  return { clock, limiter: new RateLimiter({ limit, windowMs, clock, ...(maxKeys !== undefined ? { maxKeys } : {}) }) };
}

describe('RateLimiter', () => {
  it('admits `limit` requests of a key at the same instant, then answers the whole window in seconds', () => {
    const { limiter: l } = limiter(3, 10_000);
    expect([l.hit('a'), l.hit('a'), l.hit('a')]).toEqual([undefined, undefined, undefined]);
    expect(l.hit('a')).toBe(10);
    expect(l.hit('a')).toBe(10);
  });

  it('Retry-After: the seconds left in the window, rounded up, at least 1', () => {
    const { clock, limiter: l } = limiter(1, 10_000);
    expect(l.hit('a')).toBeUndefined();
    clock.advance(2_500);
    expect(l.hit('a')).toBe(8);
    clock.advance(4_000);
    expect(l.hit('a')).toBe(4);
    clock.advance(3_499);
    expect(l.hit('a')).toBe(1);
    clock.advance(1);
    // The window ends at T0 + 10 s: a new one starts.
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('a')).toBe(10);
  });

  it('the window is fixed: it starts at the first request and ends windowMs later, not windowMs after the last', () => {
    const { clock, limiter: l } = limiter(2, 1_000);
    expect(l.hit('a')).toBeUndefined();
    clock.advance(999);
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('a')).toBe(1);
    clock.advance(1);
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('a')).toBe(1);
  });

  it('keys are counted apart', () => {
    const { limiter: l } = limiter(1, 5_000);
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('b')).toBeUndefined();
    expect(l.hit('a')).toBe(5);
    expect(l.hit('b')).toBe(5);
    expect(l.hit('c')).toBeUndefined();
  });

  it('a clock set back before the window started opens a new window', () => {
    const { clock, limiter: l } = limiter(1, 60_000);
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('a')).toBe(60);
    clock.set(T0 - 1);
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('a')).toBe(60);
    // Forward again, within the new window (it started at T0 - 1).
    clock.set(T0 + 29_999);
    expect(l.hit('a')).toBe(30);
  });

  it('keeps at most maxKeys windows, dropping the oldest first', () => {
    const { limiter: l } = limiter(1, 60_000, 2);
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('b')).toBeUndefined();
    expect(l.hit('c')).toBeUndefined();
    // a was dropped: its next request starts a new window; b is still counted.
    expect(l.hit('b')).toBe(60);
    // a's new window pushed out the oldest, b's; c is still counted.
    expect(l.hit('a')).toBeUndefined();
    expect(l.hit('c')).toBe(60);
    expect(l.hit('b')).toBeUndefined();
  });

  it('describe(): the limit and the window in seconds', () => {
    expect(limiter(100, 1_000).limiter.describe()).toBe('100 per 1 s');
    expect(limiter(2, 1_500).limiter.describe()).toBe('2 per 1.5 s');
    expect(limiter(5, 60_000).limiter.describe()).toBe('5 per 60 s');
  });
});

describe('parseRateLimit', () => {
  it('reads N/S and N/Ss, S possibly fractional, around whitespace', () => {
    expect(parseRateLimit('1000/1')).toEqual({ limit: 1000, windowMs: 1000 });
    expect(parseRateLimit('1/1')).toEqual({ limit: 1, windowMs: 1000 });
    expect(parseRateLimit('5/60s')).toEqual({ limit: 5, windowMs: 60_000 });
    expect(parseRateLimit('3/1.25')).toEqual({ limit: 3, windowMs: 1250 });
    expect(parseRateLimit('3/0.5s')).toEqual({ limit: 3, windowMs: 500 });
    expect(parseRateLimit(' 7/2 ')).toEqual({ limit: 7, windowMs: 2000 });
    expect(parseRateLimit('\t7/2s\n')).toEqual({ limit: 7, windowMs: 2000 });
    expect(parseRateLimit('100/1m')).toEqual({ limit: 100, windowMs: 60_000 });
    expect(parseRateLimit('100/250ms')).toEqual({ limit: 100, windowMs: 250 });
  });

  it('refuses anything else, naming the value', () => {
    for (const text of [
      '',
      'abc',
      '100',
      '/1',
      '10/',
      'x10/1',
      '10/1x',
      '10/1ss',
      '10/1.',
      '10/.5',
      '10/1.5.5',
      '-1/1',
      '1.5/1',
      '10 / 1',
      '10/1 s',
      '0/1',
      '00/5',
      '5/0',
      '5/0.0',
      '5/0s',
    ]) {
      expect(() => parseRateLimit(text), JSON.stringify(text)).toThrow(
        new Error(
          `--rate-limit must look like N/S (N requests per S seconds, or per a duration: 100/1m), got "${text}"`,
        ),
      );
    }
  });
});
