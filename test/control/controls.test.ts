// The controls under /__tusk/ as a client developer uses them: reset, re-seed, the outbox, the
// request journal, fresh isolated accounts; and the control plane's own OpenAPI document.
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { controlApp } from '../../src/control/plane.js';
import { CONTROL_DOCUMENT_PATH, ControlDocument } from '../../src/control/document.js';
import { RequestJournal } from '../../src/domain/journal.js';
import { createTusk } from '../../src/server.js';
import { ROLE_KEYS, instanceKey } from '../../fixtures/index.js';
import { ADMIN_KEY, INSTANCE_1_KEY, start, type Client } from './setup.js';
import { exec as run } from '../support/processes.js';

const control = new ControlDocument();

let t: Client;
beforeEach(async () => {
  t = await start();
});
afterEach(async () => {
  await t.close();
});

const newInstance = { name: 'orders', plan: 'hippo', region: 'amazon-web-services::us-east-1' };

/** Checks a control answer against its schema in the control document. */
function conforms(schema: string, body: unknown): void {
  const validate = control.schema(schema);
  expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
}

describe('POST /__tusk/reset', () => {
  it('restores the seeded state: created instances, team changes and rotated keys are gone; the clock stays', async () => {
    const seeded = (await t.customer('/api/instances')).body;
    const created = await t.customer('/api/instances', ADMIN_KEY, { body: newInstance });
    expect(created.status).toBe(200);
    await t.customer('/api/team/invite', ADMIN_KEY, { body: { email: 'new@example.com' } });
    const rotated = await t.customer('/api/apikeys/rotate-apikey', ROLE_KEYS.devops, { method: 'POST' });
    expect(rotated.status).toBe(200);
    await t.instance('/api/alarms/recipients', INSTANCE_1_KEY, { body: { type: 'email', value: 'x@example.com' } });
    await t.control('/clock', { body: { advance: '1h' } });
    const account = await t.control('/accounts', { body: {} });

    const reset = await t.control('/reset', { method: 'POST' });
    expect(reset.status).toBe(200);
    conforms('ResetResult', reset.body);
    expect(reset.body.seed).toBe(1);
    expect(reset.body.accounts).toHaveLength(1);

    expect((await t.customer('/api/instances')).body).toEqual(seeded);
    expect((await t.customer('/api/team')).body.some((m: { email: string }) => m.email === 'new@example.com')).toBe(
      false,
    );
    expect((await t.customer('/api/plans', ROLE_KEYS.devops)).status).toBe(200); // the seeded key opens again
    expect((await t.customer('/api/plans', rotated.body.apikey)).status).toBe(401);
    expect((await t.customer('/api/plans', account.body.admin_key)).status).toBe(401); // added accounts are gone
    expect((await t.instance('/api/alarms/recipients', INSTANCE_1_KEY)).body).toHaveLength(1);
    expect((await t.control('/outbox')).body.entries).toEqual([]);
    expect((await t.control('/clock')).body.offset_ms).toBe(3_600_000);
  });
});

