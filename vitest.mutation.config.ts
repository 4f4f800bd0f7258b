// The tests StrykerJS runs against each mutant of src/ (stryker.config.mjs): the contract suite
// in-process and the unit tests; not the tests that start other programs (Prism, a browser, the
// built CLI, the typed-client example) or read the file tree, which run dist/ rather than the
// mutated src/ and are slow, nor the ones that measure time (latency percentiles, constant-time
// comparison), which instrumented code fails for reasons unrelated to the mutant.
import { relative } from 'node:path';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that start a Postgres server or other programs, or walk the tree: seconds each, where a
 * unit test file takes milliseconds. In test/databases/, the unit tests of the engine's code (a
 * stand-in engine, no server) are not among them.
 */
const SLOW =
  /^test\/databases\/(?!(instance-steps|engine-spec|embedded-files)\.test\.ts$)|^contract-tests\/customer\/databases\.test\.ts$|^test\/control\/(persist-restart|database-takeover)\.test\.ts$|^test\/lint\//;

/**
 * The order of a mutant's test files, so that the first failure (Stryker stops there) comes soon:
 * a file that failed in this runner before (it killed an earlier mutant, likely a neighbour of this
 * one) first, the slow files last, and the rest shortest first. Vitest's own order runs the longest
 * first, so a mutant that a unit test kills in milliseconds waited for the Postgres tests first.
 */
class FastFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): [number, number] => {
      const path = relative(this.ctx.config.root, spec.moduleId);
      const key = `${spec.project.name}:${path}`;
      const result = this.ctx.cache.getFileTestResults(key);
      if (result?.failed) return [0, result.duration];
      return [SLOW.test(path) ? 2 : 1, result?.duration ?? this.ctx.cache.getFileStats(key)?.size ?? 0];
    };
    const ranked = files.map((spec) => ({ spec, rank: rank(spec) }));
    ranked.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1] - b.rank[1]);
    return ranked.map(({ spec }) => spec);
  }
}

/** The test files of the mutation run, except those that mock modules (below). */
const INCLUDE = ['test/**/*.test.ts', 'contract-tests/**/*.test.ts'];
/**
 * Files that mock a module (node:fs, a bundler, pg) for their whole file: with isolate: false the mocks could
 * reach the files that share their worker, so they run in a project of their own, isolated.
 */
const MOCKING = [
  'test/openapi/documents.test.ts',
  'test/databases/engine-loss.test.ts',
  'test/databases/engine-states.test.ts',
];

export default defineConfig({
  test: {
    // As in vitest.config.ts: files share one module graph (src/ keeps no module state, and the
    // mutants are switched at run time; static ones are ignored), about half the CPU per mutant.
    isolate: false,
    // Code a test file's hooks run counts as covered by each of its tests, not as static.
    setupFiles: ['test/support/mutation-hooks.ts'],
    sequence: { sequencer: FastFirst },
    // A mutant that leaves a request unanswered fails its first test after 10 s (the slowest test
    // takes under 2 s) instead of hanging until Stryker's own timeout and a runner restart.
    testTimeout: 10_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: INCLUDE,
          exclude: [
            '**/node_modules/**',
            ...MOCKING,
            'test/prism.test.ts',
            'test/docs*.test.ts',
            'test/pack*.test.ts',
            'test/cli.test.ts',
            'test/example.test.ts',
            'test/conformance-runner.test.ts',
            'test/conformance-broken.test.ts',
            'test/conformance-supervise.test.ts',
            'test/contract-coverage.test.ts',
            'test/readme.test.ts',
            'test/proxy/proxy-cli.test.ts',
            'test/coverage.browser.test.ts',
            // Compares the build stamp with the tree, which Stryker's sandbox is not.
            'test/scripts/**',
            'test/reliability/**',
            'test/security/constant-time.test.ts',
            'test/fuzz/**',
          ],
        },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING, isolate: true } },
    ],
  },
});
