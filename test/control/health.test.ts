// GET /__tusk/health (readiness by status code: 503 with the reason while the database engine
// starts, is away or failed, 200 once it is ready), GET /__tusk/live (liveness: always 200) and
// GET /__tusk/ (the index of the controls: JSON, or HTML for a browser): all open without a key,
// even with --control-key, all as the control document says. With a real engine: 503, then 200.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { ControlDocument } from '../../src/control/document.js';
import { healthRoutes, liveRoutes, type EngineState } from '../../src/control/health.js';
import { packageVersion } from '../../src/openapi/documents.js';
import type { ControlDeps } from '../../src/control/deps.js';

const KEY = 'control-key-0123';
const document = new ControlDocument();

function conforms(schema: string, body: unknown): void {
  const validate = document.schema(schema);
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
}

let open: Tusk;
let keyed: Tusk;
beforeAll(async () => {
  [open, keyed] = await Promise.all([createTusk({ log: 'off' }), createTusk({ log: 'off', controlKey: KEY })]);
});
afterAll(async () => {
  await Promise.all([open.control.close(), keyed.control.close()]);
});

const get = (
  tusk: Tusk,
  path: string,
  headers: Record<string, string> = {},
  port: 'customer' | 'instance' = 'customer',
) => tusk[port].fetch(new Request(`http://tusk${path}`, { headers }));

describe('GET /__tusk/health and GET /__tusk/live', () => {
  it('answer 200 on both ports, without a key even when the controls need one: no databases (off), so ready', async () => {
    for (const tusk of [open, keyed]) {
      for (const port of ['customer', 'instance'] as const) {
        for (const path of ['/__tusk/health', '/__tusk/live']) {
          const res = await get(tusk, path, {}, port);
          expect(res.status).toBe(200);
          const body = (await res.json()) as Record<string, unknown>;
          conforms('Health', body);
          expect(body).toMatchObject({ status: 'ok', ready: true, databases: 'off', version: packageVersion() });
          expect(body).not.toHaveProperty('reason');
        }
      }
    }
    // the other controls still need the key
    expect((await get(keyed, '/__tusk/clock')).status).toBe(401);
  });

  it("readiness is 503 with the engine's reason until the engine is ready, and again while it is away; liveness stays 200", async () => {
    const engine: { state: EngineState; reason?: string } = { state: 'starting' };
    const deps = { document, engine } as unknown as ControlDeps;
    const [readiness, liveness] = [healthRoutes(deps), liveRoutes(deps)];
    for (const [state, status, code, reason] of [
      [
        'starting',
        'starting',
        503,
        'the databases are starting: the embedded Postgres server starts in the background',
      ],
      ['ready', 'ok', 200, undefined],
      ['restarting', 'starting', 503, 'the Postgres server is gone (killed); starting it again on the same data'],
      ['failed', 'failed', 503, 'the databases could not start: port 5432 is taken; ...'],
    ] as const) {
      engine.state = state;
      engine.reason = reason;
      const res = await readiness.request('/');
      expect(res.status, state).toBe(code);
      const body = (await res.json()) as Record<string, unknown>;
      conforms('Health', body);
      expect(body).toEqual({
        status,
        ready: code === 200,
        databases: state,
        ...(reason ? { reason } : {}),
        version: packageVersion(),
        uptime_s: expect.any(Number),
      });
      const live = await liveness.request('/');
      expect(live.status, state).toBe(200);
      expect(await live.json()).toEqual(body);
    }
    // An engine that gives no reason of its own still gets one.
    engine.state = 'failed';
    engine.reason = undefined;
    expect(await (await readiness.request('/')).json()).toMatchObject({ reason: 'the databases could not start' });
  });

  it('with a real embedded engine: 503 "starting" at once, then 200 "ok" once the databases are ready', async () => {
    const tusk = await createTusk({ log: 'off', databases: 'embedded' });
    try {
      const first = await get(tusk, '/__tusk/health');
      expect(first.status).toBe(503);
      expect(await first.json()).toMatchObject({ status: 'starting', ready: false, databases: 'starting' });
      expect((await get(tusk, '/__tusk/live')).status).toBe(200);
      await vi.waitFor(async () => expect((await get(tusk, '/__tusk/health')).status).toBe(200), {
        timeout: 60_000,
        interval: 100,
      });
      expect(await (await get(tusk, '/__tusk/health')).json()).toMatchObject({ status: 'ok', databases: 'ready' });
    } finally {
      await tusk.control.close();
      await tusk.deps.databases?.close();
    }
  }, 90_000);
});

describe('GET /__tusk/', () => {
  it('lists every control of the control document as JSON, without a key even when the controls need one', async () => {
    const paths = Object.keys(document.document().paths);
    for (const tusk of [open, keyed]) {
      for (const path of ['/__tusk/', '/__tusk']) {
        const res = await get(tusk, path);
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        const body = (await res.json()) as { controls: { method: string; path: string }[] };
        conforms('ControlIndex', body);
        expect([...new Set(body.controls.map((c) => c.path))].sort()).toEqual(paths.sort());
        expect(body.controls).toContainEqual(expect.objectContaining({ method: 'POST', path: '/__tusk/clock' }));
      }
    }
  });

  it('is an HTML page with links for a browser, its summaries escaped', async () => {
    const res = await get(open, '/__tusk/', {
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await res.text();
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<a href="/__tusk/health">/__tusk/health</a>');
    expect(page).toContain('<a href="/__tusk/openapi.json">');
    expect(page).toContain('<code>/__tusk/instances/{instance_id}/metrics</code>'); // a path with a parameter is no link
    expect(page).not.toMatch(/<td>[^<]*[<>][^<]*<\/td>/);
  });
});
