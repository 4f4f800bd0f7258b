// What a CI job, an orchestrator or a person asks a running server first (outside the contract; open
// without a key, even with --control-key, since they reveal nothing secret):
//   GET /__tusk/health   readiness by status code: 200 once everything served is ready, 503 while
//                        something starts or failed (the same body, with the reason and the fix)
//   GET /__tusk/live     liveness: 200 while the process serves, whatever the databases do
//   GET /__tusk/         the controls of this server, from the control document: JSON, or an HTML
//                        page for a browser (a request that accepts text/html)
import { Hono } from 'hono';
import { html } from '../core/html.js';
import { packageVersion } from '../openapi/documents.js';
import type { ControlDeps, EngineHealth } from './deps.js';

export type { EngineHealth, EngineState } from './deps.js';

/** The paths open without the control key (app.ts). */
export const OPEN_PATHS = new Set(['/__tusk', '/__tusk/', '/__tusk/health', '/__tusk/live', '/__tusk/openapi.json']);

/** The health answer (the control document's Health). */
export interface Health {
  status: 'ok' | 'starting' | 'failed';
  ready: boolean;
  databases: EngineHealth['state'] | 'off';
  reason?: string;
  version: string;
  uptime_s: number;
}

/** Whether everything served is ready, and if not, what starts or what failed (with its fix). */
export function health(engine: EngineHealth | undefined): Health {
  const databases = engine?.state ?? 'off';
  const base = { databases, version: packageVersion(), uptime_s: Math.round(process.uptime()) };
  if (databases === 'ready' || databases === 'off') return { status: 'ok', ready: true, ...base };
  const reason =
    engine?.reason ?? (databases === 'failed' ? 'the databases could not start' : `the databases are ${databases}`);
  return { status: databases === 'failed' ? 'failed' : 'starting', ready: false, ...base, reason };
}

/** GET /__tusk/health: readiness, 200 or 503 with the same body. */
export function healthRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  app.get('/', (c) => {
    const body = health(deps.engine);
    return c.json(body, body.ready ? 200 : 503);
  });
  return app;
}

/** GET /__tusk/live: liveness, 200 while the process answers (the health body, for a person reading it). */
export function liveRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  app.get('/', (c) => c.json(health(deps.engine), 200));
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
