// POST /__tusk/reset for one account: named by ?account=ID or by the admin key the request carries
// (the key a CI job already has). The seeded account goes back to its seeded state, an added account
// to what it was when created; every other account keeps its data. With --control-key the admin
// key may reset its own account, and only that.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';

const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });

function client(tusk: Tusk) {
  const call = async (path: string, init: { method?: string; key?: string; body?: unknown } = {}) => {
    const res = await tusk.customer.fetch(
      new Request(`http://tusk${path}`, {
        method: init.method ?? 'GET',
        headers: { ...(init.key ? basic(init.key) : {}), ...(init.body ? { 'content-type': 'application/json' } : {}) },
        ...(init.body ? { body: JSON.stringify(init.body) } : {}),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown> & unknown[]) : undefined };
  };
  const instances = async (key: string) =>
    ((await call('/api/instances', { key })).body as unknown as { id: number; name: string }[]).map((i) => i.name);
  const create = async (key: string, name: string) => {
    const res = await call('/api/instances', {
      method: 'POST',
      key,
      body: { name, plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    expect(res.status).toBe(200);
  };
  return { call, instances, create };
}

describe('resetting one account', () => {
  let tusk: Tusk;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    tusk = await createTusk({ log: 'off', provisionDelayMs: 0 });
    api = client(tusk);
  });
  afterAll(() => tusk.control.close());

  it('with its admin key: that account only, back to what it was; the others keep their data', async () => {
    const a = (await api.call('/__tusk/accounts', { method: 'POST', body: { name: 'job a' } })).body as Record<
      string,
      string
    >;
    const b = (await api.call('/__tusk/accounts', { method: 'POST', body: { name: 'job b' } })).body as Record<
      string,
      string
    >;
    await api.create(a.admin_key!, 'a-db');
    await api.create(b.admin_key!, 'b-db');
    const seeded = await api.instances('tusk-admin-key');
    await api.create('tusk-admin-key', 'seeded-extra');

    expect((await api.call('/__tusk/reset', { method: 'POST', key: a.admin_key! })).status).toBe(200);
    expect(await api.instances(a.admin_key!)).toEqual([]);
    expect(await api.instances(b.admin_key!)).toEqual(['b-db']);
    expect(await api.instances('tusk-admin-key')).toEqual([...seeded, 'seeded-extra']);

    // The seeded account, by ?account=: its seeded instances, not the extra one; job b untouched.
    const seededId = tusk.registry.authenticateCustomer('tusk-admin-key')!.account.id;
    expect((await api.call(`/__tusk/reset?account=${seededId}`, { method: 'POST' })).status).toBe(200);
    expect(await api.instances('tusk-admin-key')).toEqual(seeded);
    expect(await api.instances(b.admin_key!)).toEqual(['b-db']);
  });

  it('an unknown account is a 404 and changes nothing', async () => {
    const before = JSON.stringify(tusk.registry.dump().accounts);
    const res = await api.call('/__tusk/reset?account=no-such-account', { method: 'POST' });
    expect(res.status).toBe(404);
    expect(JSON.stringify(tusk.registry.dump().accounts)).toBe(before);
  });
});

describe('resetting one account with --control-key', () => {
  let tusk: Tusk;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    tusk = await createTusk({ log: 'off', provisionDelayMs: 0, controlKey: 'control-key-0123' });
    api = client(tusk);
  });
  afterAll(() => tusk.control.close());

  it('an admin key resets its own account, but may not name another one; the control key may', async () => {
    const job = (await api.call('/__tusk/accounts', { method: 'POST', key: 'control-key-0123', body: { name: 'job' } }))
      .body as Record<string, string>;
    await api.create(job.admin_key!, 'job-db');
    await api.create('tusk-admin-key', 'seeded-extra');
    expect(
      (await api.call(`/__tusk/reset?account=${job.account_id}`, { method: 'POST', key: 'tusk-admin-key' })).status,
    ).toBe(401);
    expect(await api.instances(job.admin_key!)).toEqual(['job-db']);
    expect((await api.call('/__tusk/reset', { method: 'POST', key: job.admin_key! })).status).toBe(200);
    expect(await api.instances(job.admin_key!)).toEqual([]);
    expect(await api.instances('tusk-admin-key')).toContain('seeded-extra');
    expect((await api.call('/__tusk/reset', { method: 'POST' })).status).toBe(401);
    expect(
      (await api.call(`/__tusk/reset?account=${job.account_id}`, { method: 'POST', key: 'control-key-0123' })).status,
    ).toBe(200);
  });
});
