// What the stores see of the databases: the reference an instance record holds (DatabaseRef), the
// name its providerid gives its database, and the steps a store may ask for (InstanceDatabases,
// which instance-databases.ts carries out in the background).
/**
 * The part of a providerid that names the instance's real database and role: its first 16 letters
 * and digits, without case. Two providerids that agree there would share one database, so a loaded
 * state may not hold two such (src/control/state-check.ts).
 */
export const databaseKeyOf = (providerid: string): string =>
  providerid
    .replace(/[^0-9a-z]/gi, '')
    .toLowerCase()
    .slice(0, 16);

export interface DatabaseRef {
  role: string;
  database: string;
}

export interface ProvisionOptions {
  /** fork and pit: a copy of another instance's database (`at`: its newest snapshot at or before). */
  from?: { ref: DatabaseRef; at?: number };
  /** Learns the database's real size (bytes) every few seconds. */
  onSize?: (bytes: number) => void;
  /** The instance's backups, whose snapshots a kept database finds again. */
  backups?: () => { id: number; at: number }[];
  /** The most sessions its role may have at once (the plan's limit); absent: none of its own. */
  connectionLimit?: number;
  /** The instance was loaded (a state, or in a team another replica's write), not created here. */
  loaded?: boolean;
}

export interface InstanceDatabases {
  /** Host and port of the instances' URLs. */
  readonly host: string;
  readonly port: number;
  /**
   * The database of an instance, named after its `key` (the instance's providerid): made when it
   * does not exist (empty, or a copy of `from`), kept when it does (a state loaded at start-up, with
   * the snapshots of `backups` that still exist).
   */
  provision(key: string, password: string, options?: ProvisionOptions): DatabaseRef;
  isReady(ref: DatabaseRef): boolean;
  setPassword(ref: DatabaseRef, password: string): void;
  /** The plan's connection limit (undefined: none of its own). */
  setConnectionLimit(ref: DatabaseRef, limit: number | undefined): void;
  drop(ref: DatabaseRef): void;
  /** Takes a snapshot; `done` learns its real size in bytes once it is made. */
  snapshot(ref: DatabaseRef, backupId: number, at: number, done?: (bytes: number) => void): void;
  /** The database becomes the snapshot of backup `backupId`; `done` once it has. */
  restore(ref: DatabaseRef, backupId: number, done?: () => void): void;
  /** The database becomes the newest snapshot at or before `at`; `done` once it has. */
  recover(ref: DatabaseRef, at: number, done?: () => void): void;
  terminate(ref: DatabaseRef): void;
  /** Drops every database (reset): the stores built next provision their own, empty. */
  dropAll(): void;
  /** Drops every database no live instance has (after a state load: the instances it keeps keep theirs). */
  dropUnused(): void;
}
