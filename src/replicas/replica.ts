// A team's Tusk: any number of `tusk serve --state postgres://...` processes (replicas) that are one
// Tusk, their state in that Postgres (schema.ts, rows.ts), not in a protocol of their own. Each
// replica keeps every account's home in memory, as one process does, with the version of the row it
// was loaded from (copies.ts), and before a request:
//   a read    asks the account's version (and the generation) in one query, and loads the row when
//             its copy is older: a write acknowledged by any replica is read at once by every other
//             (the reads that come while such a query is in flight ask together in the next one,
//             checks.ts: never in one sent before they came);
//   a write   locks the account's row (SELECT ... FOR UPDATE, inside a transaction that holds the
//             team's server lock shared), loads it when older, runs the request, and writes the
//             account back with its version one more before it answers: concurrent writes to one
//             account through any replicas are one after another, and a write is acknowledged only
//             once it is committed (a failed commit answers 503, and the copy is loaded again);
//   a control that changes something (reset, seed, a state load, a clock move, fault rules, a new
//             account, an emptied journal) holds the server lock alone, makes every copy current,
//             runs, and writes back what it changed, with a new generation when the set of accounts
//             or the server's part changed.
// What the clock makes due (alarms that fire, callbacks and notifications sent) is the leader's
// (leader.ts). Writes of one replica wait their turn here, per account, before they take a
// connection: the connections of transactions and those of the short reads (versions, the rate
// limit, the journal) are two pools, so that a write holding a lock never waits for a connection
// its own waiters hold.
import pg from 'pg';
import type { Registry } from '../accounts/registry.js';
import type { Logger } from '../core/log.js';
import { LOCKS, migrate, type Migration } from './schema.js';
import { Leader } from './leader.js';
import { SharedJournal } from './journal.js';
import { Copies } from './copies.js';
import { Gate } from './gate.js';
import { RELOAD, VersionChecks } from './checks.js';
import { accountOfKey, accountVersions, keyDigest, outboxBlock, readAccount, readServer } from './rows.js';

export interface ReplicaOptions {
  /** postgres://USER:PW@HOST:PORT/DB: where the team's state lives. */
  url: string;
  registry: Registry;
  logger: Logger;
  /** The path of the control plane (its changes are changes of the server). */
  controlPrefix: string;
}

/** Whether `--state` names a team's Postgres (postgres:// or postgresql://) rather than a file. */
export const isSharedState = (state: string | undefined): state is string =>
  !!state && /^postgres(ql)?:\/\//.test(state);

/** Outbox ids a replica takes at a time (from a sequence: no two replicas share one). */
const OUTBOX_BLOCK = 1_000_000;

type Fetch = (req: Request) => Response | Promise<Response>;

/** The answer when a write could not be committed: nothing of it is acknowledged. */
const notCommitted = () =>
  Response.json(
    { error: 'Service unavailable: the change could not be written to the state database; nothing changed, try again' },
    { status: 503, headers: { 'Retry-After': '1' } },
  );

const NO_ANSWER = () => new Response(null, { status: 204 });

/** A write that found the server changed before it took its locks (it is made again). */
const STALE = Symbol('stale');

export class Replica {
  /** Short statements outside transactions: versions, keys, the rate limit, the journal. */
  readonly pool: pg.Pool;
  /** Transactions (writes); one connection each. */
  private readonly writes: pg.Pool;
  private readonly copies: Copies;
  private readonly registry: Registry;
  /** A reload of everything in progress (requests that find the generation changed wait for it). */
  private reloading: Promise<void> | undefined;
  /** The last write queued per account, and of the server: a replica's writes of one wait their turn. */
  private readonly turns = new Map<string, Promise<unknown>>();
  /** Account writes share it; a reload of everything and a change of the server have it alone (gate.ts). */
  private readonly gate = new Gate();
  readonly leader: Leader;
  readonly journal: SharedJournal;
  private ids = { next: 0, end: 0 };
  /** The version checks of reads, those that came while one was in flight in one query (checks.ts). */
  private readonly checks: VersionChecks;

