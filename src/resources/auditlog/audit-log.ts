// An account's audit rows: at most `cap`, the oldest dropped first, with the latest time among them
// and a version that changes with every row (what the CSV kept by AccountStore is made for).
// Dropped rows are skipped by an index and removed in batches, and the latest time is worked out
// again only when the dropped row held it and the new row does not (the clock was set back): a
// write costs the same at the cap as below it.
import type { AuditEventFixture } from '../../../fixtures/index.js';

export type AuditEvent = AuditEventFixture;

/** Dropped rows are removed from the array this many at a time. */
const COMPACT_EVERY = 1024;

export class AuditLog {
  private items: AuditEvent[];
  /** Rows before this index are dropped. */
  private start = 0;
  private latestAt: number;
  private revision = 0;

  constructor(
    private readonly cap: number,
    rows: readonly AuditEvent[],
  ) {
    this.items = rows.slice(Math.max(0, rows.length - cap));
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

  private compact(): void {
    if (this.start === 0) return;
    this.items.splice(0, this.start);
    this.start = 0;
  }
}

const maxAt = (rows: readonly AuditEvent[]) => rows.reduce((max, e) => Math.max(max, e.at), -Infinity);
