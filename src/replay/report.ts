// The report of a `tusk replay` run, as `tusk test` reports (src/conformance/report.ts): one line
// per exchange as it is done, then every departure numbered with what was recorded and what came,
// the skipped exchanges, and a RESULT line; and the same as JUnit XML (one test case per exchange,
// a failure per exchange that departed, skipped ones skipped).
import { html, text } from '../core/html.js';
import type { ExchangeResult } from './replay.js';

const label = (r: ExchangeResult) =>
  `#${r.index + 1} ${r.method} ${r.path}${r.operationId ? ` (${r.operationId})` : ''}`;

/** The line printed once an exchange is done. */
export function progressLine(r: ExchangeResult): string {
  if (r.skipped) return `SKIP    ${label(r)}: ${r.skipped}`;
  const status = r.status === undefined ? 'no answer' : `${r.status}`;
  return `${r.departures.length ? 'DEPART' : 'ok    '}  ${label(r)}  ${status}${r.departures.length ? `  (${r.departures.length} departures)` : ''}`;
}

/** The summary after the run. */
export function formatReplaySummary(results: readonly ExchangeResult[], file: string, target: string): string {
  const departed = results.filter((r) => r.departures.length);
  const skipped = results.filter((r) => r.skipped);
  const sent = results.length - skipped.length;
  const count = departed.reduce((n, r) => n + r.departures.length, 0);
  const out = ['', `Replay of ${file} against ${target}`];
  out.push(
    `  ${results.length} exchanges: ${sent - departed.length} as recorded, ${departed.length} departing, ${skipped.length} skipped`,
  );
  if (departed.length) {
    out.push('', `Departures (${count}):`);
    let n = 0;
    for (const r of departed) {
      out.push(`  ${label(r)}${r.sent && r.sent !== r.path ? `  sent as ${r.sent}` : ''}`);
      for (const d of r.departures) out.push(`    ${++n}. ${d.kind}${d.field ? ` ${d.field}` : ''}: ${d.message}`);
    }
  }
  if (skipped.length) {
    out.push('', `Skipped (${skipped.length}; not departures):`);
    for (const r of skipped) out.push(`  ${label(r)}: ${r.skipped}`);
  }
  out.push(
    '',
    count
      ? `RESULT: the target departs from the recording (${count} departures in ${departed.length} exchanges)`
      : `RESULT: the target answers as recorded in every exchange sent (${sent})`,
  );
  return out.join('\n');
}

/** JUnit XML: one test suite, a test case per exchange. */
export function replayJunit(results: readonly ExchangeResult[], file: string): string {
  const cases = results.map((r) => {
    const inner = r.skipped
      ? html`<skipped message="${r.skipped}"/>`
      : r.departures.length
        ? html`<failure message="${r.departures.length} departure(s)">${r.departures.map((d) => `${d.kind}${d.field ? ` ${d.field}` : ''}: ${d.message}`).join('\n')}</failure>`
        : '';
    return text(html`    <testcase classname="${r.api ?? 'none'}" name="${label(r)}">${inner}</testcase>`);
  });
  const failures = results.filter((r) => r.departures.length).length;
  const skipped = results.filter((r) => r.skipped).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="tusk replay">\n${text(html`  <testsuite name="tusk replay ${file}" tests="${results.length}" failures="${failures}" skipped="${skipped}">`)}\n${cases.join('\n')}\n  </testsuite>\n</testsuites>\n`;
}
