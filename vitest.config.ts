import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default in a run is one worker fewer than the machine's cores: a single worker on CI's
    // two. The tests spend much of their time waiting on processes, Postgres and the network, so
    // a worker per core finishes sooner.
    maxWorkers: '100%',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'] } },
      // The contract suite: every file starts its own reference implementation and src/ keeps no
      // module state, so the files of a worker share one module graph instead of importing src/
      // again each (that import was two thirds of the suite's CPU).
      { extends: true, test: { name: 'contract', include: ['contract-tests/**/*.test.ts'], isolate: false } },
    ],
  },
});
