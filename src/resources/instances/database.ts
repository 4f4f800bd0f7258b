// An instance's database work: with a database engine, every instance has a real database and role
// on it (src/databases/instance-databases.ts), provisioned in the background when the instance is
// built: empty, or a copy of its source's (a fork, or a copy at a point in time, from the newest
// snapshot taken then or before). Its real size becomes the monitor's disk_used_gb.
import { connectionLimitOf } from '../../../fixtures/index.js';
import type { DatabaseRef, InstanceDatabases } from '../../databases/instance-databases.js';
import type { Backups } from '../backups/backups.js';
import type { Monitor } from '../alarms/monitor.js';

/** What the database work reads of its instance (InstanceStore). */
export interface DatabaseOwner {
  readonly providerid: string;
  readonly databaseNames: readonly string[];
  readonly monitor: Pick<Monitor, 'observeDiskUsed'>;
  readonly backups: Pick<Backups, 'list' | 'takenAt'>;
}

/** What it is built from: the plan (its connection limit) and, for a copy, the source and the time. */
export interface DatabaseInit {
  plan: { name: string };
  copyOf?: { source: { readonly db?: DatabaseRef | undefined }; at?: number } | undefined;
  /** Loaded from a state (or another replica's write), not created by a request here. */
  loaded?: boolean;
}

/** Provisions the database of `instance` (built from `init`), its role's password `password`, on the engine's `databases`. */
export function provisionDatabase(
  databases: InstanceDatabases,
  instance: DatabaseOwner,
  init: DatabaseInit,
  password: string,
): DatabaseRef {
  const source = init.copyOf?.source.db;
  const from = source ? { ref: source, ...(init.copyOf!.at !== undefined ? { at: init.copyOf!.at } : {}) } : undefined;
  const connectionLimit = connectionLimitOf(init.plan.name);
  return databases.provision(instance.providerid, password, {
    ...(from ? { from } : {}),
    ...(connectionLimit !== undefined ? { connectionLimit } : {}),
    ...(init.loaded ? { loaded: true } : {}),
    onSize: (bytes) => instance.monitor.observeDiskUsed(bytes / 1e9),
    backups: () => {
      const { backups } = instance;
      return backups.list(instance.databaseNames[0]).map((b) => ({ id: b.id, at: backups.takenAt(b.id) }));
    },
  });
}