describe('POST /__tusk/seed', () => {
  it('re-seeds: another account and team; the same seed again gives the same state', async () => {
    const before = (await t.customer('/api/team')).body;
    const res = await t.control('/seed', { body: { seed: 42 } });
    expect(res.status).toBe(200);
    expect(res.body.seed).toBe(42);
    const reseeded = (await t.customer('/api/team')).body;
    expect(reseeded).not.toEqual(before);
    // the documented keys stay the same whatever the seed
    expect((await t.instance('/api/alarms', instanceKey(1))).status).toBe(200);
    // reset keeps the new seed
    await t.control('/reset', { method: 'POST' });
    expect((await t.customer('/api/team')).body).toEqual(reseeded);
    await t.control('/seed', { body: { seed: 1 } });
    expect((await t.customer('/api/team')).body).toEqual(before);
  });

  it('refuses a seed that is not a non-negative integer', async () => {
    for (const body of [{}, { seed: -1 }, { seed: 1.5 }, { seed: '3' }, { seed: 1, extra: true }]) {
      const res = await t.control('/seed', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      conforms('Error', res.body);
    }
  });
});

describe('GET /__tusk/outbox', () => {
  it('lists callbacks with target, body, attempts and status, and filters by status and kind', async () => {
    await t.instance('/api/backup', INSTANCE_1_KEY, { body: { callback: 'http://127.0.0.1:9/never' } });
    const all = await t.control('/outbox');
    expect(all.status).toBe(200);
    conforms('OutboxList', all.body);
    expect(all.body.entries).toEqual([
      expect.objectContaining({
        id: expect.any(Number),
        kind: 'callback',
        event: 'backup',
        target: 'http://127.0.0.1:9/never',
        attempts: 0,
        status: 'pending',
        body: expect.objectContaining({ action: 'backup' }),
      }),
    ]);
    expect((await t.control('/outbox?status=delivered')).body.entries).toEqual([]);
    expect((await t.control('/outbox?status=pending&kind=callback')).body.entries).toHaveLength(1);
    expect((await t.control('/outbox?kind=notification')).body.entries).toEqual([]);
    expect((await t.control('/outbox?status=lost')).status).toBe(400);
  });
});

describe('GET /__tusk/requests', () => {
  it('lists the last requests of both ports with status and timing, never a key', async () => {
    await t.customer('/api/instances');
    await t.customer('/api/instances', 'wrong-key-1234');
    await t.instance('/api/alarms', INSTANCE_1_KEY);
    await t.instance('/api/alarms?x=secret-in-query', INSTANCE_1_KEY);
    await t.control('/clock'); // controls are not journaled
    const res = await t.control('/requests');
    expect(res.status).toBe(200);
    conforms('RequestList', res.body);
    expect(
      res.body.entries.map((e: { api: string; method: string; path: string; status: number }) => [
        e.api,
        e.method,
        e.path,
        e.status,
      ]),
    ).toEqual([
      ['customer', 'GET', '/api/instances', 200],
      ['customer', 'GET', '/api/instances', 401],
      ['instance', 'GET', '/api/alarms', 200],
      ['instance', 'GET', '/api/alarms', 200],
    ]);
    for (const e of res.body.entries) {
      expect(e.ms).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(Date.parse(e.time))).toBe(true);
    }
    const text = JSON.stringify(res.body);
    for (const secret of [ADMIN_KEY, 'wrong-key-1234', INSTANCE_1_KEY, 'secret-in-query', 'Basic '])
      expect(text).not.toContain(secret);

    expect((await t.control('/requests?limit=2')).body.entries.map((e: { api: string }) => e.api)).toEqual([
      'instance',
      'instance',
    ]);
    for (const limit of ['0', '-1', 'x', '1001'])
      expect((await t.control(`/requests?limit=${limit}`)).status).toBe(400);
    expect((await t.control('/requests', { method: 'DELETE' })).status).toBe(204);
    expect((await t.control('/requests')).body.entries).toEqual([]);
  });

  it('is bounded: the oldest requests go first', async () => {
    const tusk = await createTusk({ log: 'off', rateLimit: '100000/1' });
    const capacity = tusk.registry.journal.capacity;
    for (let i = 0; i < capacity + 50; i++) await tusk.customer.fetch(new Request(`http://tusk/nope/${i}`));
    const res = await tusk.customer.fetch(new Request(`http://tusk/__tusk/requests?limit=${capacity}`));
    const { entries } = (await res.json()) as { entries: { path: string }[] };
    expect(entries).toHaveLength(capacity);
    expect(entries[0]!.path).toBe('/nope/50');
    expect(entries.at(-1)!.path).toBe(`/nope/${capacity + 49}`);
  });

  it('RequestJournal keeps the newest entries in order', () => {
    const j = new RequestJournal(3);
    const e = (i: number) => ({ at: 0, api: 'customer', method: 'GET', path: `/${i}`, status: 200, ms: 0 });
    for (let i = 1; i <= 5; i++) j.record(e(i));
    expect(j.last().map((x) => x.path)).toEqual(['/3', '/4', '/5']);
    expect(j.last(2).map((x) => x.path)).toEqual(['/4', '/5']);
    expect(j.size).toBe(3);
    j.clear();
    expect(j.last()).toEqual([]);
    expect(() => new RequestJournal(0)).toThrow(new RangeError('the journal capacity must be a positive integer'));
    expect(() => new RequestJournal(1.5)).toThrow(RangeError);
  });

  it('RequestJournal of capacity 1 keeps the last request', () => {
    const j = new RequestJournal(1);
    j.record({ at: 0, api: 'customer', method: 'GET', path: '/a', status: 200, ms: 0 });
    j.record({ at: 0, api: 'instance', method: 'GET', path: '/b', status: 200, ms: 0 });
    expect(j.last().map((x) => x.path)).toEqual(['/b']);
  });

  it('RequestJournal gives back every field of an entry, the time as ISO 8601, and starts over after clear()', () => {
    const j = new RequestJournal(2);
    j.record({
      at: Date.UTC(2026, 10, 21, 9, 30),
      api: 'instance',
      method: 'POST',
      path: '/api/alarms',
      status: 201,
      ms: 1.5,
    });
    j.record({
      at: Date.UTC(2026, 10, 21, 9, 31),
      api: 'customer',
      method: 'DELETE',
      path: '/api/instances/7',
      status: 404,
      ms: 0.2,
    });
    expect(j.last()).toStrictEqual([
      { time: '2026-11-21T09:30:00.000Z', api: 'instance', method: 'POST', path: '/api/alarms', status: 201, ms: 1.5 },
      {
        time: '2026-11-21T09:31:00.000Z',
        api: 'customer',
        method: 'DELETE',
        path: '/api/instances/7',
        status: 404,
        ms: 0.2,
      },
    ]);
    j.clear();
    expect(j.size).toBe(0);
    j.record({ at: 0, api: 'customer', method: 'GET', path: '/api/instances', status: 200, ms: 3 });
    expect(j.last()).toStrictEqual([
      { time: '1970-01-01T00:00:00.000Z', api: 'customer', method: 'GET', path: '/api/instances', status: 200, ms: 3 },
    ]);
  });
});

