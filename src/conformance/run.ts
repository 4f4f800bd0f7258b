// `tusk test`: runs the conformance suite (contract-tests/) against a deployment, or against the
// reference implementation started in-process when no URLs are given. The suite is run with
// vitest's Node API; a reporter of our own prints one progress line per test file and a summary
// that names every departure from the contract. Exit code 0 when everything passed, 1 otherwise.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import type { Reporter, TestCase, TestModule, TestSpecification } from 'vitest/node';
import { PROJECT_ROOT } from '../openapi/documents.js';
import { parseRateLimit } from '../http/rate-limit.js';

export const TEST_HELP = `Usage: tusk test [flags] [file filter ...]

Runs the conformance suite (contract-tests/) against a deployment of both interfaces, or, without
URLs, against the reference implementation started in-process.

Flags:
  --customer-url URL     base URL of the customer API (with --instance-url and --api-key)
  --instance-url URL     base URL of the instance API
  --api-key KEY          an admin key of the customer API
  --role-keys LIST       keys of other team roles: 'monitor=KEY,billing manager=KEY'
                         (tests that need a role without a key are skipped)
  --callback-host HOST   host name under which the deployment reaches callbacks the tests serve
  --allow-destructive    also run *.destructive.test.ts (key rotation of the given key, running
                         maintenance, ...); without it they are left out
  --check-databases      also check the databases behind the instances by their data: the url
                         connects, a backup restored brings its rows back, a fork is an
                         independent copy, a point-in-time recovery or copy holds the data of
                         that time, rotate-password refuses the old password (for a deployment
                         whose instance URLs the runner can reach; in-process: an embedded server)
  --rate-limit N/S       the deployment's documented rate limit per key (N requests per S
                         seconds), for the 429 check: without a 429 it is a departure only once
                         the runner got more than 2N requests answered within S seconds, else
                         inconclusive (skipped, naming the rate reached); without the flag a
                         missing 429 is always inconclusive
  --junit FILE           also write a JUnit XML report to FILE
  -h, --help             this help

Environment (a flag wins over its variable; secrets stay off the command line):
  TUSK_CUSTOMER_URL, TUSK_INSTANCE_URL, TUSK_API_KEY, TUSK_ROLE_KEYS, TUSK_CALLBACK_HOST
                         the values of --customer-url, --instance-url, --api-key, --role-keys,
                         --callback-host
  TUSK_ALLOW_DESTRUCTIVE=1, TUSK_CHECK_DATABASES=1
                         as --allow-destructive, --check-databases (also "true")
  TUSK_RATE_LIMIT        the value of --rate-limit
  TUSK_CALLBACK_PORT     the port of the suite's callback receiver (default: any free port)
  TUSK_CALLBACK_TIMEOUT_MS
                         how long a test waits for a callback to arrive (default 60000)

Test files are grouped by what they do to the target: *.readonly.test.ts only read;
*.test.ts create their own resources and remove them afterwards; *.destructive.test.ts change
what they did not create. File filters select test files whose path contains one of them.
Exit code: 0 when every test passed, 1 when one failed or departed from the contract, 2 on usage errors.
`;

export type Group = 'read-only' | 'creates and removes' | 'destructive';

/** The group of a test file, from its name. */
export function groupOf(file: string): Group {
  if (/\.destructive\.test\.ts$/.test(file)) return 'destructive';
  if (/\.readonly\.test\.ts$/.test(file)) return 'read-only';
  return 'creates and removes';
}

export interface TestOptions {
  customerUrl?: string;
  instanceUrl?: string;
  apiKey?: string;
  roleKeys?: string;
  callbackHost?: string;
  allowDestructive: boolean;
  /** --check-databases: the instances' URLs are real databases the runner can reach. */
  checkDatabases?: boolean;
  /** --rate-limit N/S: the deployment's documented rate limit per key. */
  rateLimit?: string;
  junit?: string;
  filters: string[];
}

export class UsageError extends Error {}

/** The flags `tusk test` also takes from the environment (TEST_HELP), by flag. */
export const TEST_ENV = {
  'customer-url': 'TUSK_CUSTOMER_URL',
  'instance-url': 'TUSK_INSTANCE_URL',
  'api-key': 'TUSK_API_KEY',
  'role-keys': 'TUSK_ROLE_KEYS',
  'callback-host': 'TUSK_CALLBACK_HOST',
  'allow-destructive': 'TUSK_ALLOW_DESTRUCTIVE',
  'check-databases': 'TUSK_CHECK_DATABASES',
  'rate-limit': 'TUSK_RATE_LIMIT',
} as const;

