import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'] } },
      // The contract suite: every file starts its own reference implementation and src/ keeps no
      // module state, so the files of a worker share one module graph instead of importing src/
      // again each (that import was two thirds of the suite's CPU).
      { extends: true, test: { name: 'contract', include: ['contract-tests/**/*.test.ts'], isolate: false } },
    ],
  },
});