  private constructor(private readonly options: ReplicaOptions) {
    this.registry = options.registry;
    const pool = (max: number) => {
      const p = new pg.Pool({ connectionString: options.url, max });
      p.on('error', (err) => options.logger.warn(`tusk: team: a pooled connection failed: ${err.message}`));
      return p;
    };
    this.pool = pool(6);
    this.writes = pool(8);
    this.copies = new Copies(this.registry);
    this.checks = new VersionChecks(this.pool, this.copies);
    this.leader = new Leader(this, this.registry, options.logger, this.registry.journal.capacity);
    this.journal = new SharedJournal(this.registry.journal, this.pool, options.logger);
    // A delivery's outcome, and what a database step announces when done (a backup made, a
    // restore done): each written as a change of its account.
    this.registry.settle = (account, change) =>
      void this.write(account, () => {
        change();
        return NO_ANSWER();
      });
    this.registry.outbox.share({
      ids: () => this.outboxId(),
      delivers: () => this.leader.leads,
      commit: (account, change) => (account === undefined ? change() : this.registry.settle(account, change)),
    });
  }

  /**
   * Connects, makes or migrates the schema, and makes the registry the team's state: the state the
   * database holds, or, for a database without one, the registry's (seeded) state, written there.
   */
  static async open(options: ReplicaOptions): Promise<{ replica: Replica; migration: Migration; created: boolean }> {
    const replica = new Replica(options);
    try {
      const migration = await migrate(replica.pool);
      const first = await outboxBlock(replica.pool, OUTBOX_BLOCK);
      replica.ids = { next: first, end: first + OUTBOX_BLOCK };
      const created = await replica.inTransaction(async (db) => {
        await db.query('select pg_advisory_xact_lock($1, $2)', [LOCKS.namespace, LOCKS.server]);
        if ((await readServer(db)).generation > 0) {
          await replica.copies.loadAll(db);
          return false;
        }
        await replica.copies.writeAll(db, true);
        return true;
      });
      return { replica, migration, created };
    } catch (err) {
      await replica.end();
      throw err;
    }
  }

  /** The next outbox id of this replica's block; the next block is taken before this one runs out. */
  private outboxId(): number {
    if (this.ids.end - this.ids.next === 1000)
      void outboxBlock(this.pool, OUTBOX_BLOCK).then(
        (first) => (this.ids = { next: first, end: first + OUTBOX_BLOCK }),
      );
    return this.ids.next++;
  }

