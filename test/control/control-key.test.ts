// `--control-key`: with it, every control under /__tusk/ needs the key as the password of HTTP Basic
// (401 with WWW-Authenticate otherwise: no key, a wrong key, an account's admin key on a
// server-wide control); an instance's own controls (metrics, events) also take an admin key of its
// account, and only for that account's instances; the control document stays readable. `tusk serve`
// refuses a non-loopback --host without a control key, unless --control-open.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { serve, serveUntilReady } from '../support/serve.js';

const KEY = 'control-key-0123';
const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });

let tusk: Tusk;
beforeAll(async () => {
  tusk = await createTusk({ log: 'off', controlKey: KEY });
});
afterAll(() => tusk.control.close());

async function control(
  path: string,
  init: { method?: string; key?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await tusk.customer.fetch(
    new Request(`http://tusk/__tusk${path}`, {
      method: init.method ?? 'GET',
      headers: { ...(init.key ? basic(init.key) : {}), ...(init.body ? { 'content-type': 'application/json' } : {}) },
      ...(init.body ? { body: JSON.stringify(init.body) } : {}),
    }),
  );
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

describe('the control key', () => {
  it('every control answers 401 without a key and with a wrong key; the whole-server ones (seed, accounts) also with an account admin key; all work with the control key', async () => {
    // (The controls an account's admin key may call act on that account only: see account-scope.test.ts.)
    const all = [
      ['POST', '/reset'],
      ['GET', '/clock'],
      ['GET', '/state'],
      ['GET', '/outbox'],
      ['GET', '/requests'],
      ['GET', '/faults'],
      ['POST', '/seed'],
      ['POST', '/accounts'],
    ] as const;
    for (const [method, path] of all) {
      for (const key of [
        undefined,
        'wrong-key-0000',
        ...(path === '/seed' || path === '/accounts' ? ['tusk-admin-key'] : []),
      ]) {
        const res = await control(path, { method, ...(key ? { key } : {}) });
        expect(res.status, `${method} ${path} with ${key ?? 'no key'}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
        expect(String(res.body.error)).toMatch(/control key/);
      }
    }
    expect((await control('/clock', { key: KEY })).status).toBe(200);
  });

  it("an instance's metrics take an admin key of its account, not another account's, not a non-admin key", async () => {
    expect((await control('/instances/1/metrics', { key: 'tusk-admin-key' })).status).toBe(200);
    expect((await control('/instances/1/metrics', { key: 'tusk-member-key' })).status).toBe(401);
    expect(await control('/instances/1/metrics', { key: 'tusk-admin-key' })).toMatchObject({ status: 200 });
    // Another account's admin key finds no instance 1 in its own account.
    const other = await control('/accounts', { method: 'POST', key: KEY, body: { name: 'other job' } });
    expect(other.status).toBe(201);
    expect((await control('/instances/1/metrics', { key: String(other.body.admin_key) })).status).toBe(404);
    // Naming another account is for the control key only.
    expect(
      (await control(`/instances/1/metrics?account=${String(other.body.account_id)}`, { key: 'tusk-admin-key' }))
        .status,
    ).toBe(401);
  });

  it('the control document stays readable without a key', async () => {
    expect((await tusk.customer.fetch(new Request('http://tusk/__tusk/openapi.json'))).status).toBe(200);
  });
});

describe('tusk serve on a non-loopback address', () => {
  it('refuses to start without a control key, saying why', async () => {
    const p = serve(['--quiet', '--databases', 'off', '--host', '0.0.0.0']);
    expect(await p.exit).toBe(2);
    expect(p.output()).toMatch(
      /--host 0\.0\.0\.0 is reachable from other machines.*--control-key KEY \(or TUSK_CONTROL_KEY\), or --control-open/,
    );
  });

  it('starts with a control key, and its controls need it', async () => {
    const served = await serveUntilReady(['--quiet', '--databases', 'off', '--host', '0.0.0.0', '--control-key', KEY]);
    const out = served.output();
    const port = /customer API\s+http:\/\/[^:]+:(\d+)/.exec(out)![1];
    expect(out).toMatch(/control key required/);
    expect((await fetch(`http://127.0.0.1:${port}/__tusk/clock`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/__tusk/clock`, { headers: basic(KEY) })).status).toBe(200);
    expect(await served.stop()).toBe(0);
  });
});
