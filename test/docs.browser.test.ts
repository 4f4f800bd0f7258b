// The API reference as a person sees it: headless Chromium (Debian's `chromium` package, installed by
// .ci/run) opens /docs on each port of a running Tusk and the static build of `npm run docs`, and
// proves that every operation of the document is listed, that a schema renders, and that no request
// leaves for anything but the page's own origin. A missing Chromium fails this test: it never skips.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTusk, type RunningTusk } from '../src/server.js';
import { INTERFACES, type InterfaceName, type OpenApiDocument } from '../src/openapi/documents.js';
import { readOperations } from '../src/openapi/operations.js';
import { buildStaticDocs } from '../src/docs/static.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const MISSING = `${CHROMIUM} is missing: the API reference browser test needs Debian's chromium package (apt-get install -y --no-install-recommends chromium; .ci/run installs it)`;

let tusk: RunningTusk;
let browser: Browser | undefined;
const staticDir = mkdtempSync(join(tmpdir(), 'tusk-docs-browser-'));

beforeAll(async () => {
  tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off' });
  await buildStaticDocs(staticDir, tusk.deps.documents);
  if (existsSync(CHROMIUM)) browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
});

afterAll(async () => {
  await browser?.close();
  await tusk?.close();
  rmSync(staticDir, { recursive: true, force: true });
});

it('has Chromium to drive', () => {
  expect(existsSync(CHROMIUM), MISSING).toBe(true);
});

interface Visit {
  page: Page;
  requests: string[];
  problems: string[];
}

/** Opens a reference page, recording every request and every page error or console error. */
async function visit(url: string): Promise<Visit> {
  if (!browser) throw new Error(MISSING);
  const page = await browser.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  await page.goto(url);
  await page.waitForSelector('[data-section-id^="operation/"]', { timeout: 15_000 });
  await page.waitForLoadState('networkidle');
  return { page, requests, problems };
}

/** Every operation of the document has its section, titled by its summary. */
async function expectEveryOperation(page: Page, doc: OpenApiDocument, api: InterfaceName) {
  const rendered = await page.$$eval('[data-section-id^="operation/"]', (sections) =>
    sections.map((s) => [
      s.getAttribute('data-section-id')!.slice('operation/'.length),
      s.querySelector('h2')?.textContent?.trim() ?? '',
    ]),
  );
  const expected = readOperations(api, doc).map((o) => [o.operationId, String(o.raw.summary ?? o.operationId)]);
  expect(expected.length).toBeGreaterThan(10);
  expect(rendered.sort()).toEqual(expected.sort());
}

/** The shared Error schema renders with its properties under an operation's 401 response. */
async function expectErrorSchema(page: Page, doc: OpenApiDocument, api: InterfaceName) {
  const first = readOperations(api, doc)[0]!.operationId;
  const section = page.locator(`[data-section-id="operation/${first}"]`);
  await section.locator('button', { hasText: /^401/ }).first().click();
  const properties = Object.keys(
    (doc.components!.schemas!.Error as { properties: Record<string, unknown> }).properties,
  );
  expect(properties).toContain('error');
  for (const name of properties) {
    await expect
      .poll(() => section.locator('.property-name', { hasText: new RegExp(`^${name}$`) }).count())
      .toBeGreaterThan(0);
  }
}

function offOrigin(requests: string[], origin: string): string[] {
  return requests.filter(
    (url) =>
      !(
        url.startsWith('data:') ||
        url.startsWith('blob:') ||
        (origin === 'file:' ? url.startsWith(pathToFileURL(staticDir).href + '/') : new URL(url).origin === origin)
      ),
  );
}

describe.each(INTERFACES)('the %s API reference', (api) => {
  it('served at /docs lists every operation, renders the Error schema, and loads nothing from elsewhere', async () => {
    const base = api === 'customer' ? tusk.customerUrl : tusk.instanceUrl;
    const doc = tusk.deps.documents[api];
    const { page, requests, problems } = await visit(`${base}/docs`);
    try {
      expect(await page.title()).toContain(doc.info.title);
      await expectEveryOperation(page, doc, api);
      await expectErrorSchema(page, doc, api);
      await page.waitForLoadState('networkidle');
      expect(requests).toContain(`${base}/docs`);
      expect(offOrigin(requests, new URL(base).origin)).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});

describe('the static API reference (npm run docs)', () => {
  it('opened from files lists every operation and loads nothing from elsewhere', async () => {
    const doc = tusk.deps.documents.instance;
    const { page, requests, problems } = await visit(pathToFileURL(join(staticDir, 'instance', 'index.html')).href);
    try {
      await expectEveryOperation(page, doc, 'instance');
      expect(offOrigin(requests, 'file:')).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
