// What embedded servers of killed Tusk processes leave behind, cleared: their data directories in
// the temp folder (their servers, if they still run, shut down), trash a removal did not finish, and
// a server still running on a kept data directory. Folders are moved aside at once and removed in
// the background (by a process that outlives this one), so no start waits on deleting gigabytes.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { alive, commandLine, detectHost, removalRunningOn, removeDetached, type Host } from './host.js';

/** The data directories of embedded servers: `tusk-pg-<pid of the Tusk process>-<random>`, in the OS temp folder. */
export const DATA_PREFIX = 'tusk-pg-';
/** What is being removed in the background: a data directory moved aside. */
export const TRASH_PREFIX = 'tusk-trash-';

/** The postmaster a data directory's lock file names, when it still runs on that directory. */
function serverOf(dataDir: string, host: Host): number | undefined {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  // Only the server of that directory: a pid of a long-gone server may name another process now.
  // Where no command line can be read, none is signalled: a postmaster whose data directory is
  // removed shuts itself down within a minute (it checks its lock file).
  return Number.isInteger(pid) && pid > 0 && alive(pid) && commandLine(pid, host).includes(dataDir) ? pid : undefined;
}

/**
 * Removes folders without waiting: each is first renamed to `tusk-trash-...` beside it (instant,
 * so its name is free at once), then deleted by a detached `rm -rf` (a detached Node process where
 * there is no `rm`) that outlives this process.
 */
export function removeInBackground(dirs: string[], host: Host = detectHost()): void {
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
  if (moved.length) removeDetached(moved, host);
}

/**
 * What embedded servers of killed Tusk processes left in `dir`: a data directory whose Tusk process
 * is gone (its server, if it still runs, is shut down at once) and trash a removal did not finish.
 * They are moved aside and removed in the background; returns how many data directories it found.
 */
export function cleanStaleEmbedded(dir = tmpdir(), host: Host = detectHost()): number {
  const stale: string[] = [];
  let found = 0;
  for (const name of readdirSync(dir)) {
    const data = join(dir, name);
    if (name.startsWith(TRASH_PREFIX)) {
      // A trash folder an `rm` is still deleting is left to it.
      if (!removalRunningOn(data, host)) stale.push(data);
      continue;
    }
    const m = new RegExp(`^${DATA_PREFIX}(\\d+)-`).exec(name);
    if (!m || alive(Number(m[1]))) continue;
    const server = serverOf(data, host);
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
  removeInBackground(stale, host);
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Stops a server a killed run left on a kept data directory, and removes a lock file of a dead one. */
export async function clearStaleServer(dataDir: string, host: Host): Promise<void> {
  const pid = serverOf(dataDir, host);
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
