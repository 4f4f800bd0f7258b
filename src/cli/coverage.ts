// `tusk coverage`: prints what the clients' requests exercised on a running stand-in or proxy, read
// from its GET /__tusk/coverage, as a table (or the JSON report with --json).
import type { CoverageReport } from '../openapi/coverage-recorder.js';
import { coverageTable } from '../openapi/coverage-render.js';
import { fail } from './fail.js';
import { helpOf, readFlags, UsageError } from './flags.js';
import { COVERAGE } from './tables/index.js';

export const COVERAGE_HELP = helpOf(COVERAGE);

export async function coverageCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = readFlags(COVERAGE, args));
  } catch (err) {
    if (err instanceof UsageError) fail(`${err.message}\n\n${COVERAGE_HELP}`);
    throw err;
  }
  if (values.help) {
    process.stdout.write(COVERAGE_HELP);
    return;
  }
  const base = ((values.url as string | undefined) ?? 'http://127.0.0.1:4010').replace(/\/+$/, '');
  const url = new URL(`${base}/__tusk/coverage`);
  if (values.account) url.searchParams.set('account', values.account as string);
  const headers: Record<string, string> = values.key
    ? { authorization: `Basic ${Buffer.from(`:${values.key as string}`).toString('base64')}` }
    : {};
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    const cause = (err as Error).cause;
    fail(`cannot reach ${url.origin}: ${cause instanceof Error ? cause.message : (err as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) fail(`${url.href} answered ${res.status}: ${text.slice(0, 300)}`);
  const report = JSON.parse(text) as CoverageReport;
  process.stdout.write(values.json ? JSON.stringify(report, null, 2) + '\n' : coverageTable(report));
}
