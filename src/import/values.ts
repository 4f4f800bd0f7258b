// The values `tusk import` reads from the texts its source answers (times, maintenance durations,
// the Extras of an audit row, a connection url's password), and the fresh secrets it makes in
// place of those it does not keep.
import { randomBytes } from 'node:crypto';

/** A fresh secret of letters and digits. */
export function freshSecret(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length * 2);
  let out = '';
  for (const b of bytes) {
    if (b >= 248) continue; // 248 = 62 * 4: no bias
    out += alphabet[b % 62];
    if (out.length === length) break;
  }
  return out.length === length ? out : out + freshSecret(length - out.length);
}

/**
 * A time as the interfaces write them, in ms: `2026-11-28 03:27:00+0000`, `2026-12-02 02:00:00
 * +0000`, `2026-11-28 07:37:28 UTC`, ISO 8601; NaN when it is none of these.
 */
export function parseTime(text: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?\s*(Z|UTC|GMT|[+-]\d\d:?\d\d)?$/i.exec(
    text.trim(),
  );
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone = 'Z'] = m;
  const base = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s, Math.round(Number(`0${frac}`) * 1000));
  if (/^(Z|UTC|GMT)$/i.test(zone)) return base;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.replace(/[^0-9]/g, '');
  return base - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

/** Minutes of a maintenance `duration` (`30 minutes`, `1 hour`, `2 hours`, `1 hour 30 minutes`); NaN when unreadable. */
export function parseDuration(text: string): number {
  let minutes = 0;
  let found = false;
  for (const m of text.matchAll(/(\d+)\s*(hours?|h|minutes?|mins?|m)\b/gi)) {
    found = true;
    minutes += Number(m[1]) * (/^h/i.test(m[2]!) ? 60 : 1);
  }
  return found ? minutes : Number.NaN;
}

/**
 * The Extras column of an audit row (`key = value, key = value`) as pairs. A value may hold `, `
 * itself: a piece without ` = ` continues the value before it, so the pairs written again as
 * `key = value` joined by `, ` give the text back.
 */
export function parseExtras(text: string): [string, string][] | undefined {
  if (!text) return [];
  const pairs: [string, string][] = [];
  for (const piece of text.split(', ')) {
    const eq = piece.indexOf(' = ');
    if (eq > 0) pairs.push([piece.slice(0, eq), piece.slice(eq + 3)]);
    else if (pairs.length) pairs[pairs.length - 1]![1] += `, ${piece}`;
    else return undefined;
  }
  return pairs;
}

/** The password of a connection url (`postgres://user:PASSWORD@host/db`), if it has one. */
export function passwordOf(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:([^@/]+)@/i.exec(url);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1];
  }
}
