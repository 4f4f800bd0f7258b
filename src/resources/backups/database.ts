// The backups' database work: with a database engine, the instance's default database is real, and
// a backup of it is a snapshot the server makes, a restore or a point-in-time recovery replaces it
// (src/databases/instance-databases.ts does the work in the background). Each is announced (the
// backup listed, the callback queued) only once done (backups.ts).
import type { DatabaseRef, InstanceDatabases } from '../../databases/instance-databases.js';

export interface BackupDatabase {
  /** Snapshots the database as backup `id`, taken at `at`; `done` gets the snapshot's size in bytes. */
  snapshot(id: number, at: number, done: (bytes: number) => void): void;
  /** Replaces the database with backup `id`'s snapshot. */
  restore(id: number, done: () => void): void;
  /** Replaces the database with the newest snapshot taken at `at` or before. */
  recover(at: number, done: () => void): void;
}

/** The work on the database `ref` of the engine's `databases`. */
export function backupDatabase(databases: InstanceDatabases, ref: DatabaseRef): BackupDatabase {
  return {
    snapshot: (id, at, done) => databases.snapshot(ref, id, at, done),
    restore: (id, done) => databases.restore(ref, id, done),
    recover: (at, done) => databases.recover(ref, at, done),
  };
}
