// Keeps the engine's databases in step with the instance records: the stores call these methods
// synchronously while they answer a request, and the SQL runs in the background, one step after
// another in the order asked, so a request never waits on the engine and never fails because of
// it. An instance is `ready` only while its database accepts connections: once it is made, and
// while the engine is ready (a lost server makes every instance not ready until it is back; the
// steps asked meanwhile wait for it, then run). A step that fails is retried, then logged; it never
// crashes the process or loses the API record. What a step announces (a backup made, a restore
// done) is announced by its `done` callback, called only once the database work is done.
//
// What each operation does to the database: create (a role with the instance's password and a
// database it owns; fork: a copy of the source; pit: a copy of the source's newest snapshot at or
// before pit), rotate-password (the role's new password), delete (sessions ended, database and role
// dropped), create-backup (a snapshot: a copy made by the server), restore (the database becomes
// the snapshot; the seeded backup history, which has no snapshot, restores the database as it was
// created: empty), pitr (the newest snapshot at or before pit), run-maintenance (sessions ended).
import { DatabaseAdmin } from './admin.js';
import { isUnreachable, type EngineLog, type PostgresEngine } from './engine.js';
import { databaseKeyOf, type DatabaseRef, type InstanceDatabases, type ProvisionOptions } from './records.js';

export { databaseKeyOf } from './records.js';
export type { DatabaseRef, InstanceDatabases, ProvisionOptions } from './records.js';

const RETRIES = 3;
/** How often the databases' sizes are read. */
const SIZE_EVERY_MS = 2_000;

export class Databases implements InstanceDatabases {
  private queue: Promise<void> = Promise.resolve();
  /** The databases made (while the engine is ready, they accept connections). */
  private readonly made = new Set<string>();
  private readonly live = new Map<string, DatabaseRef>();
  /** Snapshots per database: backup id -> [snapshot database, time taken (ms on the virtual clock)]. */
  private readonly snapshots = new Map<string, Map<number, { name: string; at: number }>>();
  /** Steps that failed for good, for the log and the tests. */
  readonly failures: string[] = [];
  private readonly sizeListeners = new Map<string, (bytes: number) => void>();
  private sizeTimer?: NodeJS.Timeout;
  private measuring = false;
  private closed = false;
  /** Resolves when close() begins: a step waiting for the engine gives up then. */
  private readonly closing: Promise<void>;
  private startClosing!: () => void;
  /** Whether the server's own databases were checked (once, after the first database is made). */
  private guarded = false;
  readonly admin: DatabaseAdmin;

  /** Every few seconds, the real sizes of the live databases go to their instances (disk_used_gb). */
  private watchSizes(): void {
    if (this.sizeTimer) return;
    this.sizeTimer = setInterval(() => void this.measureSizes(), SIZE_EVERY_MS);
    this.sizeTimer.unref();
  }

  /** One query for every live database's size; a failure is skipped (the next round tries again). */
  async measureSizes(): Promise<void> {
    if (this.measuring || this.engine.state !== 'ready' || this.sizeListeners.size === 0) return;
    this.measuring = true;
    try {
      const sizes = await this.admin.sizes();
      for (const [database, bytes] of sizes) if (this.made.has(database)) this.sizeListeners.get(database)?.(bytes);
    } catch {
      /* the engine is busy or down: the next round */
    } finally {
      this.measuring = false;
    }
  }

  constructor(
    readonly engine: PostgresEngine,
    private readonly log: EngineLog = (level, line) => (level === 'info' ? console.log(line) : console.error(line)),
  ) {
    this.admin = new DatabaseAdmin(engine);
    this.closing = new Promise((resolve) => (this.startClosing = resolve));
  }

  get host(): string {
    return this.engine.host;
  }

  get port(): number {
    return this.engine.port;
  }

