// `tusk proxy`: the validating proxy (proxy.ts) as a command. On SIGINT/SIGTERM it writes the
// reports asked for (--report JSON, --junit XML, --coverage JSON and HTML) and exits 1 when a
// departure was seen and --fail-on-departure is given (for CI), else 0. --record FILE appends every
// exchange to FILE as HAR 1.2, secrets redacted unless --record-secrets (src/record/).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadDocuments } from '../openapi/documents.js';
import { writeCoverageFiles } from '../openapi/coverage-render.js';
import { ValidatingProxy, type ReportedDeparture } from './proxy.js';
import { html, text } from '../core/html.js';
import { ExchangeRecorder } from '../record/recorder.js';
import { packageVersion } from '../openapi/documents.js';

/** The command's flags, read by the `tusk` command from its table (src/cli/tables.ts, PROXY). */
export interface ProxyCommandOptions {
  customerTarget: string;
  instanceTarget: string;
  customerPort: number;
  instancePort: number;
  host?: string;
  annotate: boolean;
  strict: boolean;
  report?: string;
  junit?: string;
  coverage?: string;
  failOnDeparture: boolean;
  /** Append every exchange to this file as HAR. */
  record?: string;
  /** Keep the secrets in the recording. */
  recordSecrets?: boolean;
}

function fail(message: string): never {
  console.error(`tusk proxy: ${message}`);
  process.exit(2);
}

/** JUnit XML: per interface a test suite, per operation seen a test case failing with its departures. */
export function junitReport(proxy: ValidatingProxy): string {
  const suites: string[] = [];
  for (const api of ['customer', 'instance'] as const) {
    const coverage = proxy.coverage.report().interfaces[api];
    const seen = coverage.by_operation.filter((o) => o.statuses.some((s) => s.count > 0) || o.undocumented.length > 0);
    const byOp = new Map<string, ReportedDeparture[]>();
    for (const d of proxy.departures)
      if (d.api === api)
        byOp.set(d.operation_id ?? '(no operation)', [...(byOp.get(d.operation_id ?? '(no operation)') ?? []), d]);
    const names = [...new Set([...seen.map((o) => o.operation_id), ...byOp.keys()])];
    const cases = names.map((name) => {
      const found = byOp.get(name) ?? [];
      const failure = found.length
        ? html`<failure message="${found.length} departure(s)">${found.map((d) => `${d.side} ${d.method} ${d.path}${d.status !== undefined ? ` ${d.status}` : ''}: ${d.field ? `${d.field}: ` : ''}rule ${d.rule}: ${d.message}`).join('\n')}</failure>`
        : '';
      return text(html`    <testcase classname="${api}" name="${name}">${failure}</testcase>`);
    });
    const failures = names.filter((n) => byOp.has(n)).length;
    suites.push(
      `  <testsuite name="tusk proxy ${api}" tests="${names.length}" failures="${failures}">\n${cases.join('\n')}\n  </testsuite>`,
    );
  }
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="tusk proxy">\n${suites.join('\n')}\n</testsuites>\n`;
}

function write(file: string, text: string): string {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  return path;
}

export async function proxyCommand(values: ProxyCommandOptions): Promise<void> {
  const target = (url: string) => url.replace(/\/$/, '');
  if (values.recordSecrets && !values.record) fail('--record-secrets needs --record FILE');
  let recorder: ExchangeRecorder | undefined;
  try {
    if (values.record)
      recorder = new ExchangeRecorder(values.record, {
        secrets: Boolean(values.recordSecrets),
        creator: { name: 'tusk proxy', version: packageVersion() },
      });
  } catch (err) {
    fail(`cannot write --record ${values.record}: ${(err as Error).message}`);
  }
  const proxy = new ValidatingProxy({
    documents: await loadDocuments(),
    targets: { customer: target(values.customerTarget), instance: target(values.instanceTarget) },
    ports: { customer: values.customerPort, instance: values.instancePort },
    ...(values.host ? { host: values.host } : {}),
    annotate: values.annotate,
    strict: values.strict,
    ...(recorder ? { recorder } : {}),
  });
  try {
    await proxy.listen();
  } catch (err) {
    fail(`cannot listen: ${(err as Error).message}`);
  }
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(
      `tusk proxy: ${signal}, ${proxy.exchanges} exchanges, ${proxy.departureCount} departures${recorder ? `, ${recorder.count} recorded` : ''}`,
    );
    await proxy.close();
    try {
      if (values.report)
        console.log(
          `tusk proxy: report         ${write(values.report, JSON.stringify({ exchanges: proxy.exchanges, count: proxy.departureCount, departures: proxy.departures }, null, 2) + '\n')}`,
        );
      if (values.junit) console.log(`tusk proxy: junit          ${write(values.junit, junitReport(proxy))}`);
      if (values.coverage)
        console.log(
          `tusk proxy: coverage       ${writeCoverageFiles(values.coverage, proxy.coverage.report()).join(', ')}`,
        );
    } catch (err) {
      console.error(`tusk proxy: cannot write a report: ${(err as Error).message}`);
      process.exit(2);
    }
    process.exit(values.failOnDeparture && proxy.departureCount > 0 ? 1 : 0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  // Printed once the handlers are installed: a SIGTERM sent on reading `ready` must meet them.
  console.log(`tusk proxy: customer API   ${proxy.urls.customer} -> ${target(values.customerTarget)}`);
  console.log(`tusk proxy: instance API   ${proxy.urls.instance} -> ${target(values.instanceTarget)}`);
  console.log(
    `tusk proxy: departures     ${proxy.urls.customer}/__tusk/departures${values.strict ? ' (strict: departing requests are refused)' : ''}`,
  );
  if (recorder) {
    console.log(
      `tusk proxy: recording      ${recorder.path} (HAR 1.2, ${values.recordSecrets ? 'secrets kept' : 'secrets redacted'})`,
    );
    if (values.recordSecrets)
      console.error(
        `tusk proxy: warning: --record-secrets: ${recorder.path} holds API keys, passwords and integration keys in clear; keep it private and out of version control`,
      );
  }
  console.log('tusk proxy: ready');
}
