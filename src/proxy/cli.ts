// `tusk proxy`: the validating proxy (proxy.ts) as a command. On SIGINT/SIGTERM it writes the
// reports asked for (--report JSON, --junit XML, --coverage JSON and HTML) and exits 1 when a
// departure was seen and --fail-on-departure is given (for CI), else 0. --record FILE appends every
// exchange to FILE as HAR 1.2, secrets redacted unless --record-secrets (src/record/).
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadDocuments } from '../openapi/documents.js';
import { writeCoverageFiles } from '../openapi/coverage-render.js';
import { ValidatingProxy, type ReportedDeparture } from './proxy.js';
import { html, text } from '../core/html.js';
import { ExchangeRecorder } from '../record/recorder.js';
import { packageVersion } from '../openapi/documents.js';

export const PROXY_HELP = `Usage: tusk proxy --customer-target URL --instance-target URL [flags]

Listens on two ports and forwards every request to the deployment unchanged, and every answer
back unchanged, checking each exchange against the documents: the request (operation, the form
of the credentials, parameters, body: the client's departures) and the answer (declared status,
content type, body schema, required headers: the server's departures). Each departure is logged
as one line (never a key or a body) and listed at GET /__tusk/departures on either port; API
coverage of the traffic is at GET /__tusk/coverage (tusk coverage --url).

Flags:
  --customer-target URL   the customer API to forward to (required)
  --instance-target URL   the instance API to forward to (required)
  --customer-port PORT    port for the customer API (default 4020; 0: any free port)
  --instance-port PORT    port for the instance API (default 4021; 0: any free port)
  --host HOST             address to listen on (default 127.0.0.1)
  --annotate              name an exchange's departures in a Tusk-Departures response header
  --strict                refuse a request that departs with the stand-in's answer (400 naming
                          field and rule, 401, 404) instead of forwarding it
  --report FILE           on exit, write every departure as JSON
  --junit FILE            on exit, write a JUnit XML report (one test case per operation seen)
  --coverage FILE         on exit, write the API coverage as JSON to FILE and as HTML beside it
  --fail-on-departure     exit with code 1 on shutdown when a departure was seen
  --record FILE           append every exchange to FILE as HAR 1.2 as it happens (the file is
                          a whole HAR document after each entry; an existing FILE is replaced).
                          Secrets are redacted: the Authorization header's key, apikey, password
                          and integration key fields (JSON, form, query), passwords in URLs and
                          URL signatures, each a placeholder <redacted:KIND:N> that stands for
                          the same secret throughout the file
  --record-secrets        keep the secrets in the recording (with a warning)
  -h, --help              this help
`;

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

export async function proxyCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        'customer-target': { type: 'string' },
        'instance-target': { type: 'string' },
        'customer-port': { type: 'string' },
        'instance-port': { type: 'string' },
        host: { type: 'string' },
        annotate: { type: 'boolean' },
        strict: { type: 'boolean' },
        report: { type: 'string' },
        junit: { type: 'string' },
        coverage: { type: 'string' },
        'fail-on-departure': { type: 'boolean' },
        record: { type: 'string' },
        'record-secrets': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    fail(`${(err as Error).message}\n\n${PROXY_HELP}`);
  }
  if (values.help) {
    process.stdout.write(PROXY_HELP);
    return;
  }
  const target = (name: 'customer-target' | 'instance-target') => {
    const v = values[name];
    if (!v) fail(`--${name} is required\n\n${PROXY_HELP}`);
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      fail(`--${name} must be an http(s) URL, got "${v}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`--${name} must be an http(s) URL, got "${v}"`);
    return url.href.replace(/\/$/, '');
  };
  const port = (name: 'customer-port' | 'instance-port', fallback: number) => {
    const v = values[name];
    if (v === undefined) return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < 0 || n > 65535) fail(`--${name} must be an integer from 0 to 65535, got "${v}"`);
    return n;
  };
  if (values['record-secrets'] && !values.record) fail('--record-secrets needs --record FILE');
  if (values.record === '') fail('--record needs a file name');
  let recorder: ExchangeRecorder | undefined;
  try {
    if (values.record)
      recorder = new ExchangeRecorder(values.record, {
        secrets: Boolean(values['record-secrets']),
        creator: { name: 'tusk proxy', version: packageVersion() },
      });
  } catch (err) {
    fail(`cannot write --record ${values.record}: ${(err as Error).message}`);
  }
  const proxy = new ValidatingProxy({
    documents: await loadDocuments(),
    targets: { customer: target('customer-target'), instance: target('instance-target') },
    ports: { customer: port('customer-port', 4020), instance: port('instance-port', 4021) },
    ...(values.host ? { host: values.host } : {}),
    annotate: Boolean(values.annotate),
    strict: Boolean(values.strict),
    ...(recorder ? { recorder } : {}),
  });
  try {
    await proxy.listen();
  } catch (err) {
    fail(`cannot listen: ${(err as Error).message}`);
  }
  console.log(`tusk proxy: customer API   ${proxy.urls.customer} -> ${target('customer-target')}`);
  console.log(`tusk proxy: instance API   ${proxy.urls.instance} -> ${target('instance-target')}`);
  console.log(
    `tusk proxy: departures     ${proxy.urls.customer}/__tusk/departures${values.strict ? ' (strict: departing requests are refused)' : ''}`,
  );
  if (recorder) {
    console.log(
      `tusk proxy: recording      ${recorder.path} (HAR 1.2, ${values['record-secrets'] ? 'secrets kept' : 'secrets redacted'})`,
    );
    if (values['record-secrets'])
      console.error(
        `tusk proxy: warning: --record-secrets: ${recorder.path} holds API keys, passwords and integration keys in clear; keep it private and out of version control`,
      );
  }
  console.log('tusk proxy: ready');
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
    process.exit(values['fail-on-departure'] && proxy.departureCount > 0 ? 1 : 0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
