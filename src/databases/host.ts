// What the embedded server's housekeeping needs of the machine, and its fallbacks where a part is
// missing: the Linux-only parts (reading processes from /proc, a `sh` loop as the watchdog, a
// detached `rm -rf`) are used where they exist, and each has a portable stand-in made of Node
// itself for macOS, Windows or a container without them: `ps` or nothing for a command line, a
// detached Node process for a removal or a watchdog. `Host` is the switch: detected by default,
// and given explicitly by tests, which run the fallbacks here with the Linux-only parts off.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';

/** Which Linux-only parts of the machine Tusk may use. */
export interface Host {
  /** /proc: a process's command line, state and parent. */
  proc: boolean;
  /** A POSIX `sh` for the watchdog loop (and `ps`, for a command line without /proc). */
  sh: boolean;
  /** `rm -rf` for removals that outlive the process. */
  rm: boolean;
}

/** The parts this machine has: all of them on Linux; `sh` and `rm` but no /proc on macOS; none on Windows. */
export function detectHost(): Host {
  const posix = process.platform !== 'win32';
  return {
    proc: process.platform === 'linux' && existsSync('/proc/self/stat'),
    sh: posix && existsSync('/bin/sh'),
    rm: posix,
  };
}

/** The Linux-only parts switched off: what Tusk does on a machine without them. */
export const PORTABLE: Host = { proc: false, sh: false, rm: false };

export const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // it exists, as another user's
  }
};

/** A process's command line ('' where it cannot be read): /proc, else `ps`, else nothing. */
export function commandLine(pid: number, host: Host = detectHost()): string {
  try {
    if (host.proc) return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
    if (host.sh)
      return execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8', timeout: 5_000 }).trim();
  } catch {
    /* gone, or no ps */
  }
  return '';
}

/** The argument that names a removal made by Node (REMOVER), so a later run can tell it is still at work. */
const REMOVER_MARK = 'tusk-remove';

/** A detached Node process that removes the folders given after its mark (the stand-in for `rm -rf`). */
const REMOVER = `for (const dir of process.argv.slice(2)) require('node:fs').rmSync(dir, { recursive: true, force: true, maxRetries: 3 });`;

/** Removes folders in a process that outlives this one: `rm -rf`, else a detached Node. */
export function removeDetached(dirs: string[], host: Host = detectHost()): void {
  const [command, args] = host.rm
    ? ['rm', ['-rf', '--', ...dirs]]
    : [process.execPath, ['-e', REMOVER, REMOVER_MARK, ...dirs]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.once('error', () => {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });
    child.unref();
  } catch {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Whether a removal (an `rm`, or the Node stand-in) is deleting `dir` now. Without /proc it cannot be
 * told: false, and a second removal of the same folder does no harm.
 */
export function removalRunningOn(dir: string, host: Host = detectHost()): boolean {
  if (!host.proc) return false;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return false;
  }
  return pids.some((pid) => {
    const cmd = commandLine(Number(pid), host);
    return (cmd.startsWith('rm ') || cmd.includes(` ${REMOVER_MARK} `)) && cmd.includes(dir);
  });
}