export function parseTestArgs(args: string[], env: NodeJS.ProcessEnv = process.env): TestOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        'customer-url': { type: 'string' },
        'instance-url': { type: 'string' },
        'api-key': { type: 'string' },
        'role-keys': { type: 'string' },
        'callback-host': { type: 'string' },
        'allow-destructive': { type: 'boolean' },
        'check-databases': { type: 'boolean' },
        'rate-limit': { type: 'string' },
        junit: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values: flags, positionals } = parsed;
  if (flags.help) return 'help';
  // A flag wins over its variable; an empty variable counts as unset.
  const fromEnv = (flag: keyof typeof TEST_ENV) => env[TEST_ENV[flag]] || undefined;
  const envFlag = (flag: keyof typeof TEST_ENV) => ['1', 'true'].includes((fromEnv(flag) ?? '').toLowerCase());
  const values = {
    ...flags,
    ...Object.fromEntries((['customer-url', 'instance-url', 'api-key', 'role-keys', 'callback-host', 'rate-limit'] as const).map((f) => [f, flags[f] ?? fromEnv(f)])),
    'allow-destructive': flags['allow-destructive'] === true || envFlag('allow-destructive'),
    'check-databases': flags['check-databases'] === true || envFlag('check-databases'),
  } as typeof flags;
  const external = [values['customer-url'], values['instance-url']].filter((v) => v !== undefined).length;
  if (external === 1) throw new UsageError('give both --customer-url and --instance-url (or TUSK_CUSTOMER_URL and TUSK_INSTANCE_URL), or neither to test the in-process reference implementation');
  if (external === 2 && !values['api-key']) throw new UsageError('--api-key (or TUSK_API_KEY) is required with --customer-url and --instance-url');
  if (external === 0 && values['api-key'] !== undefined) throw new UsageError('--api-key (or TUSK_API_KEY) needs --customer-url and --instance-url (the in-process reference implementation has its own key)');
  for (const name of ['customer-url', 'instance-url'] as const) {
    const v = values[name];
    if (v === undefined) continue;
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      throw new UsageError(`--${name} (or ${TEST_ENV[name]}) must be an http(s) URL, got "${v}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--${name} (or ${TEST_ENV[name]}) must be an http(s) URL, got "${v}"`);
  }
  if (values['role-keys'] !== undefined) {
    for (const part of values['role-keys'].split(',')) {
      if (part.trim() && !/^[^=]+=.+$/.test(part.trim())) throw new UsageError(`--role-keys (or TUSK_ROLE_KEYS) must look like 'monitor=KEY,billing manager=KEY', got "${part.trim()}"`);
    }
  }
  if (values['rate-limit'] !== undefined) {
    try {
      parseRateLimit(values['rate-limit']);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  return {
    customerUrl: values['customer-url'],
    instanceUrl: values['instance-url'],
    apiKey: values['api-key'],
    roleKeys: values['role-keys'],
    callbackHost: values['callback-host'],
    allowDestructive: values['allow-destructive'] === true,
    checkDatabases: values['check-databases'] === true,
    ...(values['rate-limit'] !== undefined ? { rateLimit: values['rate-limit'] } : {}),
    junit: values.junit,
    filters: positionals,
  };
}

/** The variables the harness reads (contract-tests/harness/target.ts). */
export function targetEnv(o: TestOptions): Record<string, string | undefined> {
  return {
    TUSK_CUSTOMER_URL: o.customerUrl,
    TUSK_INSTANCE_URL: o.instanceUrl,
    TUSK_API_KEY: o.apiKey,
    TUSK_ROLE_KEYS: o.roleKeys,
    TUSK_CALLBACK_HOST: o.callbackHost,
    TUSK_ALLOW_DESTRUCTIVE: o.allowDestructive ? '1' : undefined,
    TUSK_CHECK_DATABASES: o.checkDatabases ? '1' : undefined,
    TUSK_RATE_LIMIT: o.rateLimit,
  };
}

export const SUITE_DIR = join(PROJECT_ROOT, 'contract-tests');

/** Every test file of the suite (not the harness's own tests), relative to contract-tests/. */
export function suiteFiles(dir = SUITE_DIR): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((f) => f.split(sep).join('/'))
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('harness/'))
    .sort();
}

// ---------------------------------------------------------------------------------------------
// Reporting

/** What a failed test's error carries when it is a ContractViolation (after vitest serialised it). */
interface SerializedViolation {
  name?: string;
  message?: string;
  operation?: string;
  violations?: string[];
  request?: { method: string; path: string };
  declared?: string[];
  expected?: string;
  got?: string;
  stack?: string;
}

export interface Departure {
  operation: string;
  request?: string;
  expected: string;
  got: string;
  violations: string[];
  tests: string[];
}

export interface FileResult {
  file: string;
  group: Group;
  passed: number;
  failed: number;
  skipped: number;
  /** Errors outside any test (collection, hooks). */
  errors: number;
}

