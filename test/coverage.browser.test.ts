// The coverage page as a person sees it (issue 19): headless Chromium opens the HTML that
// `--coverage FILE` writes, made from the report of real traffic, and finds per interface the
// summary with its percentages, the never-exercised operations first, and no request leaving the
// page (it is self-contained). A missing Chromium fails this test: it never skips.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { createTusk } from '../src/server.js';
import { writeCoverageFiles } from '../src/openapi/coverage-render.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];
const dir = mkdtempSync(join(tmpdir(), 'tusk-coverage-browser-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('shows the summary per interface with its percentages, never-exercised operations first, and loads nothing', async () => {
  expect(
    existsSync(CHROMIUM),
    `${CHROMIUM} is missing (apt-get install -y --no-install-recommends chromium; .ci/run installs it)`,
  ).toBe(true);
  const tusk = await createTusk({ log: 'off' });
  const auth = { authorization: `Basic ${Buffer.from(`:${tusk.registry.adminKey}`).toString('base64')}` };
  await tusk.customer.fetch(new Request('http://tusk/api/plans', { headers: auth }));
  await tusk.customer.fetch(new Request('http://tusk/api/regions', { headers: auth }));
  await tusk.customer.fetch(new Request('http://tusk/api/regions'));
  const report = tusk.registry.coverage.report();
  await tusk.control.close();
  const [, html] = writeCoverageFiles(join(dir, 'coverage.json'), report);

  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage();
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    await page.goto(pathToFileURL(html).href);
    const customer = report.interfaces.customer;
    await expect
      .poll(() => page.textContent('[data-interface="customer"]'))
      .toContain(
        `${customer.operations_exercised} of ${customer.operations} operations exercised (${customer.operations_percent} %)`,
      );
    expect(await page.textContent('[data-interface="instance"]')).toContain(
      `0 of ${report.interfaces.instance.operations} operations exercised (0 %)`,
    );
    const rows = await page.$$eval('#customer tbody tr', (trs) =>
      trs.map((tr) => ({ state: tr.className, id: tr.querySelector('code')!.textContent })),
    );
    expect(rows.length).toBe(customer.operations);
    expect(rows[0]!.state).toBe('never');
    expect(
      rows
        .slice(-2)
        .map((r) => r.id)
        .sort(),
    ).toEqual(['listPlans', 'listRegions']);
    expect(await page.textContent('#customer tr:has(code:text-is("listRegions"))')).toMatch(/200 ×1.*401 ×1/s);
    expect(requests).toEqual([pathToFileURL(html).href]);
  } finally {
    await browser.close();
  }
});
