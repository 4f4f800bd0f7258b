// The API reference page of one interface, rendered in the browser by Redoc's standalone bundle.
// The bundle comes from the npm registry (devDependency `redoc`, pinned) and `npm run build` copies
// it to dist/vendor/redoc/, so an installed tusk-mock serves it without the dependency. Nothing is
// fetched from the internet at run time: the document is inlined into the page, the fonts are the
// system's, the one remote image of the bundle (a logo) is rewritten to a local `data:` URL, and a
// Content-Security-Policy allows only the page's own origin besides `data:` and `blob:`.
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { PROJECT_ROOT, type InterfaceName, type OpenApiDocument } from '../openapi/documents.js';
import { html, raw, text } from '../core/html.js';

export const RENDERER_FILE = 'redoc.standalone.js';

/** Where `npm run build` puts the renderer: the same layout as node_modules/redoc. */
export const VENDOR_DIR = join(PROJECT_ROOT, 'dist', 'vendor', 'redoc');

/**
 * Remote URLs in the bundle that the page would load without a user's click, and what replaces
 * them. `data:,` is not an image, so the logo's onError handler removes the element.
 */
const OFFLINE_REWRITES: readonly [string, string][] = [['https://cdn.redoc.ly/redoc/logo-mini.svg', 'data:,']];

export interface Renderer {
  name: 'redoc';
  version: string;
  /** The offline-safe bundle (JavaScript text). */
  script: string;
  /** The licence texts that travel with the bundle. */
  licenses: { file: string; text: string }[];
}

function rendererRoot(): string {
  if (existsSync(join(VENDOR_DIR, 'bundles', RENDERER_FILE))) return VENDOR_DIR;
  try {
    return dirname(createRequire(import.meta.url).resolve('redoc/package.json'));
  } catch {
    throw new Error(
      `the API reference renderer is missing: neither ${join(VENDOR_DIR, 'bundles', RENDERER_FILE)} (written by npm run build) nor the redoc package (npm ci) is there`,
    );
  }
}

/** Rewrites the bundle's remote asset URLs; fails if the bundle no longer looks as expected. */
export function offlineBundle(source: string): string {
  let out = source;
  for (const [remote, local] of OFFLINE_REWRITES) {
    if (!out.includes(remote))
      throw new Error(
        `the Redoc bundle no longer contains ${remote}: check OFFLINE_REWRITES in src/docs/renderer.ts against this Redoc version`,
      );
    out = out.split(remote).join(local);
  }
  return out;
}

let cached: Renderer | undefined;

export function loadRenderer(): Renderer {
  if (cached) return cached;
  const root = rendererRoot();
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  const licenses = [
    ['LICENSE', join(root, 'LICENSE')],
    [`${RENDERER_FILE}.LICENSE.txt`, join(root, 'bundles', `${RENDERER_FILE}.LICENSE.txt`)],
  ]
    .filter(([, path]) => existsSync(path!))
    .map(([file, path]) => ({ file: file!, text: readFileSync(path!, 'utf8') }));
  cached = {
    name: 'redoc',
    version: pkg.version,
    script: offlineBundle(readFileSync(join(root, 'bundles', RENDERER_FILE), 'utf8')),
    licenses,
  };
  return cached;
}

/** Redoc's options (https://redocly.com/docs/redoc/config): system fonts, nothing remote. */
function rendererOptions(downloads: { json: string; yaml: string }) {
  const sans =
    'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", "Liberation Sans", sans-serif';
  const mono = 'ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace';
  return {
    downloadUrls: [
      { title: 'openapi.json', url: downloads.json },
      { title: 'openapi.yaml', url: downloads.yaml },
    ],
    expandResponses: '200,201,202',
    jsonSamplesExpandLevel: 3,
    sortRequiredPropsFirst: true,
    showExtensions: ['x-roles', 'x-spec-gap', 'x-system'],
    showObjectSchemaExamples: true,
    theme: {
      typography: {
        fontFamily: sans,
        headings: { fontFamily: sans },
        code: { fontFamily: mono },
      },
    },
  };
}

/** `<script type="application/json">` content that cannot close its element early. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

export interface PageOptions {
  api: InterfaceName;
  doc: OpenApiDocument;
  /** URL of the renderer bundle, relative to the page or absolute on its origin. */
  scriptUrl: string;
  /** URLs of the document downloads. */
  downloads: { json: string; yaml: string };
}

export interface Page {
  html: string;
  /** The Content-Security-Policy the page is written for (also in its <meta> element). */
  csp: string;
}

const BOOT = `(function () {
  var data = JSON.parse(document.getElementById('tusk-openapi').textContent);
  Redoc.init(data.document, data.options, document.getElementById('redoc'));
})();`;

/** The HTML of one interface's reference page: the document and the options inlined, the bundle beside. */
export function referencePage(options: PageOptions): Page {
  const bootHash = createHash('sha256').update(BOOT).digest('base64');
  const csp = [
    "default-src 'none'",
    `script-src 'self' 'sha256-${bootHash}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    'worker-src blob:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const title = `${options.doc.info.title} ${options.doc.info.version} — Tusk API reference`;
  const data = scriptJson({ document: options.doc, options: rendererOptions(options.downloads) });
  const page = text(html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="generator" content="Tusk (${options.api} interface), Redoc ${loadRenderer().version}">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>body { margin: 0; padding: 0; }</style>
</head>
<body>
<noscript>This API reference needs JavaScript. The document itself: <a href="${options.downloads.json}">openapi.json</a>, <a href="${options.downloads.yaml}">openapi.yaml</a>.</noscript>
<div id="redoc"></div>
<script id="tusk-openapi" type="application/json">${raw(data)}</script>
<script src="${options.scriptUrl}"></script>
<script>${raw(BOOT)}</script>
</body>
</html>
`);
  return { html: page, csp };
}