  /** Runs `work` in a transaction on one connection; rolls back when it throws. */
  private async inTransaction<T>(work: (db: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.writes.connect();
    try {
      await client.query('begin');
      const out = await work(client);
      await client.query('commit');
      return out;
    } catch (err) {
      await client.query('rollback').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  /** Runs `work` after the replica's last write queued under `key`. */
  private inTurn<T>(key: string, work: () => Promise<T>): Promise<T> {
    const before = this.turns.get(key) ?? Promise.resolve();
    const mine = before.then(work, work);
    this.turns.set(key, mine);
    void mine.finally(() => {
      if (this.turns.get(key) === mine) this.turns.delete(key);
    });
    return mine;
  }

  /** The account a request's key opens, by this replica's key index or else the team's. */
  async accountOf(authorization: string | null): Promise<string | undefined> {
    if (!authorization) return undefined;
    const home = this.registry.homeOfHeader(authorization);
    if (home) return home.id;
    const key = this.registry.keyOfHeader(authorization);
    return key ? accountOfKey(this.pool, keyDigest(key)) : undefined;
  }

  /** Every copy as current as the team's (a control that reads the whole server). */
  async freshAll(): Promise<void> {
    const { generation } = await readServer(this.pool);
    if (generation !== this.copies.generation) return this.reloadAll();
    for (const [id, version] of await accountVersions(this.pool))
      if (this.copies.version(id) !== version) await this.fresh(id);
  }

  /**
   * Account `id`'s copy as current as the team's (a read): its version checked with those of the
   * reads that came while a check was in flight; after the account's write in flight here, if any, a
   * row older than the copy by then is not taken.
   */
  async fresh(id: string): Promise<void> {
    const got = await this.checks.of(id);
    if (got === RELOAD) return this.reloadAll();
    if (got) await this.inTurn(id, async () => this.copies.adopt(got));
  }

  private reloadAll(): Promise<void> {
    this.reloading ??= this.gate
      .alone(async () => {
        if ((await readServer(this.pool)).generation !== this.copies.generation) await this.copies.loadAll(this.pool);
      })
      .finally(() => (this.reloading = undefined));
    return this.reloading;
  }

  /**
   * Runs `work` as a write of account `id`: its row locked, its copy current, and what changed
   * written back with its version one more before the answer goes. A failed write answers 503.
   */
  write(id: string, work: () => Response | Promise<Response>): Promise<Response> {
    return this.inTurn(id, async () => {
      for (;;) {
        if (this.reloading) await this.reloading;
        const res = await this.gate.share(() => this.tryWrite(id, work));
        if (res !== STALE) return res;
        await this.reloadAll(); // the server changed before this write took its locks: once more
      }
    });
  }

  private async tryWrite(id: string, work: () => Response | Promise<Response>): Promise<Response | typeof STALE> {
    try {
      return await this.inTransaction(async (db) => {
        await db.query('select pg_advisory_xact_lock_shared($1, $2)', [LOCKS.namespace, LOCKS.server]);
        const got = await readAccount(db, id, this.copies.version(id), true);
        if (got.generation !== this.copies.generation) return STALE;
        if (got.row) this.copies.adopt(got.row);
        const res = await work();
        const home = this.registry.home(id);
        if (home && got.version !== undefined) await this.copies.writeBack(db, home);
        return res;
      });
    } catch (err) {
      this.copies.forget(id);
      this.options.logger.warn(`tusk: team: a write of account ${id} failed: ${(err as Error).message}`);
      return notCommitted();
    }
  }

  /** Runs `work` as a change of the whole server: the server lock held alone, every copy current, all written back. */
  writeServer(work: () => Response | Promise<Response>): Promise<Response> {
    return this.gate.alone(async () => {
      try {
        return await this.inTransaction(async (db) => {
          await db.query('select pg_advisory_xact_lock($1, $2)', [LOCKS.namespace, LOCKS.server]);
          await this.copies.sync(db);
          const res = await work();
          await this.copies.writeAll(db);
          await this.journal.flush();
          await this.journal.applyClears(db);
          return res;
        });
      } catch (err) {
        this.copies.forgetAll();
        this.options.logger.warn(`tusk: team: a change of the server failed: ${(err as Error).message}`);
        return notCommitted();
      }
    });
  }

  /** The fetch of one interface's app, as a replica of the team serves it. */
  serve(fetch: Fetch): Fetch {
    const { controlPrefix } = this.options;
    return async (req) => {
      const path = new URL(req.url).pathname;
      const reads = req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS';
      if (path === controlPrefix || path.startsWith(`${controlPrefix}/`)) {
        if (!reads) return this.writeServer(() => fetch(req));
        await this.freshAll();
        if (path === `${controlPrefix}/requests`) await this.journal.load();
        return fetch(req);
      }
      const id = await this.accountOf(req.headers.get('authorization'));
      if (id === undefined) return fetch(req);
      if (!reads) return this.write(id, () => fetch(req));
      await this.fresh(id);
      return fetch(req);
    };
  }

  /** Starts the leader's rounds (try the lock; while leading, tick). */
  start(): void {
    this.leader.start();
  }

  /** Stops leading, writes the journal's last lines, and closes the connections. */
  async close(): Promise<void> {
    await this.leader.stop();
    await this.journal.close();
    await this.end();
  }

  private async end(): Promise<void> {
    await Promise.all([this.pool.end(), this.writes.end()]).catch(() => undefined);
  }
}
