// `npm start` builds only when an input of the build changed (scripts/build.js --if-changed): the
// stamp is a hash of the inputs' content, so an edit always rebuilds and an unchanged tree never does.
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
// @ts-expect-error -- a plain JavaScript script without types
import { inputsHash, upToDate } from '../../scripts/build.js';
import { exec as run } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const SCRIPT = join(PROJECT_ROOT, 'scripts', 'build.js');

function tree(): string {
  const dir = tempDir('tusk-build-stamp-');
  for (const d of ['src', 'openapi', 'fixtures', 'contract-tests', 'dist/src', 'dist/openapi', 'dist/vendor'])
    mkdirSync(join(dir, d), { recursive: true });
  writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  writeFileSync(join(dir, 'openapi', 'customer.yaml'), 'openapi: 3.1.0\n');
  writeFileSync(join(dir, 'package.json'), '{}\n');
  for (const f of [
    'dist/src/cli.js',
    'dist/tusk.cjs',
    'dist/tusk.cjs.cache',
    'dist/openapi/customer.json',
    'dist/openapi/instance.json',
  ])
    writeFileSync(join(dir, f), '');
  return dir;
}

describe('the build stamp', () => {
  it('changes with the content of an input, a new input or a removed one, and not with file times', () => {
    const dir = tree();
    const first = inputsHash(dir) as string;
    utimesSync(join(dir, 'src', 'a.ts'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    expect(inputsHash(dir)).toBe(first);
    writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 2;\n');
    const edited = inputsHash(dir) as string;
    expect(edited).not.toBe(first);
    writeFileSync(join(dir, 'openapi', 'more.yaml'), 'x: 1\n');
    expect(inputsHash(dir)).not.toBe(edited);
  });

  it('is up to date only with the stamp of the current inputs and every output present', () => {
    const dir = tree();
    expect(upToDate(dir)).toBe(false); // no stamp
    writeFileSync(join(dir, 'dist', '.build-stamp'), `${inputsHash(dir)}\n`);
    expect(upToDate(dir)).toBe(true);
    writeFileSync(join(dir, 'src', 'a.ts'), 'export const a = 3;\n');
    expect(upToDate(dir)).toBe(false); // never a stale build
    writeFileSync(join(dir, 'dist', '.build-stamp'), `${inputsHash(dir)}\n`);
    expect(upToDate(dir)).toBe(true);
  });

  it('after npm run build, the tree of this checkout is up to date, so npm start skips the build', async () => {
    const { stdout } = await run(process.execPath, [SCRIPT, '--check'], { cwd: PROJECT_ROOT });
    expect(stdout.trim()).toBe('build: up to date');
    const start = await run(process.execPath, [SCRIPT, '--if-changed'], { cwd: PROJECT_ROOT });
    expect(start.stdout).toMatch(/^build: up to date, skipped/);
  });
});
