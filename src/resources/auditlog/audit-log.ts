// An account's audit log: the rows every successful state-changing call of the customer interface
// writes (`write`), at most `cap`, the oldest dropped first, and the CSV of one month that
// getAuditLogCsv answers, kept as bytes until the next row (or another month). Dropped rows are
// skipped by an index and removed in batches, and the latest time is worked out again only when the
// dropped row held it and the new row does not (the clock was set back): a write costs the same at
// the cap as below it.
import { createRequire } from 'node:module';
import type { AuditEventFixture } from '../../../fixtures/index.js';
import type { Clock } from '../../domain/clock.js';
import { auditTimestamp, monthIndexOfTime, monthIndexOfYearMonth } from '../../domain/dates.js';

export type AuditEvent = AuditEventFixture;
export type AuditExtras = [string, string | number][];

/** Writes a row for an action of `actor` (the key whose team member's e-mail is the User column). */
export type AuditWriter = (actor: { email: string }, event: string, extras: AuditExtras) => void;

/** The audit log's header line (the columns of the CSV). */
export const AUDIT_COLUMNS = ['Timestamp', 'Event', 'Source', 'User', 'Extras'] as const;

/** Dropped rows are removed from the array this many at a time. */
const COMPACT_EVERY = 1024;

const requireHere = createRequire(import.meta.url);
/** csv-stringify's stringify, loaded by the first CSV made (start-up needs none of it; require caches it). */
const csvStringify = () => (requireHere('csv-stringify/sync') as typeof import('csv-stringify/sync')).stringify;

const copyRow = (e: AuditEvent): AuditEvent => ({
  ...e,
  extras: e.extras.map(([k, v]) => [k, v] as [string, string | number]),
});

export class AuditLog {
  private items: AuditEvent[];
  /** Rows before this index are dropped. */
  private start = 0;
  private latestAt: number;
  private revision = 0;
  /** The CSV last made, for the version and the month it was made for. */
  private lastCsv: { version: number; month: string | undefined; bytes: Uint8Array } | undefined;

  constructor(
    private readonly cap: number,
    rows: readonly AuditEvent[],
    private readonly clock?: Clock,
  ) {
    this.items = rows.slice(Math.max(0, rows.length - cap)).map(copyRow);
    this.latestAt = maxAt(this.items);
  }

  get size(): number {
    return this.items.length - this.start;
  }

  /** The latest time among the rows (-Infinity when there are none). */
  get latest(): number {
    return this.latestAt;
  }

  /** Changes with every row added. */
  get version(): number {
    return this.revision;
  }

  /** A row for a successful state-changing call, at the clock's now. */
  readonly write: AuditWriter = (actor, event, extras) =>
    this.push({ at: this.clock!.now(), event, source: 'api', user: actor.email, extras });

  push(row: AuditEvent): void {
    this.items.push(row);
    this.revision++;
    this.latestAt = Math.max(this.latestAt, row.at);
    if (this.size <= this.cap) return;
    const dropped = this.items[this.start++]!;
    if (dropped.at === this.latestAt && row.at < this.latestAt) this.latestAt = maxAt(this.rows());
    else if (this.start >= COMPACT_EVERY) this.compact();
  }

  /** The rows kept, oldest first. */
  rows(): readonly AuditEvent[] {
    this.compact();
    return this.items;
  }

  /** The CSV of one month (`yyyy-mm`); omitted, the latest month with events (else the current month). */
  csv(month?: string): string {
    const latest = this.size ? this.latest : this.clock!.now();
    const index = month === undefined ? monthIndexOfTime(latest) : monthIndexOfYearMonth(month);
    const rows = this.rows()
      .filter((e) => monthIndexOfTime(e.at) === index)
      .sort((a, b) => a.at - b.at)
      .map((e) => [
        auditTimestamp(e.at),
        e.event,
        e.source,
        e.user,
        e.extras.map(([k, v]) => `${k} = ${v}`).join(', '),
      ]);
    return csvStringify()(rows, { header: true, columns: [...AUDIT_COLUMNS], record_delimiter: 'windows' });
  }

  /** csv(month) as the bytes of its answer, made again only after the next row (or for another month). */
  csvBytes(month?: string): Uint8Array {
    const last = this.lastCsv;
    if (last?.version === this.revision && last.month === month) return last.bytes;
    const bytes = Buffer.from(this.csv(month));
    this.lastCsv = { version: this.revision, month, bytes };
    return bytes;
  }

  /** The rows as a state dump holds them. */
  toJSON(): AuditEvent[] {
    return this.rows().map(copyRow);
  }

  private compact(): void {
    if (this.start === 0) return;
    this.items.splice(0, this.start);
    this.start = 0;
  }
}

const maxAt = (rows: readonly AuditEvent[]) => rows.reduce((max, e) => Math.max(max, e.at), -Infinity);
