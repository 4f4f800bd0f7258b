// A setup file for mutation runs only (vitest.mutation.config.ts): counts the code that a test
// file's hooks run (beforeAll, afterAll, a describe's hooks) as covered by every test of that file.
//
// StrykerJS's vitest runner records, in its dry run, which tests cover each mutant: the code that
// runs while a test runs counts for that test, anything else counts as "static". Most test files
// build their Tusk in a beforeAll hook, so without this file the code that builds a server (routes,
// validators, key fields, the control app) is "static" for them. With `ignoreStatic`, a mutant there
// then runs only against the few tests that build a server inside the test, and survives the many
// that would fail. Stryker activates a mutant before a file's beforeAll hooks (its own setup file
// runs first), so running the file's tests does exercise the mutated hook.
//
// Code that runs while a file is imported (module-level code) stays static: with `isolate: false`
// a module is loaded once per worker, so only a reload of the environment would exercise it.
import { afterAll, beforeAll, inject, type RunnerTask, type RunnerTestFile, type RunnerTestSuite } from 'vitest';

/** The coverage Stryker's instrumented code records: mutant id to hits, per test id or static. */
interface Coverage {
  static: Record<string, number>;
  perTest: Record<string, Record<string, number>>;
}

interface StrykerNamespace {
  currentTestId?: string;
  mutantCoverage?: Coverage;
  /** Set by this file: the current test's id, and whether a test file's hooks are running. */
  tuskHooks?: { test: string | undefined; inHooks: boolean };
}

/** The test id under which a file's hook coverage is gathered until it is shared out. */
const HOOKS = '__tusk_file_hooks__';

const strykerInject = inject as (key: string) => unknown;

if (strykerInject('mode') === 'dry-run') {
  const global = globalThis as unknown as Record<string, StrykerNamespace | undefined>;
  const name = strykerInject('globalNamespace') as string;
  const ns = (global[name] ??= {});

  // Once per worker (setup files run again for each test file, in the same module graph):
  // currentTestId answers HOOKS while a file's hooks run outside any test.
  if (ns.tuskHooks === undefined) {
    const state: NonNullable<StrykerNamespace['tuskHooks']> = { test: ns.currentTestId, inHooks: false };
    ns.tuskHooks = state;
    Object.defineProperty(ns, 'currentTestId', {
      configurable: true,
      get: () => state.test ?? (state.inHooks ? HOOKS : undefined),
      set: (id: string | undefined) => {
        state.test = id;
      },
    });
  }
  const state = ns.tuskHooks;

  beforeAll(() => {
    state.inHooks = true;
  });

  // After the file's own afterAll hooks (hooks run as a stack), before Stryker's reads the coverage.
  // Vitest reads a hook's first parameter as fixtures, which must be a destructuring pattern.
  afterAll(({}, suite) => {
    state.inHooks = false;
    const coverage = ns.mutantCoverage;
    const hooks = coverage?.perTest[HOOKS];
    if (coverage === undefined || hooks === undefined) return;
    delete coverage.perTest[HOOKS];
    for (const id of testIds(suite)) {
      const perTest = (coverage.perTest[id] ??= {});
      for (const [mutant, hits] of Object.entries(hooks)) perTest[mutant] = (perTest[mutant] ?? 0) + hits;
    }
  });
}

/**
 * The ids of a suite's tests that ran (Stryker knows no others), as Stryker's setup file names them:
 * the file's path, '#', the names of the test and its suites.
 */
function testIds(suite: Readonly<RunnerTestSuite | RunnerTestFile>): string[] {
  return suite.tasks.flatMap((task: RunnerTask) => {
    if (task.type === 'suite') return testIds(task);
    if (task.type !== 'test' || task.mode !== 'run' || task.result === undefined) return [];
    return [`${task.file.filepath}#${fullName(task)}`];
  });
}

function fullName(task: RunnerTask): string {
  const names = [task.name];
  for (let suite = task.suite; suite !== undefined; suite = suite.suite) names.unshift(suite.name);
  return names.join(' ').trim();
}
