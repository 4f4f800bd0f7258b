// The tests StrykerJS runs against each mutant of src/ (stryker.config.mjs): the contract suite
// in-process and the unit tests; not the tests that start other programs (Prism, a browser, the
// built CLI, the typed-client example) or read the file tree, which run dist/ rather than the
// mutated src/ and are slow, nor the ones that measure time (latency percentiles, constant-time
// comparison), which instrumented code fails for reasons unrelated to the mutant.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'contract-tests/**/*.test.ts'],
    exclude: [
      '**/node_modules/**',
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
      // Mocks node:fs and Redocly's bundler for its whole file: with isolate: false (below) the
      // mocks could reach the files that share its worker.
      'test/openapi/documents.test.ts',
    ],
    // As in vitest.config.ts: files share one module graph (src/ keeps no module state, and the
    // mutants are switched at run time; static ones are ignored), about half the CPU per mutant.
    isolate: false,
    // A mutant that leaves a request unanswered fails its first test after 10 s (the slowest test
    // takes under 2 s) instead of hanging until Stryker's own timeout and a runner restart.
    testTimeout: 10_000,
    hookTimeout: 60_000,
  },
});
