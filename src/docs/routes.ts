// The API reference on each port, outside the contract and without authentication:
//   GET /docs                        the interactive reference of this port's interface (Redoc)
//   GET /docs/redoc.standalone.js    the renderer, served from dist/vendor or node_modules
//   GET /openapi.json, /openapi.yaml the bundled document of this port's interface
// Registered by src/server.ts as an extension of both apps (see ApiAppOptions.extensions).
import type { Hono } from 'hono';
import { createRequire } from 'node:module';
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import { loadRenderer, referencePage, RENDERER_FILE, type Page } from './renderer.js';

const requireHere = createRequire(import.meta.url);

export const DOCS_PATH = '/docs';

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

/** The extension serving one interface's reference and document, given the bundled documents. */
export function docsRoutes(documents: Record<InterfaceName, OpenApiDocument>) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- extensions serve both interfaces
  return (app: Hono<any>, api: InterfaceName): void => {
    const doc = documents[api];
    const json = once(() => JSON.stringify(doc, null, 2) + '\n');
    // yaml is loaded on the first request for it, not at start-up.
    const yaml = once(() => (requireHere('yaml') as typeof import('yaml')).stringify(doc, { lineWidth: 0 }));
    const page = once((): Page =>
      referencePage({
        api,
        doc,
        scriptUrl: `${DOCS_PATH}/${RENDERER_FILE}?v=${loadRenderer().version}`,
        downloads: { json: '/openapi.json', yaml: '/openapi.yaml' },
      }),
    );

    app.get(DOCS_PATH, (c) => {
      const { html, csp } = page();
      return c.html(html, 200, {
        'Content-Security-Policy': csp,
        'Cache-Control': 'no-cache',
        'X-Content-Type-Options': 'nosniff',
      });
    });
    app.get(`${DOCS_PATH}/`, (c) => c.redirect(DOCS_PATH, 301));
    app.get(`${DOCS_PATH}/${RENDERER_FILE}`, (c) =>
      c.body(loadRenderer().script, 200, {
        'Content-Type': 'text/javascript; charset=utf-8',
        'Cache-Control': 'public, max-age=86400',
        'X-Content-Type-Options': 'nosniff',
      }),
    );
    app.get('/openapi.json', (c) =>
      c.body(json(), 200, {
        'Content-Type': 'application/json; charset=utf-8',
        'Access-Control-Allow-Origin': '*',
        'Cache-Control': 'no-cache',
      }),
    );
    app.get('/openapi.yaml', (c) =>
      c.body(yaml(), 200, {
        'Content-Type': 'application/yaml; charset=utf-8',
        'Access-Control-Allow-Origin': '*',
        'Cache-Control': 'no-cache',
      }),
    );
  };
}
