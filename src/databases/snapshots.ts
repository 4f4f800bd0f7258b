// The snapshots of the instances' databases: a backup's snapshot is a database of its own named
// `<database>_b<backup id>`, taken at a time on the account's clock. What a restore, a
// point-in-time recovery or a copy at a time picks from. A database kept from an earlier run, or
// made by another replica of a team, finds its snapshots again on the server by their names.
import type { DatabaseAdmin } from './admin.js';
import type { DatabaseRef } from './records.js';

type Snapshot = { name: string; at: number };

export class Snapshots {
  private readonly byDatabase = new Map<string, Map<number, Snapshot>>();

  /** The name the snapshot of backup `backupId` of `database` has on the server. */
  static nameOf(database: string, backupId: number): string {
    return `${database}_b${backupId}`;
  }

  private listOf(database: string): Map<number, Snapshot> {
    let list = this.byDatabase.get(database);
    if (!list) this.byDatabase.set(database, (list = new Map()));
    return list;
  }

  /** Registers a snapshot once it exists: a restore or a copy asked before finds no half-made one. */
  add(database: string, backupId: number, at: number): void {
    this.listOf(database).set(backupId, { name: Snapshots.nameOf(database, backupId), at });
  }

  /** The snapshot database of backup `backupId`, if registered. */
  of(database: string, backupId: number): string | undefined {
    return this.byDatabase.get(database)?.get(backupId)?.name;
  }

  /** The snapshot of the newest backup taken at or before `at`; of several taken at once, the last. */
  at(database: string, at: number): string | undefined {
    let best: Snapshot | undefined;
    for (const s of this.byDatabase.get(database)?.values() ?? [])
      if (s.at <= at && (!best || s.at >= best.at)) best = s;
    return best?.name;
  }

  /** The names of the snapshots of `database` registered here. */
  names(database: string): string[] {
    return [...(this.byDatabase.get(database)?.values() ?? [])].map((s) => s.name);
  }

  /** Forgets the snapshots of `database` (it is dropped). */
  forget(database: string): void {
    this.byDatabase.delete(database);
  }

  clear(): void {
    this.byDatabase.clear();
  }

  /** Registers the snapshots of `backups` that exist on the server (made by an earlier run, or another replica). */
  async find(admin: DatabaseAdmin, ref: DatabaseRef, backups: { id: number; at: number }[]): Promise<void> {
    const existing = await admin.databasesLike(`${ref.database}_b`);
    for (const b of backups) {
      const name = Snapshots.nameOf(ref.database, b.id);
      if (!existing.has(name) || this.of(ref.database, b.id)) continue;
      await admin.makePrivate(name);
      this.add(ref.database, b.id, b.at);
    }
  }
}
