// `tusk test`: runs the conformance suite (contract-tests/) against a deployment, or against the
// reference implementation started in-process when no URLs are given. The suite is run with
// vitest's Node API; a reporter of our own prints one progress line per test file and a summary
// that names every departure from the contract. Exit code 0 when everything passed, 1 otherwise.
// The arguments are read in args.ts, the files chosen in suite.ts, the report written by report.ts;
// the suite runs in a child process whose summary's code `tusk test` exits with (supervise.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestSpecification } from 'vitest/node';
import { PROJECT_ROOT } from '../openapi/documents.js';
import { parseTestArgs, targetEnv, TEST_HELP, UsageError, type TestOptions } from './args.js';
import { failedRun, formatSummary, rotationNote, SuiteReporter } from './report.js';
import { groupOf, SUITE_DIR, suiteFiles } from './suite.js';
import { runnerMissing } from './runner.js';
import { isSuiteProcess, reportCode, superviseSuite } from './supervise.js';

/** The signals that stop a run. */
const STOPPING = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Runs the suite; returns the exit code. */
export async function runSuite(o: TestOptions, print: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const files = suiteFiles();
  const selected = files.filter((f) => o.filters.length === 0 || o.filters.some((flt) => f.includes(flt)));
  const notRun = o.allowDestructive ? [] : selected.filter((f) => groupOf(f) === 'destructive');
  const toRun = selected.filter((f) => !notRun.includes(f));
  const external = Boolean(o.customerUrl);
  const target = external
    ? `customer API ${o.customerUrl}, instance API ${o.instanceUrl}`
    : 'the in-process reference implementation';
  if (toRun.length === 0) {
    print(`tusk test: no test files to run${o.filters.length ? ` (filters: ${o.filters.join(', ')})` : ''}`);
    return 1;
  }
  // Keys the suite rotates (destructive tests) are recorded here, for later files and the summary.
  const stateDir = mkdtempSync(join(tmpdir(), 'tusk-test-'));
  // A signal that stops the run (`tusk test` passes SIGINT, SIGTERM and SIGHUP on, supervise.ts)
  // removes it too, and ends the run as the signal would have: 128 plus its number. Listened for
  // at once: until then a signal ends the process where it stands, with nothing removed.
  const removeAndExit = (signal: NodeJS.Signals) => {
    rmSync(stateDir, { recursive: true, force: true });
    process.exit(128 + constants.signals[signal]);
  };
  for (const signal of STOPPING) process.once(signal, removeAndExit);
  for (const [k, v] of Object.entries({ ...targetEnv(o), TUSK_STATE_DIR: stateDir })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  print(
    `tusk test: ${toRun.length} test files against ${target}${notRun.length ? `; ${notRun.length} destructive files left out (--allow-destructive)` : ''}`,
  );
  try {
    return await runFiles(o, toRun, notRun, target, stateDir, print);
  } finally {
    // Also when the run throws; a run killed with SIGKILL leaves it to the system's cleaning.
    for (const signal of STOPPING) process.off(signal, removeAndExit);
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** Runs the suite's files in vitest and prints the summary; the exit code. */
async function runFiles(
  o: TestOptions,
  toRun: string[],
  notRun: string[],
  target: string,
  stateDir: string,
  print: (line: string) => void,
): Promise<number> {
  const { startVitest, BaseSequencer } = await import('vitest/node');
  // Read-only files first, destructive ones last (one after the other against a deployment).
  const rank = (id: string) => ['read-only', 'creates and removes', 'destructive'].indexOf(groupOf(id));
  class GroupSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]) {
      return [...files].sort((a, b) => rank(a.moduleId) - rank(b.moduleId) || a.moduleId.localeCompare(b.moduleId));
    }
  }
  const reporter = new SuiteReporter(print);
  type Reporters = NonNullable<NonNullable<Parameters<typeof startVitest>[2]>['reporters']>;
  const reporters = [reporter, ...(o.junit ? [['junit', { suiteName: 'tusk conformance' }]] : [])] as Reporters;
  const vitest = await startVitest(
    'test',
    toRun.map((f) => join(SUITE_DIR, f)),
    {
      config: false,
      root: PROJECT_ROOT,
      run: true,
      watch: false,
      reporters,
      ...(o.junit ? { outputFile: { junit: resolve(o.junit) } } : {}),
      include: ['contract-tests/**/*.test.ts'],
      // Replaces vitest's default exclude, which would hide everything when the suite is run from
      // an installed package (under node_modules/).
      exclude: ['contract-tests/harness/**', ...(o.allowDestructive ? [] : ['**/*.destructive.test.ts'])],
      pool: 'forks',
      // The files of a worker share one module graph (each opens its own target; the harness keeps
      // no module state), instead of importing everything again per file.
      isolate: false,
      testTimeout: 60_000,
      hookTimeout: 120_000,
      // Against a live deployment the files run one after another: tests of one file cannot see
      // another file's resources in shared lists, and the rate limit is not shared. In-process,
      // every file has its own reference implementation and they run in parallel.
      fileParallelism: !o.customerUrl,
      sequence: { sequencer: GroupSequencer },
      passWithNoTests: false,
      // Installed as a package, the suite's TypeScript sources sit under node_modules/, which vitest
      // would otherwise hand to Node untransformed.
      server: { deps: { inline: [new RegExp('^' + PROJECT_ROOT.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))] } },
    },
    { server: { fs: { strict: false } } },
  );
  await vitest?.close();
  print(formatSummary(reporter.summary, notRun, target));
  const note = rotationNote(o, stateDir);
  if (note) print(note);
  if (o.junit) print(`JUnit report: ${resolve(o.junit)}`);
  if (reporter.summary.files.length === 0) return 1;
  return failedRun(reporter.summary) ? 1 : 0;
}

export async function testCommand(args: string[]): Promise<void> {
  let options;
  try {
    options = parseTestArgs(args);
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`tusk: ${err.message}\n\n${TEST_HELP}`);
      process.exit(2);
    }
    throw err;
  }
  if (options === 'help') {
    process.stdout.write(TEST_HELP);
    return;
  }
  const missing = runnerMissing();
  if (missing) {
    console.error(`tusk: ${missing}`);
    process.exit(2);
  }
  if (!isSuiteProcess()) {
    // The suite runs in a process of its own (supervise.ts says why); this one exits with its summary's code.
    process.exitCode = await superviseSuite(process.argv[1]!, ['test', ...args]);
    return;
  }
  const code = await runSuite(options);
  await reportCode(code);
  process.exitCode = code;
  // vitest may leave handles (workers, sockets of the target) open: exit explicitly.
  setTimeout(() => process.exit(code), 200).unref();
}
