// The date and time forms of the instance interface: pit (yyyy-mm-dd hh:mm), create-instance's pit
// (yyyy-mm-dd hh:mm:ss), maintenance dates (yyyy-mm-dd hh:mm:ss ±hhmm) and durations.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditTimestamp, formatBackupDate, formatDuration, formatMaintenanceDate, isoTime, parseMaintenanceDate, parsePitMinute, parsePitSecond } from '../../src/store/dates.js';

// The forms are computed by arithmetic: they must be exactly what Date gives, at every time.
const viaDate = (ms: number) => {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
};
const MAX = 8.64e15;
const EDGES = [0, -1, 1, 951782400000 /* 2000-02-29 */, 4107542399999 /* 2100-02-28 23:59:59.999 */, Date.UTC(2026, 11, 31, 23, 59, 59, 999), Date.UTC(2028, 1, 29), -62135596800000 /* 0001-01-01 */, -62135596800001, Date.UTC(9999, 11, 31, 23, 59, 59, 999), Date.UTC(10000, 0, 1), MAX, -MAX];
const anyTime = fc.oneof(fc.integer({ min: -MAX, max: MAX }), fc.integer({ min: -5e12, max: 5e12 }), fc.constantFrom(...EDGES));

describe('the written forms, against Date', () => {
  it('write every time of the Date range as Date writes it', () => {
    fc.assert(
      fc.property(anyTime, (ms) => {
        expect(formatMaintenanceDate(ms)).toBe(`${viaDate(ms)} +0000`);
        expect(formatBackupDate(ms)).toBe(`${viaDate(ms)}+0000`);
        expect(auditTimestamp(ms)).toBe(`${viaDate(ms)} UTC`);
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('write times outside the range as Date does: NaN fields, and a RangeError for the ISO form', () => {
    for (const ms of [NaN, MAX + 1, Infinity]) {
      expect(formatMaintenanceDate(ms)).toBe('NaN-NaN-NaN NaN:NaN:NaN +0000');
      expect(() => isoTime(ms)).toThrow(RangeError);
    }
  });
});

describe('the calendar check of the readers, against Date', () => {
  it('takes exactly the fields that Date keeps as they are (and no year before 100)', () => {
    const viaDateUtc = (y: number, mo: number, d: number, h: number, mi: number, s: number) => {
      const ms = Date.UTC(y, mo - 1, d, h, mi, s);
      const b = new Date(ms);
      return b.getUTCFullYear() === y && b.getUTCMonth() === mo - 1 && b.getUTCDate() === d && b.getUTCHours() === h && b.getUTCMinutes() === mi && b.getUTCSeconds() === s ? ms : undefined;
    };
    const p = (n: number, w = 2) => String(n).padStart(w, '0');
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        fc.integer({ min: 0, max: 99 }),
        (y, mo, d, h, mi, s) => {
          const want = viaDateUtc(y, mo, d, h, mi, s);
          expect(parsePitSecond(`${p(y, 4)}-${p(mo)}-${p(d)} ${p(h)}:${p(mi)}:${p(s)}`)).toBe(want);
          expect(parseMaintenanceDate(`${p(y, 4)}-${p(mo)}-${p(d)} ${p(h)}:${p(mi)}:${p(s)} +0000`)).toBe(want);
        },
      ),
      { numRuns: 20_000 },
    );
    // Month ends and leap days, which random fields seldom hit.
    for (const [y, mo, d] of [[2024, 2, 29], [2100, 2, 29], [2000, 2, 29], [2026, 2, 29], [2026, 4, 31], [2026, 12, 31], [1900, 2, 29], [100, 1, 1], [99, 12, 31]] as const) {
      expect(parsePitSecond(`${p(y, 4)}-${p(mo)}-${p(d)} 00:00:00`), `${y}-${mo}-${d}`).toBe(viaDateUtc(y, mo, d, 0, 0, 0));
    }
  });
});

describe('parsePitMinute', () => {
  it('reads yyyy-mm-dd hh:mm as UTC', () => {
    expect(parsePitMinute('2026-11-21 13:30')).toBe(Date.UTC(2026, 10, 21, 13, 30));
    expect(parsePitMinute('2028-02-29 23:59')).toBe(Date.UTC(2028, 1, 29, 23, 59));
  });

  it('refuses anything before or after the form, and other forms', () => {
    for (const text of ['x2026-11-21 13:30', ' 2026-11-21 13:30', '2026-11-21 13:30x', '2026-11-21 13:30:00', '2026-11-21T13:30', 'soon', '']) {
      expect(parsePitMinute(text), text).toBeUndefined();
    }
  });

  it('refuses fields that name no real time, rather than rolling them over', () => {
    for (const text of ['2026-02-30 10:00', '2026-02-29 10:00', '2026-13-01 00:00', '2026-00-10 00:00', '2026-02-10 24:00', '2026-02-10 23:60']) {
      expect(parsePitMinute(text), text).toBeUndefined();
    }
  });

  it('never reads a year before 100 as 19xx', () => {
    // Date.UTC maps the years 0 to 99 to 1900 to 1999.
    expect(parsePitMinute('0050-06-01 12:00')).toBeUndefined();
  });
});

describe('parsePitSecond', () => {
  it('reads yyyy-mm-dd hh:mm:ss as UTC', () => {
    expect(parsePitSecond('2026-11-21 13:30:15')).toBe(Date.UTC(2026, 10, 21, 13, 30, 15));
  });

  it('refuses anything before or after the form, other forms and times not on the calendar', () => {
    for (const text of ['x2026-11-21 13:30:15', '2026-11-21 13:30:15x', '2026-11-21 13:30:15 +0000', '2026-11-21 13:30', '2026-11-21 13:30:60', '2026-04-31 00:00:00']) {
      expect(parsePitSecond(text), text).toBeUndefined();
    }
  });
});

describe('parseMaintenanceDate', () => {
  it('reads any offset, the largest ones included', () => {
    expect(parseMaintenanceDate('2026-12-01 03:00:00 +0000')).toBe(Date.UTC(2026, 11, 1, 3));
    expect(parseMaintenanceDate('2026-12-01 05:00:00 +0200')).toBe(Date.UTC(2026, 11, 1, 3));
    expect(parseMaintenanceDate('2026-11-30 22:30:00 -0430')).toBe(Date.UTC(2026, 11, 1, 3));
    expect(parseMaintenanceDate('2026-12-02 02:59:00 +2359')).toBe(Date.UTC(2026, 11, 1, 3));
    expect(parseMaintenanceDate('2026-12-01 03:59:00 +0059')).toBe(Date.UTC(2026, 11, 1, 3));
  });

  it('refuses an offset beyond 23 hours or 59 minutes', () => {
    for (const text of ['2026-12-01 03:00:00 +2400', '2026-12-01 03:00:00 -2400', '2026-12-01 03:00:00 +0060', '2026-12-01 03:00:00 +0099']) {
      expect(parseMaintenanceDate(text), text).toBeUndefined();
    }
  });

  it('refuses anything before or after the form, other forms and times not on the calendar', () => {
    for (const text of [
      'x2026-12-01 03:00:00 +0000',
      '2026-12-01 03:00:00 +00000',
      '2026-12-01 03:00:00 +0000 UTC',
      '2026-12-01 03:00:00+0000',
      '2026-12-01 03:00:00',
      '2026-12-01T03:00:00Z',
      '2026-02-30 03:00:00 +0000',
      'tomorrow',
    ]) {
      expect(parseMaintenanceDate(text), text).toBeUndefined();
    }
  });
});

describe('formatDuration', () => {
  it('writes whole hours in hours and the rest in minutes, singular for one', () => {
    expect([1, 30, 45, 60, 90, 120, 180].map(formatDuration)).toEqual(['1 minute', '30 minutes', '45 minutes', '1 hour', '90 minutes', '2 hours', '3 hours']);
  });
});
