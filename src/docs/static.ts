// `npm run docs` / `tusk docs`: the same references as /docs serves, as static files for publishing.
//   <out>/index.html                         links to both references
//   <out>/assets/redoc.standalone.js         the renderer (offline-safe), with its licences
//   <out>/<interface>/index.html             the reference, the document inlined
//   <out>/<interface>/openapi.{json,yaml}    the bundled document, for download
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { stringify } from 'yaml';
import {
  INTERFACES,
  PROJECT_ROOT,
  loadDocuments,
  type InterfaceName,
  type OpenApiDocument,
} from '../openapi/documents.js';
import { loadRenderer, referencePage, RENDERER_FILE } from './renderer.js';

export const DEFAULT_DOCS_DIR = join(PROJECT_ROOT, 'dist', 'docs');

function indexPage(documents: Record<InterfaceName, OpenApiDocument>): string {
  const items = INTERFACES.map((api) => {
    const info = documents[api].info;
    return `<li><a href="${api}/index.html">${info.title} ${info.version}</a> — <a href="${api}/openapi.json">openapi.json</a>, <a href="${api}/openapi.yaml">openapi.yaml</a></li>`;
  }).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Tusk API reference</title>
<link rel="icon" href="data:,">
<style>body { font-family: system-ui, sans-serif; max-width: 40rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; }</style>
</head>
<body>
<h1>Tusk API reference</h1>
<ul>
${items}
</ul>
</body>
</html>
`;
}

/** Writes the static references into `outDir` (emptied first); returns the files written. */
export async function buildStaticDocs(
  outDir: string = DEFAULT_DOCS_DIR,
  documents?: Record<InterfaceName, OpenApiDocument>,
): Promise<string[]> {
  const docs = documents ?? (await loadDocuments());
  const out = resolve(outDir);
  const renderer = loadRenderer();
  const written: string[] = [];
  const write = (path: string, text: string) => {
    const file = join(out, path);
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, text);
    written.push(file);
  };
  rmSync(out, { recursive: true, force: true });
  write(join('assets', RENDERER_FILE), renderer.script);
  for (const license of renderer.licenses) write(join('assets', `redoc-${license.file}`), license.text);
  for (const api of INTERFACES) {
    const doc = docs[api];
    const { html } = referencePage({
      api,
      doc,
      scriptUrl: `../assets/${RENDERER_FILE}`,
      downloads: { json: 'openapi.json', yaml: 'openapi.yaml' },
    });
    write(join(api, 'index.html'), html);
    write(join(api, 'openapi.json'), JSON.stringify(doc, null, 2) + '\n');
    write(join(api, 'openapi.yaml'), stringify(doc, { lineWidth: 0 }));
  }
  write('index.html', indexPage(docs));
  return written;
}
