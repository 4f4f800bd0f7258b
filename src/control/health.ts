// What a CI job or a person asks a running server first (outside the contract; open without a key,
// even with --control-key, since they reveal nothing secret):
//   GET /__tusk/health   liveness (it answers) and readiness: the state of the database engine
//   GET /__tusk/         the controls of this server, from the control document: JSON, or an HTML
//                        page for a browser (a request that accepts text/html)
import { Hono } from 'hono';
import { html } from '../core/html.js';
import { packageVersion } from '../openapi/documents.js';
import type { ControlDeps } from './deps.js';

export type { EngineHealth, EngineState } from './deps.js';

/** The paths open without the control key (app.ts). */
export const OPEN_PATHS = new Set(['/__tusk', '/__tusk/', '/__tusk/health', '/__tusk/openapi.json']);

export function healthRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  app.get('/', (c) => {
    const databases = deps.engine?.state ?? 'off';
    return c.json({
      status: 'ok',
      ready: databases === 'ready' || databases === 'off',
      databases,
      version: packageVersion(),
      uptime_s: Math.round(process.uptime()),
    });
  });
  return app;
}

interface Control {
  method: string;
  path: string;
  summary: string;
}

/** Every control of the document, in its order. */
function controls(deps: ControlDeps): Control[] {
  const methods = ['get', 'put', 'post', 'delete', 'patch'];
  return Object.entries(deps.document.document().paths).flatMap(([path, item]) =>
    methods
      .filter((m) => item[m])
      .map((m) => ({ method: m.toUpperCase(), path, summary: (item[m] as { summary?: string }).summary ?? '' })),
  );
}

/** GET /__tusk/ (and /__tusk): the index of the controls. */
export function indexRoute(deps: ControlDeps) {
  return (c: import('hono').Context) => {
    const list = controls(deps);
    const document = '/__tusk/openapi.json';
    if (!/\btext\/html\b/.test(c.req.header('accept') ?? '')) {
      return c.json({ name: 'tusk', version: packageVersion(), document, docs: '/docs', controls: list });
    }
    const rows = list.map(
      (x) =>
        html`<tr><td><code>${x.method}</code></td><td>${x.method === 'GET' && !x.path.includes('{') ? html`<a href="${x.path}">${x.path}</a>` : html`<code>${x.path}</code>`}</td><td>${x.summary}</td></tr>`,
    );
    return c.html(html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tusk ${packageVersion()}: controls</title>
<style>body{font:14px/1.4 system-ui,sans-serif;margin:2rem;color:#222}table{border-collapse:collapse}td{border-bottom:1px solid #ddd;padding:.3rem .6rem;vertical-align:top}</style></head>
<body><h1>Tusk ${packageVersion()}: simulation controls</h1>
<p>Outside the contract (see the README, "Simulation controls"). Their document: <a href="${document}">${document}</a>; the API reference of this port: <a href="/docs">/docs</a>.</p>
<table>${rows}</table>
</body></html>
`);
  };
}
