// Keeps the engine's databases in step with the instance records (issue 17): the stores call these
// methods synchronously while they answer a request, and the SQL runs in the background, one step
// after another in the order asked, so a request never waits on the engine and never fails
// because of it. An instance is `ready` only once its database accepts connections; a step that
// fails is retried, then logged; it never crashes the process or loses the API record.
//
// What each operation does to the database: create (a role with the instance's password and a
// database it owns; fork: a copy of the source; pit: a copy of the source's newest snapshot at or
// before pit), rotate-password (the role's new password), delete (sessions ended, database and role
// dropped), create-backup (a snapshot: a copy made by the server), restore (the database becomes
// the snapshot; the seeded backup history, which has no snapshot, restores the database as it was
// created: empty), pitr (the newest snapshot at or before pit), run-maintenance (sessions ended).
import type { PostgresEngine } from './engine.js';

export interface DatabaseRef {
  role: string;
  database: string;
}

export interface InstanceDatabases {
  /** Host and port of the instances' URLs. */
  readonly host: string;
  readonly port: number;
  /**
   * The database of an instance, named after its `key` (the instance's providerid): made when it
   * does not exist (empty, or a copy of `from`), kept when it does (a state loaded at start-up, with
   * the snapshots of `backups` that still exist). `onSize` learns its real size (bytes) every few seconds.
   */
  provision(key: string, password: string, options?: { from?: { ref: DatabaseRef; at?: number }; onSize?: (bytes: number) => void; backups?: () => { id: number; at: number }[] }): DatabaseRef;
  isReady(ref: DatabaseRef): boolean;
  setPassword(ref: DatabaseRef, password: string): void;
  drop(ref: DatabaseRef): void;
  /** Takes a snapshot; `onSize` learns its real size in bytes once it is made. */
  snapshot(ref: DatabaseRef, backupId: number, at: number, onSize?: (bytes: number) => void): void;
  restore(ref: DatabaseRef, backupId: number): void;
  recover(ref: DatabaseRef, at: number): void;
  terminate(ref: DatabaseRef): void;
  /** Drops every database (reset): the stores built next provision their own, empty. */
  dropAll(): void;
  /** Drops every database no live instance has (after a state load: the instances it keeps keep theirs). */
  dropUnused(): void;
}

const RETRIES = 3;
/** How often the databases' sizes are read. */
const SIZE_EVERY_MS = 2_000;

export class Databases implements InstanceDatabases {
  private queue: Promise<void> = Promise.resolve();
  private readonly ready = new Set<string>();
  private readonly live = new Map<string, DatabaseRef>();
  /** Snapshots per database: backup id -> [snapshot database, time taken (ms on the virtual clock)]. */
  private readonly snapshots = new Map<string, Map<number, { name: string; at: number }>>();
  /** Steps that failed for good, for the log and the tests. */
  readonly failures: string[] = [];
  private readonly sizeListeners = new Map<string, (bytes: number) => void>();
  private sizeTimer?: NodeJS.Timeout;
  private measuring = false;

  /** Every few seconds, the real sizes of the live databases go to their instances (disk_used_gb). */
  private watchSizes(): void {
    if (this.sizeTimer) return;
    this.sizeTimer = setInterval(() => void this.measureSizes(), SIZE_EVERY_MS);
    this.sizeTimer.unref();
  }

  /** One query for every live database's size; a failure is skipped (the next round tries again). */
  async measureSizes(): Promise<void> {
    if (this.measuring || !this.engine.version || this.sizeListeners.size === 0) return;
    this.measuring = true;
    try {
      const sizes = await this.engine.sizes();
      for (const [database, bytes] of sizes) if (this.ready.has(database)) this.sizeListeners.get(database)?.(bytes);
    } catch {
      /* the engine is busy or down: the next round */
    } finally {
      this.measuring = false;
    }
  }

  constructor(
    readonly engine: PostgresEngine,
    private readonly log: (line: string) => void = (line) => console.error(line),
  ) {}

  get host(): string {
    return this.engine.host;
  }

  get port(): number {
    return this.engine.port;
  }

