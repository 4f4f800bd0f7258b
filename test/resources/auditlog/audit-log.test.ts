// The bounded audit log against the obvious model (an array that drops its oldest row past the cap
// and scans for the latest time): the same rows, latest time and version after every push, with the
// clock moving forward, pinned and set back, and past the batch in which dropped rows are removed.
import { describe, expect, it } from 'vitest';
import { AuditLog, type AuditEvent } from '../../../src/resources/auditlog/audit-log.js';

const row = (at: number, n: number): AuditEvent => ({
  at,
  event: `e${n}`,
  source: 'api',
  user: 'u@example.com',
  extras: [],
});

function model(cap: number, initial: AuditEvent[]) {
  const rows = initial.slice(Math.max(0, initial.length - cap));
  return {
    push(r: AuditEvent) {
      rows.push(r);
      if (rows.length > cap) rows.splice(0, rows.length - cap);
    },
    rows: () => rows,
    latest: () => rows.reduce((m, e) => Math.max(m, e.at), -Infinity),
  };
}

describe('AuditLog', () => {
  it('keeps the last cap rows, oldest first, with their latest time, whatever the clock does', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const initial = Array.from({ length: 8 }, (_, i) => row(1000 + i, i));
    const log = new AuditLog(5, initial);
    const m = model(5, initial);
    let at = 2000;
    for (let n = 0; n < 3000; n++) {
      // Mostly forward, sometimes pinned (same time), sometimes set back.
      const r = random();
      at = r < 0.6 ? at + 1 : r < 0.85 ? at : at - Math.floor(random() * 50);
      log.push(row(at, n));
      m.push(row(at, n));
      expect(log.latest).toBe(m.latest());
      expect(log.size).toBe(5);
      if (n % 97 === 0) expect(log.rows().map((e) => e.event)).toEqual(m.rows().map((e) => e.event));
    }
    expect(log.rows().map((e) => e.event)).toEqual(m.rows().map((e) => e.event));
    expect(log.version).toBe(3000);
  });

  it('holds the latest time of a row set back in time until that row is dropped', () => {
    const log = new AuditLog(2, []);
    log.push(row(100, 1));
    log.push(row(50, 2));
    expect(log.latest).toBe(100);
    log.push(row(60, 3)); // drops the row at 100
    expect(log.latest).toBe(60);
    expect(log.rows().map((e) => e.at)).toEqual([50, 60]);
  });

  it('is empty with no rows: size 0 and no latest time', () => {
    const log = new AuditLog(3, []);
    expect(log.size).toBe(0);
    expect(log.latest).toBe(-Infinity);
    expect(log.rows()).toEqual([]);
  });
});