  /**
   * Runs `step` after every step asked before it, once the engine is ready; a step that fails
   * because the server went away waits for it to be back (not counted as an attempt); other
   * failures are retried, then logged. Never throws.
   */
  private enqueue(what: string, step: () => Promise<void>, retries = RETRIES): Promise<void> {
    const run = async () => {
      for (let attempt = 1; !this.closed;) {
        try {
          await Promise.race([this.engine.whenReady(), this.closing]);
        } catch (err) {
          if (!this.closed) this.fail(what, err);
          return;
        }
        if (this.closed) return;
        try {
          await step();
          return;
        } catch (err) {
          if (this.closed) return;
          if (isUnreachable(err)) await this.engine.check();
          if (this.engine.state !== 'ready') continue; // lost meanwhile: run again once it is back
          if (attempt++ >= retries) {
            this.fail(what, err);
            return;
          }
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
    };
    this.queue = this.queue.then(run);
    return this.queue;
  }

  private fail(what: string, err: unknown): void {
    const line = `tusk: databases: ${what} failed: ${(err as Error).message}`;
    this.failures.push(line);
    // An engine that could not start said why, once: its steps add nothing but repeats.
    if (this.engine.state !== 'failed') this.log('error', line);
  }

  /** Resolves once every step asked so far has run. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Whether `ref` is still the database of a live instance (a step for a deleted or reset one announces nothing). */
  private isLive(ref: DatabaseRef): boolean {
    return this.live.get(ref.database) === ref;
  }

  provision(key: string, password: string, options: ProvisionOptions = {}): DatabaseRef {
    const id = databaseKeyOf(key);
    const ref = { role: `${this.engine.prefix}u${id}`, database: `${this.engine.prefix}d${id}` };
    this.live.set(ref.database, ref);
    if (options.onSize) this.sizeListeners.set(ref.database, options.onSize);
    this.watchSizes();
    const { from, backups, connectionLimit } = options;
    void this.enqueue(`creating database ${ref.database}`, async () => {
      if (!this.isLive(ref)) return; // deleted (or replaced) before it was made
      let template: string | undefined;
      if (from) template = from.at === undefined ? from.ref.database : this.snapshotAt(from.ref, from.at);
      const kept = await this.admin.createDatabase(ref.role, password, ref.database, {
        ...(template ? { template } : {}),
        ...(connectionLimit !== undefined ? { connectionLimit } : {}),
      });
      // A database kept from an earlier run: its snapshots that still exist serve its backups again.
      if (kept && backups) {
        const existing = await this.admin.databasesLike(`${ref.database}_b`);
        const list = this.snapshots.get(ref.database) ?? new Map<number, { name: string; at: number }>();
        for (const b of backups()) {
          const name = `${ref.database}_b${b.id}`;
          if (!existing.has(name)) continue;
          await this.admin.makePrivate(name);
          list.set(b.id, { name, at: b.at });
        }
        this.snapshots.set(ref.database, list);
      }
      await this.guard(ref.role);
      if (this.isLive(ref)) this.made.add(ref.database);
    });
    return ref;
  }

  /** Once: closes the server's own databases to instance roles, or says which stay open (an external server's). */
  private async guard(role: string): Promise<void> {
    if (this.guarded) return;
    const open = await this.admin.guardServer(role);
    this.guarded = true;
    if (open.length) {
      this.log(
        'warn',
        `tusk: databases: on this server, every role may connect to ${open.join(', ')} (PUBLIC has CONNECT there); instance roles included. Its admin closes them with: REVOKE CONNECT, TEMPORARY ON DATABASE ${open.join(', ')} FROM PUBLIC`,
      );
    }
  }

  isReady(ref: DatabaseRef): boolean {
    return this.engine.state === 'ready' && this.made.has(ref.database);
  }

  setPassword(ref: DatabaseRef, password: string): void {
    void this.enqueue(`setting the password of ${ref.role}`, () => this.admin.setPassword(ref.role, password));
  }

  setConnectionLimit(ref: DatabaseRef, limit: number | undefined): void {
    void this.enqueue(`setting the connection limit of ${ref.role}`, () =>
      this.admin.setConnectionLimit(ref.role, limit ?? -1),
    );
  }

  drop(ref: DatabaseRef): void {
    this.live.delete(ref.database);
    this.sizeListeners.delete(ref.database);
    this.made.delete(ref.database);
    const snaps = [...(this.snapshots.get(ref.database)?.values() ?? [])];
    this.snapshots.delete(ref.database);
    void this.enqueue(`dropping ${ref.database}`, async () => {
      await this.admin.dropDatabase(ref.database);
      for (const s of snaps) await this.admin.dropDatabase(s.name);
      await this.admin.dropRole(ref.role);
    });
  }

  snapshot(ref: DatabaseRef, backupId: number, at: number, done?: (bytes: number) => void): void {
    const name = `${ref.database}_b${backupId}`;
    void this.enqueue(`snapshot ${name}`, async () => {
      if (!this.isLive(ref)) return;
      await this.admin.snapshot(ref.database, name);
      // Registered once it exists: a restore or a copy asked before finds no half-made snapshot.
      const list = this.snapshots.get(ref.database) ?? new Map<number, { name: string; at: number }>();
      this.snapshots.set(ref.database, list);
      list.set(backupId, { name, at });
      const bytes = await this.admin.size(name);
      if (this.isLive(ref)) done?.(bytes);
    });
  }

  /**
   * The snapshot database of the newest backup taken at or before `at`, if any; of backups taken at
   * the same time (a frozen clock), the one taken last.
   */
  private snapshotAt(ref: DatabaseRef, at: number): string | undefined {
    let best: { name: string; at: number } | undefined;
    for (const s of this.snapshots.get(ref.database)?.values() ?? [])
      if (s.at <= at && (!best || s.at >= best.at)) best = s;
    return best?.name;
  }

  /** The database is replaced (not ready meanwhile) by the template `pick` names when the step runs. */
  private replaceWith(ref: DatabaseRef, pick: () => string | undefined, what: string, done?: () => void): void {
    this.made.delete(ref.database);
    void this.enqueue(what, async () => {
      if (!this.isLive(ref)) return;
      await this.admin.recreate(ref.database, ref.role, pick());
      if (!this.isLive(ref)) return;
      this.made.add(ref.database);
      done?.();
    });
  }

  restore(ref: DatabaseRef, backupId: number, done?: () => void): void {
    this.replaceWith(
      ref,
      () => this.snapshots.get(ref.database)?.get(backupId)?.name,
      `restoring ${ref.database} from backup ${backupId}`,
      done,
    );
  }

  recover(ref: DatabaseRef, at: number, done?: () => void): void {
    this.replaceWith(
      ref,
      () => this.snapshotAt(ref, at),
      `recovering ${ref.database} to ${new Date(at).toISOString()}`,
      done,
    );
  }

  terminate(ref: DatabaseRef): void {
    void this.enqueue(`ending the sessions of ${ref.database}`, () => this.admin.terminate(ref.database), 1);
  }

  dropAll(): void {
    this.live.clear();
    this.sizeListeners.clear();
    this.made.clear();
    this.snapshots.clear();
    void this.enqueue('dropping every database', () => this.admin.dropEverything());
  }

  dropUnused(): void {
    void this.enqueue('dropping the databases no instance has', async () => {
      // A live database keeps its snapshots (`<database>_b<backup id>`), registered or not yet;
      // the instances are counted when the step runs (a state loaded meanwhile, at start-up, counts).
      const keep = (name: string) => this.live.has(name) || this.live.has(name.replace(/_b\d+$/, ''));
      await this.admin.dropEverything({
        keepDatabase: keep,
        keepRoles: new Set([...this.live.values()].map((r) => r.role)),
      });
    });
  }

  /**
   * Stops: the steps not yet run are dropped (a state file and the next start put the databases in
   * step again), the one running may finish for a moment, then the engine closes (an external
   * server first loses every role and database of this process).
   */
  async close(): Promise<void> {
    clearInterval(this.sizeTimer);
    this.closed = true;
    this.startClosing();
    await Promise.race([this.queue, new Promise((r) => setTimeout(r, 2_000).unref())]);
    await this.engine.close(this.engine.spec.kind === 'external' ? () => this.admin.dropEverything() : undefined);
  }
}
