// The backups of one instance, restores and point-in-time recoveries. Time-driven state is derived
// from timestamps against the store's clock when it is read (no timers): a created backup is listed
// once its ready time has passed, only backups of the last 30 days are listed, and the daily
// backups keep coming as the clock moves (each is added, with the next id, when it is first seen
// after its time). Callbacks are queued in the outbox with the time they are due; the server's
// ticker sends them. The list as the bytes of its answer is instance-backups-view.ts. With a database engine, what a backup, restore or recovery announces is real
// work done in the background: the backup is listed, and each callback queued, only once that work
// is done (`work` below), and never before its delay on the clock, which stays the minimum.
import { createHmac, hash } from 'node:crypto';
import { invalid, limitReached } from '../../core/errors.js';
import { LIST_CAPS } from '../../core/limits.js';
import { IdSequence } from '../../domain/ids.js';
import {
  DAY,
  HOUR,
  MINUTE,
  fileStamp,
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
/** How long a download link stays valid. */
export const URL_LIFETIME_MS = HOUR;
export const BACKUP_HOST = 'https://backups.tusk.example';

export interface BackupIdentity {
  instanceId: number;
  providerid: string;
  accountId: string;
  /** `<provider>::<region>` */
  region: string;
  /** The instance's databases; the first is the default one. */
  databases: readonly string[];
}

export interface BackupState {
  id: number;
  databaseName: string;
  takenAt: number;
  readyAt: number;
  /** Bytes; made from `salt` when first read (sizeOfBackup): most seeded backups are never listed. */
  size: number | undefined;
  salt: number;
  /** Its snapshot is being made (not listed until it is). */
  pending?: boolean;
}

/**
 * Database work an operation announces: it calls `done` once the work is done (never, when it
 * fails for good: then nothing is announced).
 */
export type DatabaseWork<T> = (what: T, done: () => void) => void;

/** A 32-bit number from a text (deterministic sizes and offsets): the first bytes of its SHA-256. */
const hash32 = (text: string) => hash('sha256', text, 'buffer').readUInt32BE(0);

/** A UUID-form identifier derived from a text (the same text, the same id). */
function uuidOf(text: string): string {
  const h = hash('sha256', text, 'hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const MiB = 1024 * 1024;

export class Backups {
  private readonly items: BackupState[] = [];
  private readonly ids: IdSequence;
  /** The key the download URLs are signed with: made from the providerid when a URL is first signed. */
  private signingKeyHex: string | undefined;
  /** Per database: the day (00:00 UTC) of its next daily backup not yet added. */
  private readonly nextDaily: number[];
  /** The construction time whose seeded history is not made yet (see seed()). */
  private seedOrigin: number | undefined;

  /**
   * @param origin the time the seeded history runs back from (the instance's construction).
   * @param state a state written by toJSON() to take over instead of the seeded history.
   */
  constructor(
    private readonly who: BackupIdentity,
    private readonly ctx: StoreContext,
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
        size: this.sizeOfBackup(b),
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
   * Starts a backup of `db` (default: the instance's database); it is listed once ready (and its
   * `work`, the snapshot, done), and then the callback is due.
   */
  create(body: CreateBackupBody, work?: DatabaseWork<number>): { id: number; readyAt: number } {
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
    const item: BackupState = {
      id,
      databaseName: db,
      takenAt: now,
      readyAt,
      size: undefined,
      salt: -id,
      pending: work !== undefined,
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
    if (work) work(id, announce);
    else announce();
    return { id, readyAt };
  }

  /** Restores a backup that listBackups shows; the callback is due after the restore delay, once `work` is done. */
  restore(body: RestoreBackupBody, work?: DatabaseWork<{ id: number; databaseName: string }>): void {
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
    if (work) work({ id: backup.id, databaseName: backup.databaseName }, announce);
    else announce();
  }

  /** Recovers to `pit` (UTC minute): not in the future, not before the 30-day window; the callback once `work` is done. */
  recover(body: RecoverToPointInTimeBody, work?: DatabaseWork<number>): void {
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
    if (work) work(pit, announce);
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

  /** A backup's size: the real one once set, else a deterministic one from its database and salt (made once, when first read). */
  private sizeOfBackup(b: BackupState): number {
    return (b.size ??= 16 * MiB + (hash32(`${this.who.providerid}/${b.databaseName}/${b.salt}`) % (96 * MiB)));
  }

  record(b: BackupState, now: number): Backup {
    // What never changes for a backup is made once; the signed URL once per second of expiry (else
    // every list would sign each URL and format each date again).
    const cache = (this.made ??= new WeakMap());
    let made = cache.get(b);
    if (!made) {
      const [, regionName = 'local'] = this.who.region.split('::');
      const fileName = `backups/${this.who.providerid.slice(0, 8)}/${b.databaseName}/${fileStamp(b.takenAt)}-${b.id}.tar.gz`;
      made = {
        fileName,
        bucket: `tusk-backups-${regionName}`,
        databaseId: uuidOf(`${this.who.providerid}:${b.databaseName}`),
        backupDate: formatBackupDate(b.takenAt),
        expires: NaN,
        url: '',
      };
      cache.set(b, made);
    }
    const expires = Math.floor((now + URL_LIFETIME_MS) / 1000);
    if (made.expires !== expires) {
      this.signingKeyHex ??= hash('sha256', `tusk-backup-signing:${this.who.providerid}`, 'hex');
      const signature = createHmac('sha256', this.signingKeyHex).update(`/${made.fileName}\n${expires}`).digest('hex');
      made.expires = expires;
      made.url = `${BACKUP_HOST}/${made.fileName}?expires=${expires}&signature=${signature}`;
    }
    return {
      id: b.id,
      database_id: made.databaseId,
      backup_date: made.backupDate,
      size: this.sizeOfBackup(b),
      bucket: made.bucket,
      file_name: made.fileName,
      region: this.who.region,
      database_name: b.databaseName,
      url: made.url,
    };
  }

  /** Changes whenever a backup is added or removed, becomes ready or a size is set. */
  private changes = 0;

  get version(): number {
    return this.changes;
  }

  /**
   * Per backup: the parts of its record that never change, and its URL signed for one second of
   * expiry. Made when a backup is first listed (most instances never list theirs).
   */
  private made:
    | WeakMap<
        BackupState,
        { fileName: string; bucket: string; databaseId: string; backupDate: string; expires: number; url: string }
      >
    | undefined;
}