export interface RunSummary {
  files: FileResult[];
  departures: Departure[];
  /** Failures that are not departures from the contract (assertions, timeouts, errors of the suite). */
  failures: { test: string; message: string }[];
  /** Checks that could not decide (the runner or the target too slow to prove a timing rule): skipped with why. */
  inconclusive?: { test: string; note: string }[];
  unhandled: string[];
}

const firstLines = (text: string | undefined, n = 3) =>
  (text ?? '')
    .split('\n')
    .map((l) => l.trimEnd())
    .filter((l) => l.trim())
    .slice(0, n)
    .join('\n      ');

/** Collects results per file and names every departure; `print` writes progress lines. */
export class SuiteReporter implements Reporter {
  readonly summary: RunSummary = { files: [], departures: [], failures: [], unhandled: [], inconclusive: [] };
  private readonly byKey = new Map<string, Departure>();

  constructor(
    private readonly print: (line: string) => void,
    private readonly root: string = SUITE_DIR,
  ) {}

  private fileName(module: TestModule): string {
    return relative(this.root, module.moduleId).split(sep).join('/');
  }

  private record(test: string, err: SerializedViolation): void {
    if (err.name === 'ContractViolation' && err.operation) {
      const request = err.request ? `${err.request.method.toUpperCase()} ${err.request.path}` : undefined;
      const violations = (err.violations ?? []).map(String);
      const key = JSON.stringify([err.operation, request, err.expected, err.got, violations]);
      const existing = this.byKey.get(key);
      if (existing) existing.tests.push(test);
      else {
        const d: Departure = { operation: err.operation, request, expected: err.expected ?? 'a declared response', got: err.got ?? '?', violations, tests: [test] };
        this.byKey.set(key, d);
        this.summary.departures.push(d);
      }
      return;
    }
    this.summary.failures.push({ test, message: firstLines(err.message ?? String(err)) });
  }

  onTestModuleEnd(module: TestModule): void {
    const file = this.fileName(module);
    const result: FileResult = { file, group: groupOf(file), passed: 0, failed: 0, skipped: 0, errors: 0 };
    for (const test of module.children.allTests()) {
      const r = test.result();
      if (r.state === 'passed') result.passed++;
      else if (r.state === 'failed') {
        result.failed++;
        for (const e of r.errors) this.record(`${file} > ${(test as TestCase).fullName}`, e as SerializedViolation);
      } else {
        result.skipped++;
        const note = r.state === 'skipped' ? r.note : undefined;
        if (note?.startsWith('inconclusive')) this.summary.inconclusive!.push({ test: `${file} > ${(test as TestCase).fullName}`, note });
      }
    }
    const suiteErrors = [...module.errors(), ...[...module.children.allSuites()].flatMap((s) => [...s.errors()])];
    for (const e of suiteErrors) {
      result.errors++;
      this.record(`${file} (hooks)`, e as SerializedViolation);
    }
    this.summary.files.push(result);
    const ok = result.failed === 0 && result.errors === 0;
    const counts = [`${result.passed} passed`, ...(result.failed ? [`${result.failed} failed`] : []), ...(result.skipped ? [`${result.skipped} skipped`] : []), ...(result.errors ? [`${result.errors} errors outside tests`] : [])];
    this.print(`${ok ? 'PASS' : 'FAIL'}  ${`[${result.group}]`.padEnd(22)} ${file}  (${counts.join(', ')})`);
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<{ message?: string; name?: string }>): void {
    for (const e of unhandled) this.summary.unhandled.push(firstLines(`${e.name ?? 'Error'}: ${e.message ?? ''}`));
  }
}

