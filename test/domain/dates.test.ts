// The date and time forms of the instance interface: pit (yyyy-mm-dd hh:mm), create-instance's pit
// (yyyy-mm-dd hh:mm:ss), maintenance dates (yyyy-mm-dd hh:mm:ss ±hhmm) and durations.
import { describe, expect, it } from 'vitest';
import { formatDuration, parseMaintenanceDate, parsePitMinute, parsePitSecond } from '../../src/domain/dates.js';

describe('parsePitMinute', () => {
  it('reads yyyy-mm-dd hh:mm as UTC', () => {
    expect(parsePitMinute('2026-11-21 13:30')).toBe(Date.UTC(2026, 10, 21, 13, 30));
    expect(parsePitMinute('2028-02-29 23:59')).toBe(Date.UTC(2028, 1, 29, 23, 59));
  });

  it('refuses anything before or after the form, and other forms', () => {
    for (const text of [
      'x2026-11-21 13:30',
      ' 2026-11-21 13:30',
      '2026-11-21 13:30x',
      '2026-11-21 13:30:00',
      '2026-11-21T13:30',
      'soon',
      '',
    ]) {
      expect(parsePitMinute(text), text).toBeUndefined();
    }
  });

  it('refuses fields that name no real time, rather than rolling them over', () => {
    for (const text of [
      '2026-02-30 10:00',
      '2026-02-29 10:00',
      '2026-13-01 00:00',
      '2026-00-10 00:00',
      '2026-02-10 24:00',
      '2026-02-10 23:60',
    ]) {
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
    for (const text of [
      'x2026-11-21 13:30:15',
      '2026-11-21 13:30:15x',
      '2026-11-21 13:30:15 +0000',
      '2026-11-21 13:30',
      '2026-11-21 13:30:60',
      '2026-04-31 00:00:00',
    ]) {
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
    for (const text of [
      '2026-12-01 03:00:00 +2400',
      '2026-12-01 03:00:00 -2400',
      '2026-12-01 03:00:00 +0060',
      '2026-12-01 03:00:00 +0099',
    ]) {
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
    expect([1, 30, 45, 60, 90, 120, 180].map(formatDuration)).toEqual([
      '1 minute',
      '30 minutes',
      '45 minutes',
      '1 hour',
      '90 minutes',
      '2 hours',
      '3 hours',
    ]);
  });
});