  /** Runs `step` after every step asked before it; retried, then logged; never throws. */
  private enqueue(what: string, step: () => Promise<void>, retries = RETRIES): Promise<void> {
    const run = async () => {
      for (let attempt = 1; ; attempt++) {
        try {
          await step();
          return;
        } catch (err) {
          if (attempt >= retries || this.engine.failure) {
            const line = `tusk: databases: ${what} failed: ${(err as Error).message}`;
            this.failures.push(line);
            this.log(line);
            return;
          }
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
    };
    this.queue = this.queue.then(run);
    return this.queue;
  }

  /** Resolves once every step asked so far has run. */
  idle(): Promise<void> {
    return this.queue;
  }

  provision(key: string, password: string, options: { from?: { ref: DatabaseRef; at?: number }; onSize?: (bytes: number) => void; backups?: () => { id: number; at: number }[] } = {}): DatabaseRef {
    const id = key.replace(/[^0-9a-z]/gi, '').toLowerCase().slice(0, 16);
    const ref = { role: `${this.engine.prefix}u${id}`, database: `${this.engine.prefix}d${id}` };
    this.live.set(ref.database, ref);
    if (options.onSize) this.sizeListeners.set(ref.database, options.onSize);
    this.watchSizes();
    const { from, backups } = options;
    void this.enqueue(`creating database ${ref.database}`, async () => {
      if (this.live.get(ref.database) !== ref) return; // deleted (or replaced) before it was made
      let template: string | undefined;
      if (from) template = from.at === undefined ? from.ref.database : this.snapshotAt(from.ref, from.at);
      const kept = await this.engine.createDatabase(ref.role, password, ref.database, template);
      // A database kept from an earlier run: its snapshots that still exist serve its backups again.
      if (kept && backups) {
        const existing = await this.engine.databasesLike(`${ref.database}_b`);
        const list = this.snapshots.get(ref.database) ?? new Map<number, { name: string; at: number }>();
        for (const b of backups()) if (existing.has(`${ref.database}_b${b.id}`)) list.set(b.id, { name: `${ref.database}_b${b.id}`, at: b.at });
        this.snapshots.set(ref.database, list);
      }
      this.ready.add(ref.database);
    });
    return ref;
  }

  isReady(ref: DatabaseRef): boolean {
    return this.ready.has(ref.database);
  }

  setPassword(ref: DatabaseRef, password: string): void {
    void this.enqueue(`setting the password of ${ref.role}`, () => this.engine.setPassword(ref.role, password));
  }

  drop(ref: DatabaseRef): void {
    this.live.delete(ref.database);
    this.sizeListeners.delete(ref.database);
    this.ready.delete(ref.database);
    const snaps = [...(this.snapshots.get(ref.database)?.values() ?? [])];
    this.snapshots.delete(ref.database);
    void this.enqueue(`dropping ${ref.database}`, async () => {
      await this.engine.dropDatabase(ref.database);
      for (const s of snaps) await this.engine.dropDatabase(s.name);
      await this.engine.dropRole(ref.role);
    });
  }

  snapshot(ref: DatabaseRef, backupId: number, at: number, onSize?: (bytes: number) => void): void {
    const name = `${ref.database}_b${backupId}`;
    const list = this.snapshots.get(ref.database) ?? new Map<number, { name: string; at: number }>();
    this.snapshots.set(ref.database, list);
    list.set(backupId, { name, at });
    void this.enqueue(`snapshot ${name}`, async () => {
      await this.engine.copy(ref.database, name, ref.role);
      onSize?.(await this.engine.size(name));
    });
  }

  /** The snapshot database of the newest backup taken at or before `at`, if any. */
  private snapshotAt(ref: DatabaseRef, at: number): string | undefined {
    let best: { name: string; at: number } | undefined;
    for (const s of this.snapshots.get(ref.database)?.values() ?? []) if (s.at <= at && (!best || s.at > best.at)) best = s;
    return best?.name;
  }

  private replaceWith(ref: DatabaseRef, template: string | undefined, what: string): void {
    this.ready.delete(ref.database);
    void this.enqueue(what, async () => {
      await this.engine.recreate(ref.database, ref.role, template);
      this.ready.add(ref.database);
    });
  }

  restore(ref: DatabaseRef, backupId: number): void {
    const template = this.snapshots.get(ref.database)?.get(backupId)?.name;
    this.replaceWith(ref, template, `restoring ${ref.database} from backup ${backupId}`);
  }

  recover(ref: DatabaseRef, at: number): void {
    this.replaceWith(ref, this.snapshotAt(ref, at), `recovering ${ref.database} to ${new Date(at).toISOString()}`);
  }

  terminate(ref: DatabaseRef): void {
    void this.enqueue(`ending the sessions of ${ref.database}`, () => this.engine.terminate(ref.database), 1);
  }

  dropAll(): void {
    this.live.clear();
    this.sizeListeners.clear();
    this.ready.clear();
    this.snapshots.clear();
    void this.enqueue('dropping every database', () => this.engine.dropEverything());
  }

  dropUnused(): void {
    void this.enqueue('dropping the databases no instance has', async () => {
      // The instances are counted once the engine runs: a state loaded meanwhile (start-up) counts.
      await this.engine.start();
      // A live database keeps its snapshots (`<database>_b<backup id>`), registered or not yet.
      const keep = (name: string) => this.live.has(name) || this.live.has(name.replace(/_b\d+$/, ''));
      await this.engine.dropEverything({ keepDatabase: keep, keepRoles: new Set([...this.live.values()].map((r) => r.role)) });
    });
  }

  /** Waits for the steps asked so far, then closes the engine. */
  async close(): Promise<void> {
    clearInterval(this.sizeTimer);
    await Promise.race([this.queue, new Promise((r) => setTimeout(r, 2_000).unref())]);
    await this.engine.close();
  }
}
