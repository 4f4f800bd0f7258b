// parseDuration, the one reader of durations (POST /__tusk/clock {advance}, a fault's latency,
// --rate-limit's window): `<number><unit>` with unit ms, s, m, h or d (e.g. `10m`, `1.5h`, `30d`), a
// bare number in the caller's unit if it has one, or a number of ms; anything else is not a duration.
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/core/duration.js';

describe('parseDuration', () => {
  it('reads a number with a unit as ms, decimals included', () => {
    expect(parseDuration('250ms')).toBe(250);
    expect(parseDuration('10m')).toBe(600_000);
    expect(parseDuration('1.5h')).toBe(5_400_000);
    expect(parseDuration('1.25h')).toBe(4_500_000);
    expect(parseDuration('30d')).toBe(30 * 86_400_000);
    expect(parseDuration('0s')).toBe(0);
    expect(parseDuration(' 2 m ')).toBe(120_000);
  });

  it('reads a bare number in the unit the caller names, and only then', () => {
    expect(parseDuration('10', 's')).toBe(10_000);
    expect(parseDuration('1.25', 's')).toBe(1250);
    expect(parseDuration('10m', 's')).toBe(600_000);
    expect(parseDuration('10')).toBeUndefined();
  });

  it('takes a number as ms, zero included', () => {
    expect(parseDuration(500)).toBe(500);
    expect(parseDuration(0)).toBe(0);
  });

  it('refuses a negative or not finite number', () => {
    expect(parseDuration(-5)).toBeUndefined();
    expect(parseDuration(-0.5)).toBeUndefined();
    expect(parseDuration(Number.POSITIVE_INFINITY)).toBeUndefined();
    expect(parseDuration(Number.NaN)).toBeUndefined();
  });

  it('refuses a text that is a duration only in part', () => {
    for (const text of [
      '-1m',
      'x10m',
      '10min',
      '1.5hours',
      '10m later',
      '5w',
      '10',
      'm',
      '1.h',
      '.5h',
      '10 minutes',
      '1-2s',
      '1e3ms',
    ]) {
      expect(parseDuration(text), text).toBeUndefined();
    }
  });

  it('refuses what is neither a number nor a text', () => {
    for (const value of [null, undefined, true, {}, ['10m']]) {
      expect(parseDuration(value), JSON.stringify(value)).toBeUndefined();
    }
  });
});
