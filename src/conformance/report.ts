// The report of a `tusk test` run: a vitest reporter of our own that prints one progress line per
// test file and collects the results, naming every departure from the contract once (with the
// tests that saw it), the inconclusive checks and the other failures; the text of the final
// summary; whether the run failed; and the note on keys that destructive tests rotated.
import { existsSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import type { Reporter, TestCase, TestModule } from 'vitest/node';
import type { TestOptions } from './args.js';
import { groupOf, SUITE_DIR, type Group } from './suite.js';

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
        const d: Departure = {
          operation: err.operation,
          request,
          expected: err.expected ?? 'a declared response',
          got: err.got ?? '?',
          violations,
          tests: [test],
        };
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
        if (note?.startsWith('inconclusive'))
          this.summary.inconclusive!.push({ test: `${file} > ${(test as TestCase).fullName}`, note });
      }
    }
    const suiteErrors = [...module.errors(), ...[...module.children.allSuites()].flatMap((s) => [...s.errors()])];
    for (const e of suiteErrors) {
      result.errors++;
      this.record(`${file} (hooks)`, e as SerializedViolation);
    }
    this.summary.files.push(result);
    const ok = result.failed === 0 && result.errors === 0;
    const counts = [
      `${result.passed} passed`,
      ...(result.failed ? [`${result.failed} failed`] : []),
      ...(result.skipped ? [`${result.skipped} skipped`] : []),
      ...(result.errors ? [`${result.errors} errors outside tests`] : []),
    ];
    this.print(`${ok ? 'PASS' : 'FAIL'}  ${`[${result.group}]`.padEnd(22)} ${file}  (${counts.join(', ')})`);
  }

  onTestRunEnd(
    _modules: ReadonlyArray<TestModule>,
    unhandled: ReadonlyArray<{ message?: string; name?: string }>,
  ): void {
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
      out.push(
        `  ${group.padEnd(20)} ${skippedFiles.length ? `not run (${skippedFiles.length} files; pass --allow-destructive)` : 'no files'}`,
      );
      continue;
    }
    const failedFiles = rs.filter((r) => r.failed || r.errors).length;
    out.push(
      `  ${group.padEnd(20)} ${rs.length} files (${failedFiles} failing): ${sum((r) => r.passed, rs)} tests passed, ${sum((r) => r.failed, rs)} failed, ${sum((r) => r.skipped, rs)} skipped`,
    );
  }
  out.push(
    `  ${'total'.padEnd(20)} ${s.files.length} files: ${sum((r) => r.passed)} passed, ${sum((r) => r.failed)} failed, ${sum((r) => r.skipped)} skipped`,
  );
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
    out.push(
      '',
      `NOTE: ${stateful.length} departures show that the target does not keep state (${[...new Set(stateful.map((d) => d.operation))].join(', ')}): those checks need a stateful deployment; a stateless mock cannot pass them.`,
    );
  }
  const failed = failedRun(s);
  const undecided = s.inconclusive?.length ? ` (${s.inconclusive.length} inconclusive, listed above)` : '';
  out.push(
    '',
    failed
      ? `RESULT: the target departs from the contract or failed checks (${s.departures.length} departures, ${s.failures.length} other failures)`
      : `RESULT: the target conforms to the contract in every check that ran${undecided}`,
  );
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
    ...(o.roleKeys ?? '')
      .split(',')
      .filter((p) => p.includes('='))
      .map((p) => [`${p.slice(0, p.indexOf('=')).trim()} key`, p.slice(p.indexOf('=') + 1).trim()] as [string, string]),
  ];
  const lines = given
    .filter(([, key]) => current(key) !== key)
    .map(([name, key]) => `  ${name}: rotated; the current key is ${current(key)}`);
  return lines.length
    ? `\nKeys rotated by destructive tests (the keys given no longer work):\n${lines.join('\n')}`
    : '';
}