/** The text of the final summary. */
export function formatSummary(s: RunSummary, notRun: string[], target: string): string {
  const out: string[] = [];
  const sum = (f: (r: FileResult) => number, rs = s.files) => rs.reduce((n, r) => n + f(r), 0);
  out.push('', `Conformance summary for ${target}`);
  for (const group of ['read-only', 'creates and removes', 'destructive'] as Group[]) {
    const rs = s.files.filter((r) => r.group === group);
    const skippedFiles = notRun.filter((f) => groupOf(f) === group);
    if (rs.length === 0) {
      out.push(`  ${group.padEnd(20)} ${skippedFiles.length ? `not run (${skippedFiles.length} files; pass --allow-destructive)` : 'no files'}`);
      continue;
    }
    const failedFiles = rs.filter((r) => r.failed || r.errors).length;
    out.push(`  ${group.padEnd(20)} ${rs.length} files (${failedFiles} failing): ${sum((r) => r.passed, rs)} tests passed, ${sum((r) => r.failed, rs)} failed, ${sum((r) => r.skipped, rs)} skipped`);
  }
  out.push(`  ${'total'.padEnd(20)} ${s.files.length} files: ${sum((r) => r.passed)} passed, ${sum((r) => r.failed)} failed, ${sum((r) => r.skipped)} skipped`);
  if (s.departures.length) {
    out.push('', `Departures from the contract (${s.departures.length}):`);
    s.departures.forEach((d, i) => {
      out.push(`  ${i + 1}. ${d.operation}${d.request ? `  ${d.request}` : ''}`);
      out.push(`     expected ${d.expected}; got ${d.got}`);
      for (const v of d.violations) out.push(`     - ${v}`);
      out.push(`     in ${d.tests[0]}${d.tests.length > 1 ? ` (and ${d.tests.length - 1} more)` : ''}`);
    });
  }
  if (s.inconclusive?.length) {
    out.push('', `Inconclusive checks (${s.inconclusive.length}; skipped, not departures):`);
    s.inconclusive.forEach((c, i) => out.push(`  ${i + 1}. ${c.test}`, `      ${c.note}`));
  }
  if (s.failures.length) {
    out.push('', `Other failures (${s.failures.length}):`);
    s.failures.forEach((f, i) => out.push(`  ${i + 1}. ${f.test}`, `      ${f.message}`));
  }
  if (s.unhandled.length) {
    out.push('', `Errors outside the tests (${s.unhandled.length}):`);
    s.unhandled.forEach((m, i) => out.push(`  ${i + 1}. ${m}`));
  }
  const stateful = s.departures.filter((d) => d.violations.some((v) => /stateful deployment/.test(v)));
  if (stateful.length) {
    out.push('', `NOTE: ${stateful.length} departures show that the target does not keep state (${[...new Set(stateful.map((d) => d.operation))].join(', ')}): those checks need a stateful deployment; a stateless mock cannot pass them.`);
  }
  const failed = failedRun(s);
  const undecided = s.inconclusive?.length ? ` (${s.inconclusive.length} inconclusive, listed above)` : '';
  out.push('', failed ? `RESULT: the target departs from the contract or failed checks (${s.departures.length} departures, ${s.failures.length} other failures)` : `RESULT: the target conforms to the contract in every check that ran${undecided}`);
  return out.join('\n');
}

export const failedRun = (s: RunSummary) => s.files.some((r) => r.failed > 0 || r.errors > 0) || s.unhandled.length > 0;

/** Names the keys given to the run that destructive tests rotated, and their replacements. */
export function rotationNote(o: TestOptions, stateDir: string): string {
  const file = join(stateDir, 'rotated-keys.json');
  if (!existsSync(file)) return '';
  const map = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  const current = (key: string) => {
    const seen = new Set<string>();
    while (map[key] && !seen.has(key)) {
      seen.add(key);
      key = map[key]!;
    }
    return key;
  };
  const given: [string, string][] = [
    ...(o.apiKey ? [['admin key (--api-key)', o.apiKey] as [string, string]] : []),
    ...(o.roleKeys ?? '').split(',').filter((p) => p.includes('=')).map((p) => [`${p.slice(0, p.indexOf('=')).trim()} key`, p.slice(p.indexOf('=') + 1).trim()] as [string, string]),
  ];
  const lines = given.filter(([, key]) => current(key) !== key).map(([name, key]) => `  ${name}: rotated; the current key is ${current(key)}`);
  return lines.length ? `\nKeys rotated by destructive tests (the keys given no longer work):\n${lines.join('\n')}` : '';
}

/** Runs the suite; returns the exit code. */
export async function runSuite(o: TestOptions, print: (line: string) => void = (l) => console.log(l)): Promise<number> {
  const files = suiteFiles();
  const selected = files.filter((f) => o.filters.length === 0 || o.filters.some((flt) => f.includes(flt)));
  const notRun = o.allowDestructive ? [] : selected.filter((f) => groupOf(f) === 'destructive');
  const toRun = selected.filter((f) => !notRun.includes(f));
  const external = Boolean(o.customerUrl);
  const target = external ? `customer API ${o.customerUrl}, instance API ${o.instanceUrl}` : 'the in-process reference implementation';
  if (toRun.length === 0) {
    print(`tusk test: no test files to run${o.filters.length ? ` (filters: ${o.filters.join(', ')})` : ''}`);
    return 1;
  }
  // Keys the suite rotates (destructive tests) are recorded here, for later files and the summary.
  const stateDir = mkdtempSync(join(tmpdir(), 'tusk-test-'));
  for (const [k, v] of Object.entries({ ...targetEnv(o), TUSK_STATE_DIR: stateDir })) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  print(`tusk test: ${toRun.length} test files against ${target}${notRun.length ? `; ${notRun.length} destructive files left out (--allow-destructive)` : ''}`);

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
      fileParallelism: !external,
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
  rmSync(stateDir, { recursive: true, force: true });
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
  const code = await runSuite(options);
  process.exitCode = code;
  // vitest may leave handles (workers, sockets of the target) open: exit explicitly.
  setTimeout(() => process.exit(code), 200).unref();
}
