// The API reference routes on both ports (no browser: see docs.browser.test.ts for the rendering),
// the offline rewrite of the renderer, and the static build of `npm run docs`.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../src/server.js';
import { INTERFACES, PROJECT_ROOT } from '../src/openapi/documents.js';
import { loadRenderer, offlineBundle } from '../src/docs/renderer.js';
import { buildStaticDocs } from '../src/docs/static.js';
import { exec } from './support/processes.js';

let tusk: Tusk;
beforeAll(async () => {
  tusk = await createTusk({ log: 'off' });
});

const get = (api: 'customer' | 'instance', path: string) => tusk[api].fetch(new Request(`http://tusk.test${path}`));

describe.each(INTERFACES)('the %s port', (api) => {
  it('serves its bundled document at /openapi.json and /openapi.yaml without a key', async () => {
    const json = await get(api, '/openapi.json');
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await json.json()).toEqual(tusk.deps.documents[api]);
    const yaml = await get(api, '/openapi.yaml');
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toMatch(/^application\/yaml/);
    expect(parse(await yaml.text())).toEqual(tusk.deps.documents[api]);
  });

  it('serves the reference page at /docs, with the document inlined and a CSP limited to its origin', async () => {
    const res = await get(api, '/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const html = await res.text();
    expect(html).toContain(`<title>${tusk.deps.documents[api].info.title}`);
    expect(html).toContain('/docs/redoc.standalone.js');
    expect(html).not.toMatch(/(src|href)="https?:/);
    const data = JSON.parse(/<script id="tusk-openapi" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!);
    expect(data.document).toEqual(tusk.deps.documents[api]);
  });

  it('serves the renderer from the package, and redirects /docs/ to /docs', async () => {
    const js = await get(api, '/docs/redoc.standalone.js');
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await js.text()).length).toBeGreaterThan(500_000);
    const slash = await get(api, '/docs/');
    expect(slash.status).toBe(301);
    expect(slash.headers.get('location')).toBe('/docs');
  });
});

describe('the renderer', () => {
  it('is Redoc with its remote logo rewritten to a data: URL', () => {
    const renderer = loadRenderer();
    expect(renderer.name).toBe('redoc');
    expect(renderer.script).not.toContain('cdn.redoc.ly');
    expect(renderer.licenses.map((l) => l.file)).toContain('LICENSE');
  });

  it('refuses a bundle whose remote assets changed', () => {
    expect(() => offlineBundle('no such url here')).toThrow(/OFFLINE_REWRITES/);
  });
});

describe('npm run docs (tusk docs)', () => {
  const out = mkdtempSync(join(tmpdir(), 'tusk-docs-'));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it('writes both references with the renderer and the documents beside them', async () => {
    const files = await buildStaticDocs(out, tusk.deps.documents);
    expect(files.length).toBeGreaterThan(8);
    expect(existsSync(join(out, 'index.html'))).toBe(true);
    expect(existsSync(join(out, 'assets', 'redoc.standalone.js'))).toBe(true);
    for (const api of INTERFACES) {
      const html = readFileSync(join(out, api, 'index.html'), 'utf8');
      expect(html).toContain('src="../assets/redoc.standalone.js"');
      expect(html).not.toMatch(/(src|href)="https?:/);
      expect(JSON.parse(readFileSync(join(out, api, 'openapi.json'), 'utf8'))).toEqual(tusk.deps.documents[api]);
      expect(parse(readFileSync(join(out, api, 'openapi.yaml'), 'utf8'))).toEqual(tusk.deps.documents[api]);
    }
  });

  it('is what `tusk docs --out DIR` writes (the command behind npm run docs)', async () => {
    const dir = join(out, 'cli');
    const { stdout } = await exec(process.execPath, [join(PROJECT_ROOT, 'bin', 'tusk.js'), 'docs', '--out', dir]);
    expect(stdout).toContain(join(dir, 'customer', 'index.html'));
    for (const api of INTERFACES) {
      const html = readFileSync(join(dir, api, 'index.html'), 'utf8');
      expect(html.includes(`<title>${tusk.deps.documents[api].info.title}`)).toBe(true);
      expect(html.includes('src="../assets/redoc.standalone.js"')).toBe(true);
      expect(existsSync(join(dir, api, 'openapi.json')) && existsSync(join(dir, api, 'openapi.yaml'))).toBe(true);
    }
    expect(existsSync(join(dir, 'assets', 'redoc.standalone.js'))).toBe(true);
  });
});
