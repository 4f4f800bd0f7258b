// An instance's backup list as the bytes of its answer (listBackups), next to the rules in
// backups.ts that decide what it shows: the window and the daily backups are worked out on
// every call, as for the list itself; the bytes are made again only when the backups listed, their
// sizes or the second of the URLs' expiry differ from the last call. Tested to equal JSON.stringify
// of the list after every kind of change (test/resources/backups/backups.test.ts).
import { URL_LIFETIME_MS } from './records.js';
import type { BackupState } from './history.js';
import type { Backup } from '../../domain/types.js';
import type { Clock } from '../../domain/clock.js';

interface LastList {
  db: string | undefined;
  expires: number;
  version: number;
  items: BackupState[];
  bytes: Uint8Array;
  /** From when until when nothing the list shows can differ. */
  at: number;
  until: number;
}

/** What the view is made from (Backups). */
export interface BackupLists {
  readonly version: number;
  listed(now: number, db?: string): BackupState[];
  listUntil(now: number, expires: number): number;
  record(b: BackupState, now: number): Backup;
}

export class BackupsView {
  private last: LastList | undefined;

  constructor(
    private readonly backups: BackupLists,
    private readonly clock: Clock,
  ) {}

  /** list(db) as the JSON bytes of the answer (the same text JSON.stringify gives). */
  list(db?: string): Uint8Array {
    const now = this.clock.now();
    const last = this.last;
    const version = this.backups.version;
    // Nothing the list shows can differ before `until` (see Backups.listUntil) unless a backup was
    // added, became ready or had its size set (version), or the clock went back.
    if (last && last.db === db && last.version === version && now >= last.at && now < last.until) return last.bytes;
    const listed = this.backups.listed(now, db);
    const expires = Math.floor((now + URL_LIFETIME_MS) / 1000);
    const until = this.backups.listUntil(now, expires);
    if (
      last &&
      last.db === db &&
      last.expires === expires &&
      last.version === version &&
      last.items.length === listed.length &&
      last.items.every((b, i) => b === listed[i])
    ) {
      this.last = { ...last, at: now, until };
      return last.bytes;
    }
    const bytes = Buffer.from(JSON.stringify(listed.map((b) => this.backups.record(b, now))));
    this.last = { db, expires, version, items: listed, bytes, at: now, until };
    return bytes;
  }
}