describe('POST /__tusk/accounts', () => {
  it('creates an isolated account with a key per role; neither account sees the other', async () => {
    const res = await t.control('/accounts', { body: { name: 'Job 7', team_email: 'job7@example.com' } });
    expect(res.status).toBe(201);
    conforms('CreatedAccount', res.body);
    const { admin_key: key, keys } = res.body;
    expect(res.body).toMatchObject({ name: 'Job 7', team_email: 'job7@example.com', admin_key: keys.admin });

    // a fresh account starts empty
    expect((await t.customer('/api/instances', key)).body).toEqual([]);
    expect((await t.customer('/api/invoices', key)).body).toEqual([]);
    const team = (await t.customer('/api/team', key)).body;
    expect(team.map((m: { roles: string[] }) => m.roles[0]).sort()).toEqual([
      'admin',
      'billing manager',
      'devops',
      'member',
      'monitor',
    ]);

    // its instances are its own
    const created = await t.customer('/api/instances', key, { body: newInstance });
    expect(created.status).toBe(200);
    expect(created.body.id).toBe(1);
    expect((await t.customer('/api/instances', key)).body.map((i: { id: number }) => i.id)).toEqual([1]);
    const seeded = (await t.customer('/api/instances')).body;
    expect(seeded.some((i: { name: string }) => i.name === 'orders')).toBe(false);
    // instance ids are per account: id 1 is each account's own instance 1
    expect((await t.customer('/api/instances/1', key)).body.name).toBe('orders');
    expect((await t.customer('/api/instances/1')).body.name).toBe(seeded[0].name);
    expect((await t.customer(`/api/instances/${seeded.at(-1).id}`, key)).status).toBe(404);

    // its instance key opens its instance only, with the account's e-mail as the default recipient
    const recipients = (await t.instance('/api/alarms/recipients', created.body.apikey)).body;
    expect(recipients).toEqual([expect.objectContaining({ type: 'email', value: 'job7@example.com' })]);

    // role keys carry their roles
    expect((await t.customer('/api/invoices', keys['billing manager'])).status).toBe(200);
    expect((await t.customer('/api/instances', keys.devops, { body: newInstance })).status).toBe(200);
    const refused = await t.customer('/api/instances', keys.monitor, { body: newInstance });
    expect({ status: refused.status, body: refused.body }).toStrictEqual({
      status: 403,
      body: { error: 'Forbidden: a key with role monitor may not call createInstance' },
    });

    // two fresh accounts do not see each other either
    const other = await t.control('/accounts', { method: 'POST' });
    expect((await t.customer('/api/instances', other.body.admin_key)).body).toEqual([]);
    expect(other.body.account_id).not.toBe(res.body.account_id);
  });

  it('refuses a body with unknown fields or a bad e-mail', async () => {
    expect((await t.control('/accounts', { body: { nope: 1 } })).status).toBe(400);
    expect((await t.control('/accounts', { body: { team_email: 'not-an-email' } })).status).toBe(400);
  });

  it('a fresh account and its instances survive a dump and load', async () => {
    const res = await t.control('/accounts', { method: 'POST' });
    await t.customer('/api/instances', res.body.admin_key, { body: newInstance });
    const dump = (await t.control('/state')).body;
    await t.control('/reset', { method: 'POST' });
    expect((await t.customer('/api/instances', res.body.admin_key)).status).toBe(401);
    expect((await t.control('/state', { method: 'PUT', body: dump })).status).toBe(200);
    expect((await t.customer('/api/instances', res.body.admin_key)).body.map((i: { name: string }) => i.name)).toEqual([
      'orders',
    ]);
  });
});

