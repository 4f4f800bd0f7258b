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
//
// In a team (`shared`: replicas of one Tusk on one server), the replica that answered a create
// makes the database; another that loads the instance waits for it to exist (and makes it empty
// only if it never comes: its maker died first), finds snapshots other replicas took by their
// names, and none drops a database when it stops.
import { DatabaseAdmin } from './admin.js';
import type { EngineLog, PostgresEngine } from './engine.js';
import { databaseKeyOf, type DatabaseRef, type InstanceDatabases, type ProvisionOptions } from './records.js';
import { SizeWatch } from './sizes.js';
import { StepQueue } from './steps.js';
import { Snapshots } from './snapshots.js';

export { databaseKeyOf } from './records.js';
export type { DatabaseRef, InstanceDatabases, ProvisionOptions } from './records.js';

/** In a team, how long a replica that loaded an instance waits for its maker to make its database. */
export const ADOPT_WAIT_MS = 60_000;
const ADOPT_POLL_MS = 250;

export class Databases implements InstanceDatabases {
  private readonly steps: StepQueue;
  /** The databases made (while the engine is ready, they accept connections). */
  private readonly made = new Set<string>();
  private readonly live = new Map<string, DatabaseRef>();
  /** Of each database made: the password and connection limit it was made with. */
  private readonly signatures = new Map<string, string>();
  /** Of each database: its instance's backups (id, time taken), whose snapshots may be found on the server. */
  private readonly backupsOf = new Map<string, () => { id: number; at: number }[]>();
  private readonly snapshots = new Snapshots();
  private readonly sizes: SizeWatch;
  /** Whether the server's own databases were checked (once, after the first database is made). */
  private guarded = false;
  readonly admin: DatabaseAdmin;

  /** Every few seconds, the real sizes of the live databases go to their instances (disk_used_gb). */
  measureSizes(): Promise<void> {
    return this.sizes.measure();
  }

  constructor(
    readonly engine: PostgresEngine,
    private readonly log: EngineLog = (level, line) => (level === 'info' ? console.log(line) : console.error(line)),
    /** A team's replica: the server and its databases are shared with the other replicas. */
    private readonly shared = false,
  ) {
    this.admin = new DatabaseAdmin(engine);
    this.sizes = new SizeWatch(
      engine,
      () => this.admin.sizes(),
      (database) => this.made.has(database),
    );
    this.steps = new StepQueue(engine, log);
  }

  get host(): string {
    return this.engine.host;
  }

  get port(): number {
    return this.engine.port;
  }

  private enqueue(what: string, step: () => Promise<void>, retries?: number): Promise<void> {
    return this.steps.add(what, step, retries);
  }

  /** Steps that failed for good, for the log and the tests. */
  get failures(): string[] {
    return this.steps.failures;
  }

  /** Resolves once every step asked so far has run. */
  idle(): Promise<void> {
    return this.steps.idle();
  }

  /** Whether `ref` is still the database of a live instance (a step for a deleted or reset one announces nothing). */
  private isLive(ref: DatabaseRef): boolean {
    return this.live.get(ref.database) === ref;
  }

  provision(key: string, password: string, options: ProvisionOptions = {}): DatabaseRef {
    const id = databaseKeyOf(key);
    const database = `${this.engine.prefix}d${id}`;
    // The same database asked again (a state or another replica's write loaded its instance anew)
    // keeps its reference: the steps asked for it before (a snapshot, a restore) still announce.
    const ref = this.live.get(database) ?? { role: `${this.engine.prefix}u${id}`, database };
    const signature = `${password}\n${options.connectionLimit ?? -1}`;
    // Asked again as it was made (a team's replica loading an account another wrote): nothing to do.
    const same = !options.from && this.made.has(ref.database) && this.signatures.get(ref.database) === signature;
    this.live.set(ref.database, ref);
    if (options.onSize) this.sizes.listen(ref.database, options.onSize);
    if (options.backups) this.backupsOf.set(ref.database, options.backups);
    if (!same)
      void this.enqueue(`creating database ${ref.database}`, () => this.make(ref, password, options, Date.now()));
    return ref;
  }

