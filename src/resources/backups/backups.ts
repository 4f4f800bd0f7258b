// The backups of one instance, restores and point-in-time recoveries. Time-driven state is derived
// from timestamps against the store's clock when it is read (no timers): a created backup is listed
// once its ready time has passed, only backups of the last 30 days are listed, and the daily
// backups keep coming as the clock moves (each is added, with the next id, when it is first seen
// after its time). Callbacks are queued in the outbox with the time they are due; the server's
// ticker sends them. The list as the bytes of its answer is view.ts, a backup's record records.ts.
// With a database engine, what a backup, restore or recovery of the default database announces is
// real work done in the background (database.ts): the backup is listed, and each callback queued,
// only once that work is done, and never before its delay on the clock, which stays the minimum.
import { invalid, limitReached } from '../../core/errors.js';
import { LIST_CAPS } from '../../core/limits.js';
import { IdSequence } from '../../domain/ids.js';
import {
  DAY,
  HOUR,
  MINUTE,
  floorToMinute,
  formatBackupDate,
  parsePitMinute,
  startOfUtcDay,
} from '../../domain/dates.js';
import type {
  Backup,
  BackupReadyCallback,
  CreateBackupBody,
  PitrCompletedCallback,
  RecoverToPointInTimeBody,
  RestoreBackupBody,
  RestoreCompletedCallback,
  StoreContext,
} from '../../domain/types.js';
import type { BackupsState } from '../../domain/state.js';
import { BackupRecords, URL_LIFETIME_MS, type BackupItem } from './records.js';
import type { BackupDatabase } from './database.js';

export { BACKUP_HOST, URL_LIFETIME_MS } from './records.js';

/** Backups are listed, restorable and point-in-time recovery reaches back this far. */
export const RETENTION_MS = 30 * DAY;
/** Days of daily backups an instance starts with, today's included once taken (more than the window, so the window shows). */
export const SEEDED_BACKUP_DAYS = 40;
/**
 * A created backup is listed as complete, and its callback sent, this long after it was asked for,
 * on the account's clock (the registry's `backupDelayMs` option sets another). With a database
 * engine it is a minimum: never before the snapshot exists either.
 */
export const BACKUP_DELAY_MS = 5_000;
/** A restore or point-in-time recovery sends its callback this long after it was asked for, at least (as BACKUP_DELAY_MS). */
export const RESTORE_DELAY_MS = 5_000;

export interface BackupIdentity {
  instanceId: number;
  providerid: string;
  accountId: string;
  /** `<provider>::<region>` */
  region: string;
  /** The instance's databases; the first is the default one. */
  databases: readonly string[];
}

export interface BackupState extends BackupItem {
  readyAt: number;
  /** Its snapshot is being made (not listed until it is). */
  pending?: boolean;
}

export class Backups {
  private readonly items: BackupState[] = [];
  private readonly ids: IdSequence;
  /** Per database: the day (00:00 UTC) of its next daily backup not yet added. */
  private readonly nextDaily: number[];
  /** The construction time whose seeded history is not made yet (see seed()). */
  private seedOrigin: number | undefined;
  private readonly records: BackupRecords;

