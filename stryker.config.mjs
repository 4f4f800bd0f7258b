// Mutation testing of the reference implementation (`npm run mutation`): StrykerJS mutates src/
// and runs the contract suite (in-process) and the unit tests against each mutant through the
// vitest runner. Not part of `npm test` or CI: a full run takes long. Report: reports/mutation/.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  plugins: ['@stryker-mutator/vitest-runner'],
  vitest: { configFile: 'vitest.mutation.config.ts' },
  mutate: ['src/**/*.ts', '!src/generated/**', '!src/cli.ts', '!src/conformance/**', '!src/docs/**'],
  coverageAnalysis: 'perTest',
  ignoreStatic: true,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/index.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  // Incremental mode: a run re-tests only the mutants whose code or covering tests changed since
  // the run that wrote this file (kept out of git; `npm run mutation` rebuilds it when absent).
  incremental: true,
  incrementalFile: 'mutation/stryker-incremental.json',
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['reports', 'coverage'],
  // Three test runners on two cores: the contract tests wait on the clock at times (provisioning,
  // backups), which leaves a core idle with two.
  concurrency: 3,
  // A mutant that runs away (an endless loop) times out after 30 s plus twice its tests' time.
  // Not less: a mutant of code that runs while a Tusk is built is run after a reload of the test
  // environment, whose hooks (beforeAll) its tests' time leaves out; with 10 s, equivalent
  // mutants of requests.ts timed out (so counted as killed) on a busy machine.
  timeoutMS: 30_000,
  timeoutFactor: 2,
};