  private async make(ref: DatabaseRef, password: string, options: ProvisionOptions, since: number): Promise<void> {
    if (!this.isLive(ref)) return; // deleted (or replaced) before it was made
    const { from, backups, connectionLimit } = options;
    if (this.shared && options.loaded && !this.made.has(ref.database) && !(await this.exists(ref.database))) {
      if (Date.now() - since < ADOPT_WAIT_MS) {
        const again = () =>
          void this.enqueue(`creating database ${ref.database}`, () => this.make(ref, password, options, since));
        setTimeout(again, ADOPT_POLL_MS).unref();
        return;
      }
      this.log(
        'warn',
        `tusk: databases: ${ref.database} was not made by the replica that created its instance within ${ADOPT_WAIT_MS / 1000} s: made empty here`,
      );
    }
    let template: string | undefined;
    if (from) {
      if (this.shared) await this.findSnapshots(from.ref);
      template = from.at === undefined ? from.ref.database : this.snapshots.at(from.ref.database, from.at);
    }
    const kept = await this.admin.createDatabase(ref.role, password, ref.database, {
      ...(template ? { template } : {}),
      ...(connectionLimit !== undefined ? { connectionLimit } : {}),
    });
    // A database kept from an earlier run (or made by another replica): its snapshots that still exist serve its backups again.
    if (kept && backups) await this.snapshots.find(this.admin, ref, backups());
    await this.guard(ref.role);
    if (!this.isLive(ref)) return;
    this.made.add(ref.database);
    this.signatures.set(ref.database, `${password}\n${connectionLimit ?? -1}`);
  }

  private async exists(database: string): Promise<boolean> {
    return (await this.admin.databasesLike(database)).has(database);
  }

  /** In a team: the snapshots of `ref` that other replicas took, registered here too. */
  private async findSnapshots(ref: DatabaseRef): Promise<void> {
    const backups = this.backupsOf.get(ref.database);
    if (backups) await this.snapshots.find(this.admin, ref, backups());
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
    this.signatures.delete(ref.database);
    void this.enqueue(`setting the password of ${ref.role}`, () => this.admin.setPassword(ref.role, password));
  }

  setConnectionLimit(ref: DatabaseRef, limit: number | undefined): void {
    this.signatures.delete(ref.database);
    void this.enqueue(`setting the connection limit of ${ref.role}`, () =>
      this.admin.setConnectionLimit(ref.role, limit ?? -1),
    );
  }

  drop(ref: DatabaseRef): void {
    const known = this.snapshots.names(ref.database);
    this.forget(ref.database);
    void this.enqueue(`dropping ${ref.database}`, async () => {
      await this.admin.dropDatabase(ref.database);
      // Its snapshots: those taken here, and those on the server (another replica's, an earlier run's).
      const found = await this.admin.databasesLike(`${ref.database}_b`);
      for (const name of new Set([...known, ...found])) await this.admin.dropDatabase(name);
      await this.admin.dropRole(ref.role);
    });
  }

  private forget(database: string): void {
    this.live.delete(database);
    this.sizes.forget(database);
    this.made.delete(database);
    this.snapshots.forget(database);
    this.signatures.delete(database);
    this.backupsOf.delete(database);
  }

  snapshot(ref: DatabaseRef, backupId: number, at: number, done?: (bytes: number) => void): void {
    const name = Snapshots.nameOf(ref.database, backupId);
    void this.enqueue(`snapshot ${name}`, async () => {
      if (!this.isLive(ref)) return;
      await this.admin.snapshot(ref.database, name);
      this.snapshots.add(ref.database, backupId, at);
      const bytes = await this.admin.size(name);
      if (this.isLive(ref)) done?.(bytes);
    });
  }

  /** The database is replaced (not ready meanwhile) by the template `pick` names when the step runs. */
  private replaceWith(ref: DatabaseRef, pick: () => string | undefined, what: string, done?: () => void): void {
    this.made.delete(ref.database);
    void this.enqueue(what, async () => {
      if (!this.isLive(ref)) return;
      if (this.shared) await this.findSnapshots(ref);
      await this.admin.recreate(ref.database, ref.role, pick());
      if (!this.isLive(ref)) return;
      this.made.add(ref.database);
      done?.();
    });
  }

  restore(ref: DatabaseRef, backupId: number, done?: () => void): void {
    this.replaceWith(
      ref,
      () => this.snapshots.of(ref.database, backupId),
      `restoring ${ref.database} from backup ${backupId}`,
      done,
    );
  }

  recover(ref: DatabaseRef, at: number, done?: () => void): void {
    this.replaceWith(
      ref,
      () => this.snapshots.at(ref.database, at),
      `recovering ${ref.database} to ${new Date(at).toISOString()}`,
      done,
    );
  }

  terminate(ref: DatabaseRef): void {
    void this.enqueue(`ending the sessions of ${ref.database}`, () => this.admin.terminate(ref.database), 1);
  }

  dropAll(): void {
    this.live.clear();
    this.sizes.clear();
    this.made.clear();
    this.snapshots.clear();
    this.signatures.clear();
    this.backupsOf.clear();
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
   * server first loses every role and database of this process; a team's, shared, loses none).
   */
  async close(): Promise<void> {
    this.sizes.stop();
    await this.steps.close(2_000);
    const ours = this.engine.spec.kind === 'external' && !this.shared;
    await this.engine.close(ours ? () => this.admin.dropEverything() : undefined);
  }
}
