// The backups an instance keeps, as time makes them: the daily backups of every database, at a fixed
// minute of 03:xx UTC per instance and database, added with the next id when first seen after their
// time (ids follow the days; within a day, the databases' order), the seeded history of the days
// before the instance was built (made when first needed: most instances a test creates never read
// their backups), and the backups created through the API. Backups that have left the 30-day window
// for good are forgotten. The rules of what is listed, created and restored are backups.ts.
import { IdSequence } from '../../domain/ids.js';
import { DAY, HOUR, MINUTE, startOfUtcDay } from '../../domain/dates.js';
import type { BackupsState } from '../../domain/state.js';
import type { BackupItem } from './records.js';

/** Backups are listed, restorable and point-in-time recovery reaches back this far. */
export const RETENTION_MS = 30 * DAY;
/** Days of daily backups an instance starts with, today's included once taken (more than the window, so the window shows). */
export const SEEDED_BACKUP_DAYS = 40;

export interface BackupState extends BackupItem {
  readyAt: number;
  /** Its snapshot is being made (not listed until it is). */
  pending?: boolean;
}

export class BackupHistory {
  private readonly items: BackupState[] = [];
  private readonly ids: IdSequence;
  /** Per database: the day (00:00 UTC) of its next daily backup not yet added. */
  private readonly nextDaily: number[];
  /** The construction time whose seeded history is not made yet (see seed()). */
  private seedOrigin: number | undefined;
  /** Changes whenever a backup is added or removed, becomes ready or a size is set. */
  private changes = 0;

  /**
   * @param who the instance (its id sets the daily minute) and its databases, the default one first
   * @param origin the time the seeded history runs back from (the instance's construction)
   * @param state a state written by toJSON() to take over instead of the seeded history
   */
  constructor(
    private readonly who: { instanceId: number; databases: readonly string[] },
    origin: number,
    state?: BackupsState,
  ) {
    if (state) {
      this.ids = IdSequence.fromJSON(state.last_id);
      this.nextDaily = [...state.next_daily];
      for (const b of state.items)
        this.items.push({
          id: b.id,
          databaseName: b.database_name,
          takenAt: b.taken_at,
          readyAt: b.ready_at,
          size: b.size,
          salt: 0,
          ...(b.pending ? { pending: true } : {}),
        });
      return;
    }
    this.ids = new IdSequence();
    this.nextDaily = who.databases.map(() => startOfUtcDay(origin) - SEEDED_BACKUP_DAYS * DAY);
    this.seedOrigin = origin;
  }

  get version(): number {
    return this.changes;
  }

  /** Every backup kept, as of `now` (catchUp first), oldest first. */
  at(now: number): readonly BackupState[] {
    this.catchUp(now);
    return this.items;
  }

  /** A backup by id, without catching up (its time and size are what the engine asks for). */
  find(id: number): BackupState | undefined {
    this.seed();
    return this.items.find((x) => x.id === id);
  }

  /** A new backup created through the API, with the next id (its size is made from the id, see records.ts). */
  add(item: Pick<BackupState, 'databaseName' | 'takenAt' | 'readyAt' | 'pending'>): BackupState {
    const id = this.ids.next();
    const added: BackupState = { id, ...item, size: undefined, salt: -id };
    this.items.push(added);
    this.changes++;
    return added;
  }

  /** A backup changed what a list shows of it (it became ready, or its size is known). */
  changed(): void {
    this.changes++;
  }

  /** The earliest time at which a daily backup not yet added is taken. */
  nextDailyTime(): number {
    let next = Infinity;
    this.nextDaily.forEach((day, i) => (next = Math.min(next, this.dailyTime(day, i))));
    return next;
  }

  /** Makes the seeded history (catchUp to the construction time) the first time anything reads or changes the backups. */
  private seed(): void {
    if (this.seedOrigin === undefined) return;
    const origin = this.seedOrigin;
    this.seedOrigin = undefined;
    this.catchUp(origin);
  }

  toJSON(sizeOf: (b: BackupState) => number): BackupsState {
    this.seed();
    return {
      last_id: this.ids.toJSON(),
      next_daily: [...this.nextDaily],
      items: this.items.map((b) => ({
        id: b.id,
        database_name: b.databaseName,
        taken_at: b.takenAt,
        ready_at: b.readyAt,
        size: sizeOf(b),
        ...(b.pending ? { pending: true } : {}),
      })),
    };
  }

  /** When the daily backup of database `i` on `day` is taken: a fixed minute of 03:xx UTC per instance and database. */
  private dailyTime(day: number, i: number): number {
    return day + 3 * HOUR + ((this.who.instanceId * 7 + i * 20) % 60) * MINUTE;
  }

  /**
   * Adds the daily backups whose time has come, day by day and database by database (ids follow the
   * days; within a day, the databases' order, whatever their minutes), and forgets backups that have
   * left the 30-day window for good.
   */
  private catchUp(now: number): void {
    this.seed();
    // After a long jump of the clock, days that could never be listed are skipped.
    const first = startOfUtcDay(now) - SEEDED_BACKUP_DAYS * DAY;
    this.nextDaily.forEach((day, i) => {
      if (day < first) this.nextDaily[i] = first;
    });
    for (;;) {
      const day = Math.min(...this.nextDaily);
      let added = false;
      this.who.databases.forEach((db, i) => {
        if (this.nextDaily[i] !== day) return;
        const takenAt = this.dailyTime(day, i);
        if (takenAt > now) return;
        this.items.push({
          id: this.ids.next(),
          databaseName: db,
          takenAt,
          readyAt: takenAt,
          size: undefined,
          salt: day / DAY,
        });
        this.changes++;
        this.nextDaily[i] = day + DAY;
        added = true;
      });
      if (!added) break;
    }
    const horizon = now - RETENTION_MS - SEEDED_BACKUP_DAYS * DAY;
    if (this.items.length && this.items[0]!.takenAt < horizon) {
      const keep = this.items.filter((b) => b.takenAt >= horizon);
      this.items.length = 0;
      this.items.push(...keep);
      this.changes++;
    }
  }
}