  /**
   * @param origin the time the seeded history runs back from (the instance's construction).
   * @param state a state written by toJSON() to take over instead of the seeded history.
   * @param database the work on the default database, with a database engine (database.ts).
   */
  constructor(
    private readonly who: BackupIdentity,
    private readonly ctx: StoreContext,
    origin: number,
    state?: BackupsState,
    private readonly database?: BackupDatabase,
  ) {
    this.records = new BackupRecords(who);
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
        });
      return;
    }
    // Daily backups of every database, oldest first, at a fixed minute of 03:xx UTC per instance:
    // made when first needed (seed()), exactly as they would have been made here (most instances
    // a test creates never read their backups).
    this.ids = new IdSequence();
    this.nextDaily = who.databases.map(() => startOfUtcDay(origin) - SEEDED_BACKUP_DAYS * DAY);
    this.seedOrigin = origin;
  }

  /** Makes the seeded history (catchUp to the construction time) the first time anything reads or changes the backups. */
  private seed(): void {
    if (this.seedOrigin === undefined) return;
    const origin = this.seedOrigin;
    this.seedOrigin = undefined;
    this.catchUp(origin);
  }

  toJSON(): BackupsState {
    this.seed();
    return {
      last_id: this.ids.toJSON(),
      next_daily: [...this.nextDaily],
      items: this.items.map((b) => ({
        id: b.id,
        database_name: b.databaseName,
        taken_at: b.takenAt,
        ready_at: b.readyAt,
        size: this.records.sizeOf(b),
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

  get databases(): readonly string[] {
    return this.who.databases;
  }

  /** The ready backups of the last 30 days, most recent first, of database `db` when given. */
  list(db?: string): Backup[] {
    const now = this.ctx.clock.now();
    return this.listed(now, db).map((b) => this.record(b, now));
  }

  /** The backups list(db) shows at `now`, most recent first, as kept (the view's input). */
  listed(now: number, db?: string): BackupState[] {
    return this.visible(now)
      .filter((b) => db === undefined || b.databaseName === db)
      .sort((a, b) => b.takenAt - a.takenAt || b.id - a.id);
  }

  /**
   * The first time after `now` at which a list could differ: the second of the URLs' expiry moves,
   * a backup becomes ready, a listed one leaves the 30-day window, or a daily backup is due.
   */
  listUntil(now: number, expires: number): number {
    let until = (expires + 1) * 1000 - URL_LIFETIME_MS;
    for (const b of this.items) {
      if (b.readyAt > now) until = Math.min(until, b.readyAt);
      else if (b.takenAt >= now - RETENTION_MS) until = Math.min(until, b.takenAt + RETENTION_MS + 1);
    }
    this.nextDaily.forEach((day, i) => (until = Math.min(until, this.dailyTime(day, i))));
    return until;
  }

  /**
   * Starts a backup of `db` (default: the instance's database); it is listed once ready (and, of the
   * default database with an engine, once its snapshot is made), and then the callback is due.
   */
  create(body: CreateBackupBody = {}): { id: number; readyAt: number } {
    const db = body.db ?? this.who.databases[0]!;
    if (!this.who.databases.includes(db)) {
      throw invalid(
        'db',
        'exists',
        `${db} is not a database of this instance (its databases: ${this.who.databases.join(', ')})`,
      );
    }
    const now = this.ctx.clock.now();
    this.catchUp(now);
    if (this.items.filter((b) => b.takenAt >= now - RETENTION_MS).length >= LIST_CAPS.backupsPerInstance) {
      throw limitReached(
        'backups',
        `an instance keeps at most ${LIST_CAPS.backupsPerInstance} backups taken in the last 30 days (the daily ones included); try again later`,
      );
    }
    const id = this.ids.next();
    const readyAt = now + this.ctx.backupDelayMs;
    const real = this.database && db === this.who.databases[0] ? this.database : undefined;
    const item: BackupState = {
      id,
      databaseName: db,
      takenAt: now,
      readyAt,
      size: undefined,
      salt: -id,
      pending: real !== undefined,
    };
    this.items.push(item);
    this.changes++;
    const { callback } = body;
    const announce = () => {
      item.pending = false;
      this.changes++;
      if (!callback) return;
      const payload: BackupReadyCallback = {
        action: 'backup',
        backup_id: id,
        account_id: this.who.accountId,
        database_name: db,
        status: 'ready',
      };
      this.ctx.outbox.schedule({ event: 'backup', target: callback, body: payload, dueAt: readyAt });
    };
    if (!real) announce();
    else
      real.snapshot(id, now, (bytes) => {
        this.setSize(id, bytes);
        announce();
      });
    return { id, readyAt };
  }

  /**
   * Restores a backup that listBackups shows; the callback is due after the restore delay (and, of
   * the default database with an engine, once its snapshot replaced the database).
   */
  restore(body: RestoreBackupBody): void {
    const now = this.ctx.clock.now();
    const backup = this.visible(now).find((b) => b.id === body.backup_id);
    if (!backup) {
      throw invalid(
        'backup_id',
        'exists',
        `no backup of this instance in the last 30 days has id ${body.backup_id} (see listBackups)`,
      );
    }
    const { callback } = body;
    const announce = () => {
      if (!callback) return;
      const payload: RestoreCompletedCallback = {
        action: 'restore',
        backup_id: backup.id,
        account_id: this.who.accountId,
      };
      this.ctx.outbox.schedule({
        event: 'restore',
        target: callback,
        body: payload,
        dueAt: now + this.ctx.restoreDelayMs,
      });
    };
    if (this.database && backup.databaseName === this.who.databases[0]) this.database.restore(backup.id, announce);
    else announce();
  }

  /**
   * Recovers to `pit` (UTC minute): not in the future, not before the 30-day window; with an engine,
   * the default database becomes the newest snapshot taken within that minute or before, and the
   * callback is due once it has.
   */
  recover(body: RecoverToPointInTimeBody): void {
    const pit = parsePitMinute(body.pit);
    if (pit === undefined) throw invalid('pit', 'format', `${body.pit} is not a real time (yyyy-mm-dd hh:mm, UTC)`);
    const now = this.ctx.clock.now();
    // pit has whole minutes: compare at that precision.
    const nowMinute = floorToMinute(now);
    if (pit > nowMinute) throw invalid('pit', 'not-in-future', `${body.pit} lies in the future`);
    if (pit < nowMinute - RETENTION_MS) {
      throw invalid(
        'pit',
        'retention',
        `${body.pit} lies outside the retention window of 30 days (the earliest is ${formatBackupDate(nowMinute - RETENTION_MS).slice(0, 16)})`,
      );
    }
    const { callback } = body;
    const announce = () => {
      if (!callback) return;
      const payload: PitrCompletedCallback = { action: 'pitr', account_id: this.who.accountId };
      this.ctx.outbox.schedule({
        event: 'pitr',
        target: callback,
        body: payload,
        dueAt: now + this.ctx.restoreDelayMs,
      });
    };
    if (this.database) this.database.recover(pit + MINUTE - 1, announce);
    else announce();
  }

  /** When backup `id` was taken (ms on the clock); NaN for an unknown id. */
  takenAt(id: number): number {
    this.seed();
    return this.items.find((x) => x.id === id)?.takenAt ?? Number.NaN;
  }

  /** Sets the size of backup `id` (bytes): the real size of its snapshot, once the database engine made it. */
  setSize(id: number, bytes: number): void {
    this.seed();
    const b = this.items.find((x) => x.id === id);
    if (b && Number.isSafeInteger(bytes) && bytes >= 0) {
      b.size = bytes;
      this.changes++;
    }
  }

  private visible(now: number): BackupState[] {
    this.catchUp(now);
    return this.items.filter((b) => b.readyAt <= now && !b.pending && b.takenAt >= now - RETENTION_MS);
  }

  /** A backup as the document's record, at `now` (its URL signed for the second of its expiry). */
  record(b: BackupState, now: number): Backup {
    return this.records.record(b, now);
  }

  /** Changes whenever a backup is added or removed, becomes ready or a size is set. */
  private changes = 0;

  get version(): number {
    return this.changes;
  }
}
