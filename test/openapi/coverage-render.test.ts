// The coverage report for people (src/openapi/coverage-render.ts): the terminal table of
// `tusk coverage` and the HTML page of `--coverage FILE`, from a report whose figures are known,
// and where the two files are written.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { coverageHtml, coverageTable, writeCoverageFiles } from '../../src/openapi/coverage-render.js';
import type { CoverageReport } from '../../src/openapi/coverage-recorder.js';
import { tempDir } from '../support/temp.js';

const REPORT: CoverageReport = {
  account: 'acc-1',
  requests: 7,
  interfaces: {
    customer: {
      operations: 2,
      operations_exercised: 1,
      statuses: 4,
      statuses_exercised: 2,
      operations_percent: 50,
      statuses_percent: 50,
      by_operation: [
        {
          operation_id: 'listPlans',
          method: 'GET',
          path: '/api/plans',
          statuses: [
            { status: '200', count: 0 },
            { status: '401', count: 0 },
          ],
          undocumented: [],
        },
        {
          operation_id: 'getInstance',
          method: 'GET',
          path: '/api/instances/{id}',
          statuses: [
            { status: '200', count: 3 },
            { status: '404', count: 1 },
          ],
          undocumented: [{ status: '418', count: 2 }],
        },
      ],
    },
    instance: {
      operations: 1,
      operations_exercised: 1,
      statuses: 2,
      statuses_exercised: 1,
      operations_percent: 100,
      statuses_percent: 50,
      by_operation: [
        {
          operation_id: 'getAlarm',
          method: 'GET',
          path: '/api/alarms/{id}',
          statuses: [
            { status: '200', count: 1 },
            { status: '404', count: 0 },
          ],
          undocumented: [],
        },
      ],
    },
  },
  outside: [{ api: 'customer', method: 'GET', path: '/api/<nowhere>&', status: 404, count: 1 }],
};

describe('coverageTable', () => {
  it('prints per interface the shares, then per operation the statuses seen and never seen, then the traffic outside the contract', () => {
    expect(coverageTable(REPORT)).toBe(
      [
        'API coverage of account acc-1: 7 requests',
        '',
        'customer interface: 1 of 2 operations (50 %), 2 of 4 documented statuses (50 %)',
        '  listPlans    200 never, 401 never',
        '  getInstance  200 ok (3), 404 ok (1), 418 UNDOCUMENTED (2)',
        '',
        'instance interface: 1 of 1 operations (100 %), 1 of 2 documented statuses (50 %)',
        '  getAlarm  200 ok (1), 404 never',
        '',
        'outside the contract:',
        '  customer GET /api/<nowhere>& 404 (1)',
        '',
      ].join('\n'),
    );
  });

  it('names no account for the report of all traffic, and lists nothing outside when there is nothing', () => {
    const { account: _account, ...all } = REPORT;
    const text = coverageTable({ ...all, outside: [] });
    expect(text.split('\n')[0]).toBe('API coverage: 7 requests');
    expect(text).not.toContain('outside the contract');
  });
});

describe('coverageHtml', () => {
  // Rendered in each test, not while the file is collected: the mutation run switches a mutant on
  // only once the file's hooks start.
  let html: string;
  beforeEach(() => {
    html = coverageHtml(REPORT, new Date('2026-11-24T12:00:00Z'));
  });

  it('is a self-contained page: no script, no external resource', () => {
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|src=|href=/i);
    expect(html).toContain('<h1>API coverage of account <code>acc-1</code></h1>');
    expect(html).toContain('<p>7 requests, as of 2026-11-24T12:00:00.000Z.');
    const { account: _account, ...all } = REPORT;
    expect(coverageHtml(all)).toContain('<h1>API coverage</h1>');
  });

  it('shows the interfaces one after the other, each operation a row of its own', () => {
    expect(html).toContain('</section>\n<section id="instance">');
    expect(html.match(/<section id="customer">[^]*?<\/section>/)![0]).toContain(
      '</tr>\n<tr class="all"><td><code>getInstance</code>',
    );
  });

  it("shows each interface's summary with its percentages", () => {
    expect(html).toContain(
      '<p class="summary" data-interface="customer"><strong>1 of 2</strong> operations exercised (<span class="percent">50 %</span>), <strong>2 of 4</strong> documented statuses (50 %).</p>',
    );
    expect(html).toContain(
      '<p class="summary" data-interface="instance"><strong>1 of 1</strong> operations exercised (<span class="percent">100 %</span>), <strong>1 of 2</strong> documented statuses (50 %).</p>',
    );
  });

  it('marks each operation never, partly or all exercised, and each status seen, never or undocumented', () => {
    expect(html).toContain(
      '<tr class="never"><td><code>listPlans</code></td><td><code>GET /api/plans</code></td><td><span class="never">200 never</span> <span class="never">401 never</span></td></tr>',
    );
    expect(html).toContain(
      '<tr class="partly"><td><code>getAlarm</code></td><td><code>GET /api/alarms/{id}</code></td><td><span class="seen">200 &times;1</span> <span class="never">404 never</span></td></tr>',
    );
    expect(html).toContain(
      '<tr class="all"><td><code>getInstance</code></td><td><code>GET /api/instances/{id}</code></td><td><span class="seen">200 &times;3</span> <span class="seen">404 &times;1</span> <span class="undocumented">418 undocumented &times;2</span></td></tr>',
    );
  });

  it('lists the traffic outside the contract, escaped', () => {
    expect(html).toContain('<section id="outside"><h2>Outside the contract</h2>');
    expect(html).toContain(
      '<tr><td>customer</td><td><code>GET /api/&lt;nowhere&gt;&amp;</code></td><td>404</td><td>1</td></tr>',
    );
    expect(coverageHtml({ ...REPORT, outside: [] })).not.toContain('id="outside"');
    expect(coverageHtml({ ...REPORT, outside: [] })).toMatch(/<\/section>\n\n<\/body><\/html>\n$/);
  });

  it('escapes what it shows of an account id', () => {
    expect(coverageHtml({ ...REPORT, account: '<a href="x">' })).toContain('<code>&lt;a href=&quot;x&quot;&gt;</code>');
  });
});

describe('writeCoverageFiles', () => {
  it('writes FILE.json as JSON and FILE.html beside it, making the folder', () => {
    const dir = tempDir('tusk-coverage-files-');
    const [json, html] = writeCoverageFiles(join(dir, 'sub', 'coverage.json'), REPORT);
    expect([json, html]).toEqual([join(dir, 'sub', 'coverage.json'), join(dir, 'sub', 'coverage.html')]);
    expect(JSON.parse(readFileSync(json, 'utf8'))).toEqual(REPORT);
    expect(readFileSync(html, 'utf8')).toContain('data-interface="customer"');
  });

  it('adds .html to a name without .json at its end, and replaces only the last .json', () => {
    const dir = tempDir('tusk-coverage-files-');
    const [json, html] = writeCoverageFiles(join(dir, 'report'), REPORT);
    expect(html).toBe(`${json}.html`);
    expect(writeCoverageFiles(join(dir, 'report.jsonl'), REPORT)[1]).toBe(join(dir, 'report.jsonl.html'));
    expect(writeCoverageFiles(join(dir, 'a.json.JSON'), REPORT)[1]).toBe(join(dir, 'a.json.html'));
    expect(readFileSync(json, 'utf8').endsWith('}\n')).toBe(true);
  });
});
