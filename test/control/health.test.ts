// GET /__tusk/health (liveness, and the database engine's state for readiness) and GET /__tusk/ (the
// index of the controls: JSON, or HTML for a browser): both open without a key, even with
// --control-key, both as the control document says. With a real engine: `starting`, then `ready`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { ControlDocument } from '../../src/control/document.js';
import { healthRoutes, type EngineState } from '../../src/control/health.js';
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

describe('GET /__tusk/health', () => {
  it('answers 200 on both ports, without a key even when the controls need one: alive, version, no databases (off) and so ready', async () => {
    for (const tusk of [open, keyed]) {
      for (const port of ['customer', 'instance'] as const) {
        const res = await get(tusk, '/__tusk/health', {}, port);
        expect(res.status).toBe(200);
        const body = (await res.json()) as Record<string, unknown>;
        conforms('Health', body);
        expect(body).toMatchObject({ status: 'ok', ready: true, databases: 'off', version: packageVersion() });
      }
    }
    // the other controls still need the key
    expect((await get(keyed, '/__tusk/clock')).status).toBe(401);
  });

  it("tells the engine's state, and is ready only when the engine is ready", async () => {
    const engine: { state: EngineState } = { state: 'starting' };
    const app = healthRoutes({ document, engine } as unknown as ControlDeps);
    const read = async () => (await (await app.request('/')).json()) as { ready: boolean; databases: string };
    for (const [state, ready] of [
      ['starting', false],
      ['ready', true],
      ['restarting', false],
      ['failed', false],
    ] as const) {
      engine.state = state;
      expect(await read()).toMatchObject({ databases: state, ready });
    }
  });
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