describe('the control plane', () => {
  it('answers an unknown control with 404 in the Error shape, on both ports, without a key', async () => {
    for (const port of ['customer', 'instance'] as const) {
      const res = await t.control('/nothing-here', { port });
      expect(res.status).toBe(404);
      conforms('Error', res.body);
      expect(res.body.error).toContain('/__tusk/nothing-here');
    }
  });

  it('serves its own OpenAPI document', async () => {
    const res = await t.control('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(control.document());
    expect(res.body.paths['/__tusk/clock']).toBeDefined();
  });

  it('its document describes exactly the routes of the control app', () => {
    const routes = new Set(
      controlApp({} as never)
        .routes.filter((r) => r.method !== 'ALL')
        .map((r) => `${r.method} /__tusk${r.path}`.replace(/\/$/, '').replace(/:(\w+)/g, '{$1}')),
    );
    const documented = new Set(
      Object.entries(control.document().paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((m) => m !== 'parameters')
          .map((m) => `${m.toUpperCase()} ${path.replace(/\/$/, '')}`),
      ),
    );
    expect([...routes].sort()).toEqual([...documented].sort());
  });

  it('its document passes Redocly lint (recommended rules; not the house rules of openapi/)', async () => {
    const bin = join(PROJECT_ROOT, 'node_modules', '.bin', 'redocly');
    const { stdout, stderr } = await run(bin, ['lint', '--extends=recommended', CONTROL_DOCUMENT_PATH], {
      cwd: PROJECT_ROOT,
    }).catch((err: { stdout: string; stderr: string }) => {
      throw new Error(`redocly lint failed:\n${err.stdout}\n${err.stderr}`);
    });
    expect(`${stdout}${stderr}`).toMatch(/valid/);
  });

  it('a dump of the running server validates against the State schema', async () => {
    await t.customer('/api/instances', ADMIN_KEY, { body: newInstance });
    conforms('State', (await t.control('/state')).body);
    conforms('Clock', (await t.control('/clock')).body);
  });
});
