// The coverage report (coverage.ts) for people: a table for the terminal (`tusk coverage`) and a
// self-contained HTML page (`--coverage FILE`): per interface the share of operations and of
// documented statuses exercised, then every operation with the statuses seen and never seen, the
// never-exercised first, then the traffic outside the contract.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { CoverageReport, InterfaceCoverage, OperationCoverage } from './coverage-recorder.js';
import { html, text } from '../core/html.js';

const INTERFACES = ['customer', 'instance'] as const;

const statusCell = (s: { status: string; count: number }) =>
  s.count > 0 ? `${s.status} ok (${s.count})` : `${s.status} never`;

/** One line per operation: `getAlarm  GET /api/alarms/{id}  200 ok (3), 401 ok (1), 404 never`. */
export function coverageTable(report: CoverageReport): string {
  const out: string[] = [];
  out.push(`API coverage${report.account ? ` of account ${report.account}` : ''}: ${report.requests} requests`);
  for (const api of INTERFACES) {
    const c = report.interfaces[api];
    out.push(
      '',
      `${api} interface: ${c.operations_exercised} of ${c.operations} operations (${c.operations_percent} %), ${c.statuses_exercised} of ${c.statuses} documented statuses (${c.statuses_percent} %)`,
    );
    const width = Math.max(...c.by_operation.map((o) => o.operation_id.length));
    for (const op of c.by_operation) {
      const cells = op.statuses.map(statusCell);
      for (const u of op.undocumented) cells.push(`${u.status} UNDOCUMENTED (${u.count})`);
      out.push(`  ${op.operation_id.padEnd(width)}  ${cells.join(', ')}`);
    }
  }
  if (report.outside.length) {
    out.push('', 'outside the contract:');
    for (const o of report.outside) out.push(`  ${o.api} ${o.method} ${o.path} ${o.status} (${o.count})`);
  }
  return out.join('\n') + '\n';
}

function operationRow(op: OperationCoverage) {
  const cells = [
    ...op.statuses.map(
      (s) =>
        html`<span class="${s.count > 0 ? 'seen' : 'never'}">${s.status}${s.count > 0 ? html` &times;${s.count}` : ' never'}</span>`,
    ),
    ...op.undocumented.map((u) => html`<span class="undocumented">${u.status} undocumented &times;${u.count}</span>`),
  ];
  const state =
    op.statuses.every((s) => s.count === 0) && op.undocumented.length === 0
      ? 'never'
      : op.statuses.some((s) => s.count === 0)
        ? 'partly'
        : 'all';
  return html`<tr class="${state}"><td><code>${op.operation_id}</code></td><td><code>${op.method} ${op.path}</code></td><td>${cells.map((cell, i) => (i ? [' ', cell] : cell))}</td></tr>`;
}

function interfaceSection(api: string, c: InterfaceCoverage) {
  return html`<section id="${api}">
<h2>${api} interface</h2>
<p class="summary" data-interface="${api}"><strong>${c.operations_exercised} of ${c.operations}</strong> operations exercised (<span class="percent">${c.operations_percent} %</span>), <strong>${c.statuses_exercised} of ${c.statuses}</strong> documented statuses (${c.statuses_percent} %).</p>
<table><thead><tr><th>operation</th><th>request</th><th>statuses</th></tr></thead><tbody>
${c.by_operation.map((op, i) => (i ? ['\n', operationRow(op)] : operationRow(op)))}
</tbody></table>
</section>`;
}

/** A self-contained HTML page (no script, no external resource). */
export function coverageHtml(report: CoverageReport, generatedAt = new Date()): string {
  const outside = report.outside.length
    ? html`<section id="outside"><h2>Outside the contract</h2><table><thead><tr><th>interface</th><th>request</th><th>status</th><th>count</th></tr></thead><tbody>${report.outside.map(
        (o) =>
          html`<tr><td>${o.api}</td><td><code>${o.method} ${o.path}</code></td><td>${o.status}</td><td>${o.count}</td></tr>`,
      )}</tbody></table></section>`
    : '';
  return text(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tusk API coverage</title>
<style>
body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}
table{border-collapse:collapse;width:100%;margin-bottom:2rem}
th,td{border-bottom:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
tr.never td:first-child{border-left:4px solid #c0392b}tr.partly td:first-child{border-left:4px solid #e67e22}tr.all td:first-child{border-left:4px solid #27ae60}
span{display:inline-block;margin:0 .3rem .2rem 0;padding:0 .35rem;border-radius:3px}
.seen{background:#d5f5e3}.never{background:#fadbd8}.undocumented{background:#f9e79f}
</style></head><body>
<h1>API coverage${report.account ? html` of account <code>${report.account}</code>` : ''}</h1>
<p>${report.requests} requests, as of ${generatedAt.toISOString()}. Operations never exercised come first, then those with statuses never seen.</p>
${INTERFACES.map((api, i) => (i ? ['\n', interfaceSection(api, report.interfaces[api])] : interfaceSection(api, report.interfaces[api])))}
${outside}
</body></html>
`);
}

/** Writes a report as JSON to `file` and as HTML beside it (`x.json` -> `x.html`, else `file.html`); returns both paths. */
export function writeCoverageFiles(file: string, report: CoverageReport): [string, string] {
  const json = resolve(file);
  const html = /\.json$/i.test(json) ? json.replace(/\.json$/i, '.html') : `${json}.html`;
  mkdirSync(dirname(json), { recursive: true });
  writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
  writeFileSync(html, coverageHtml(report));
  return [json, html];
}
