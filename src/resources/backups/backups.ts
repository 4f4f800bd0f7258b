// The backups of one instance, restores and point-in-time recoveries. Time-driven state is derived
// from timestamps against the store's clock when it is read (no timers): a created backup is listed
// once its ready time has passed, only backups of the last 30 days are listed, and the daily
// backups keep coming as the clock moves (history.ts). Callbacks are queued in the outbox with the
// time they are due; the server's ticker sends them. The list as the bytes of its answer is view.ts, a backup's record records.ts.
// With a database engine, what a backup, restore or recovery of the default database announces is
// real work done in the background (database.ts): the backup is listed, and each callback queued,
// only once that work is done, and never before its delay on the clock, which stays the minimum.
import { invalid, limitReached } from '../../core/errors.js';
import { LIST_CAPS } from '../../core/limits.js';
import { MINUTE, floorToMinute, formatBackupDate, parsePitMinute } from '../../domain/dates.js';
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
import { BackupRecords, URL_LIFETIME_MS } from './records.js';
import { BackupHistory, RETENTION_MS, type BackupState } from './history.js';
import type { BackupDatabase } from './database.js';
import { BackupsView } from './view.js';

export { BACKUP_HOST, URL_LIFETIME_MS } from './records.js';
export { RETENTION_MS, SEEDED_BACKUP_DAYS, type BackupState } from './history.js';

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

export class Backups {
  private readonly history: BackupHistory;
  private readonly records: BackupRecords;
  private readonly view: BackupsView;

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
    this.history = new BackupHistory(who, origin, state);
    this.records = new BackupRecords(who);
    this.view = new BackupsView(this, ctx.clock);
  }

  toJSON(): BackupsState {
    return this.history.toJSON((b) => this.records.sizeOf(b));
  }

  get databases(): readonly string[] {
    return this.who.databases;
  }

  /** The ready backups of the last 30 days, most recent first, of database `db` when given. */
  list(db?: string): Backup[] {
    const now = this.ctx.clock.now();
    return this.listed(now, db).map((b) => this.record(b, now));
  }

  /** list(db) as the JSON bytes of its answer (view.ts). */
  listJson(db?: string): Uint8Array {
    return this.view.list(db);
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
    for (const b of this.history.at(now)) {
      if (b.readyAt > now) until = Math.min(until, b.readyAt);
      else if (b.takenAt >= now - RETENTION_MS) until = Math.min(until, b.takenAt + RETENTION_MS + 1);
    }
    return Math.min(until, this.history.nextDailyTime());
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
    if (this.history.at(now).filter((b) => b.takenAt >= now - RETENTION_MS).length >= LIST_CAPS.backupsPerInstance) {
      throw limitReached(
        'backups',
        `an instance keeps at most ${LIST_CAPS.backupsPerInstance} backups taken in the last 30 days (the daily ones included); try again later`,
      );
    }
    const readyAt = now + this.ctx.backupDelayMs;
    const real = this.database && db === this.who.databases[0] ? this.database : undefined;
    const item = this.history.add({ databaseName: db, takenAt: now, readyAt, pending: real !== undefined });
    const { id } = item;
    const { callback } = body;
    // Made: listed once ready, and its callback due then.
    const announce = (b: Backups) => {
      const made = b.history.find(id);
      if (made?.pending) {
        made.pending = false;
        b.history.changed();
      }
      if (!callback) return;
      const payload: BackupReadyCallback = {
        action: 'backup',
        backup_id: id,
        account_id: b.who.accountId,
        database_name: db,
        status: 'ready',
      };
      b.ctx.outbox.schedule({ event: 'backup', target: callback, body: payload, dueAt: readyAt });
    };
    if (!real) announce(this);
    else
      real.snapshot(id, now, (bytes) =>
        this.settled((b) => {
          b.setSize(id, bytes);
          announce(b);
        }),
      );
    return { id, readyAt };
  }

  /**
   * Runs `apply` on this instance's backups as the account holds them once background work is done
   * (ctx.settle: in a team, as a write of the account): not at all when the instance is gone.
   */
  private settled(apply: (current: Backups) => void): void {
    if (!this.ctx.settle) return apply(this);
    this.ctx.settle(this.who.instanceId, (instance) => {
      if (instance?.backups instanceof Backups) apply(instance.backups);
    });
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
    const announce = (b: Backups) => {
      if (!callback) return;
      const payload: RestoreCompletedCallback = {
        action: 'restore',
        backup_id: backup.id,
        account_id: b.who.accountId,
      };
      b.ctx.outbox.schedule({
        event: 'restore',
        target: callback,
        body: payload,
        dueAt: now + b.ctx.restoreDelayMs,
      });
    };
    if (this.database && backup.databaseName === this.who.databases[0])
      this.database.restore(backup.id, () => this.settled(announce));
    else announce(this);
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
    const announce = (b: Backups) => {
      if (!callback) return;
      const payload: PitrCompletedCallback = { action: 'pitr', account_id: b.who.accountId };
      b.ctx.outbox.schedule({
        event: 'pitr',
        target: callback,
        body: payload,
        dueAt: now + b.ctx.restoreDelayMs,
      });
    };
    if (this.database) this.database.recover(pit + MINUTE - 1, () => this.settled(announce));
    else announce(this);
  }

  /** When backup `id` was taken (ms on the clock); NaN for an unknown id. */
  takenAt(id: number): number {
    return this.history.find(id)?.takenAt ?? Number.NaN;
  }

  /** Sets the size of backup `id` (bytes): the real size of its snapshot, once the database engine made it. */
  setSize(id: number, bytes: number): void {
    const b = this.history.find(id);
    if (b && Number.isSafeInteger(bytes) && bytes >= 0) {
      b.size = bytes;
      this.history.changed();
    }
  }

  private visible(now: number): BackupState[] {
    return this.history.at(now).filter((b) => b.readyAt <= now && !b.pending && b.takenAt >= now - RETENTION_MS);
  }

  /** A backup as the document's record, at `now` (its URL signed for the second of its expiry). */
  record(b: BackupState, now: number): Backup {
    return this.records.record(b, now);
  }

  /** Changes whenever a backup is added or removed, becomes ready or a size is set. */
  get version(): number {
    return this.history.version;
  }
}
