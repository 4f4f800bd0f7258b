// The mutation config's setup file (test/support/mutation-hooks.ts) with StrykerJS's own setup file,
// as a dry run of the mutation run uses them: in a vitest of its own, a test file whose module code,
// hooks and tests each cover a "mutant" the way Stryker's instrumented code records it. The code of
// the file's hooks counts for each of its tests that ran; module code stays static.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { run } from './processes.js';
import { tempDir } from './temp.js';

// What Stryker's instrumentation does when code runs (instrumenter, syntax-helpers.js).
const FIXTURE = `
globalThis.cover = (id) => {
  const ns = (globalThis.__stryker__ ??= {});
  const cov = (ns.mutantCoverage ??= { static: {}, perTest: {} });
  const c = ns.currentTestId ? (cov.perTest[ns.currentTestId] ??= {}) : cov.static;
  c[id] = (c[id] ?? 0) + 1;
};
cover('module');
beforeAll(() => cover('hook'));
describe('group', () => {
  beforeAll(() => cover('inner-hook'));
  it('a', () => cover('a'));
  it.skip('skipped', () => cover('skipped'));
});
it('b', () => {});
afterAll(() => cover('teardown'));
`;

it("counts the code of a file's hooks for each of its tests that ran, and module code as static", async () => {
  const dir = tempDir('tusk-mutation-hooks-');
  const out = join(dir, 'coverage.json');
  writeFileSync(join(dir, 'fixture.test.mjs'), FIXTURE);
  // Registered first, so its afterAll runs last (hooks run as a stack): it sees the coverage as
  // Stryker's reporter would.
  writeFileSync(
    join(dir, 'dump.mjs'),
    `import { writeFileSync } from 'node:fs';\nafterAll(() => writeFileSync(${JSON.stringify(out)}, JSON.stringify(globalThis.__stryker__.mutantCoverage)));\n`,
  );
  const setupFiles = [
    join(dir, 'dump.mjs'),
    join(PROJECT_ROOT, 'node_modules', '@stryker-mutator', 'vitest-runner', 'dist', 'src', 'stryker-setup.js'),
    join(PROJECT_ROOT, 'test', 'support', 'mutation-hooks.ts'),
  ];
  const config = {
    test: {
      include: ['fixture.test.mjs'],
      globals: true,
      isolate: false,
      setupFiles,
      provide: { mode: 'dry-run', globalNamespace: '__stryker__', isGreaterThanVitest4Point1: true },
    },
  };
  writeFileSync(join(dir, 'vitest.config.mjs'), `export default ${JSON.stringify(config)};\n`);
  const vitest = await run(
    process.execPath,
    [
      join(PROJECT_ROOT, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      '--root',
      dir,
      '--config',
      join(dir, 'vitest.config.mjs'),
    ],
    {
      cwd: PROJECT_ROOT,
    },
  );
  expect(vitest.code, vitest.out).toBe(0);
  const file = join(dir, 'fixture.test.mjs');
  const coverage = JSON.parse(readFileSync(out, 'utf8')) as {
    static: Record<string, number>;
    perTest: Record<string, Record<string, number>>;
  };
  const hooks = { hook: 1, 'inner-hook': 1, teardown: 1 };
  expect(coverage).toEqual({
    static: { module: 1 },
    perTest: { [`${file}#group a`]: { ...hooks, a: 1 }, [`${file}#b`]: hooks },
  });
}, 60_000);
