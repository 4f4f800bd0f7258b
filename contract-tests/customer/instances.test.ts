// Instances of the customer interface: list, get, create (standalone, fork, point-in-time), change, delete.
import { describe, expect, it } from 'vitest';
import {
  createInstance,
  READY_PATIENCE_MS,
  useContract,
  type ContractContext,
  type CustomerSchema,
} from '../harness/index.js';
import { requireRoleKey } from './role-keys.js';
import { eventually, expectBadRequest, expectMethodNotAllowed, pitOf, randomName, sleep } from './helpers.js';

const t = useContract();

async function catalogue(t: ContractContext) {
  const plans = (await t.api.customer('listPlans')).body;
  const regions = (await t.api.customer('listRegions')).body;
  const name = (r: CustomerSchema<'Region'>) => `${r.provider}::${r.region}`;
  return {
    plans,
    regions,
    dedicated: plans.filter((p) => !p.shared),
    shared: plans.filter((p) => p.shared),
    sharedRegion: regions.find((r) => r.has_shared_plans) && name(regions.find((r) => r.has_shared_plans)!),
    noSharedRegion: regions.find((r) => !r.has_shared_plans) && name(regions.find((r) => !r.has_shared_plans)!),
    anyRegion: name(regions[0]!),
  };
}

const list = async () => (await t.api.customer('listInstances')).body;
const get = (id: number) => t.api.customer('getInstance', { params: { id } });

/** A create call whose instance is deleted after the file. */
async function create(body: Record<string, unknown>, options: { form?: boolean; key?: string } = {}) {
  const res = await t.api.customer('createInstance', { body, ...options });
  if (res.status === 200)
    t.cleanup(() => t.api.customer('deleteInstance', { params: { id: res.body.id }, unchecked: true }));
  return res;
}

/** An id that no instance of the account has (a deleted instance's id). */
async function goneId(): Promise<number> {
  const { id } = await createInstance(t);
  await t.api.customer('deleteInstance', { params: { id } });
  return id;
}

describe('listInstances', () => {
  it('lists the instances of the account in ascending id order, each with id, name, plan, region, url and providerid, and tags (an array or null)', async () => {
    const a = await createInstance(t);
    const b = await createInstance(t, { shared: true });
    const res = await t.api.customer('listInstances');
    expect(res.status).toBe(200);
    const instances = res.body;
    const ids = instances.map((i) => i.id);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(ids).toEqual(expect.arrayContaining([a.id, b.id]));
    for (const i of instances) {
      expect(Object.keys(i).sort()).toEqual(['id', 'name', 'plan', 'providerid', 'region', 'tags', 'url']);
      expect(i.tags === null || Array.isArray(i.tags)).toBe(true);
    }
    expect(instances.find((i) => i.id === a.id)).toMatchObject({ plan: a.plan, region: a.region });
  });

  it('is open to a monitor key and closed to a billing manager key (403)', async ({ skip }) => {
    expect((await t.api.customer('listInstances', { key: requireRoleKey(t, 'monitor', skip) })).status).toBe(200);
    expect((await t.api.customer('listInstances', { key: requireRoleKey(t, 'billing manager', skip) })).status).toBe(
      403,
    );
  });

  it('answers 401 without a key, with a wrong key and with an instance key', async () => {
    const { apikey } = await createInstance(t);
    expect((await t.api.customer('listInstances', { key: null })).status).toBe(401);
    expect((await t.api.customer('listInstances', { key: 'not-a-key' })).status).toBe(401);
    expect((await t.api.customer('listInstances', { key: apikey })).status).toBe(401);
  });

  it('answers 405 with Allow for a method the path does not have', async () => {
    await expectMethodNotAllowed(t, 'listInstances', 'PATCH', ['GET', 'POST']);
  });
});

describe('createInstance', () => {
  it('creates an instance from a JSON body and returns its id, connection url and instance key, with the message production answers', async () => {
    const c = await catalogue(t);
    const name = randomName('json');
    const res = await create({ name, plan: c.dedicated[0]!.name, region: c.anyRegion });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['apikey', 'id', 'message', 'url']);
    // The document: production answers `message: "Instance created"`, and its clients read it.
    expect(res.body.message).toBe('Instance created');
    const got = await get(res.body.id);
    expect(got.body).toMatchObject({
      id: res.body.id,
      name,
      plan: c.dedicated[0]!.name,
      region: c.anyRegion,
      url: res.body.url,
      apikey: res.body.apikey,
    });
    expect((await list()).map((i) => i.id)).toContain(res.body.id);
  });

  it('ignores fields the contract does not name (as production does): the instance is created and they are neither stored nor echoed', async () => {
    const c = await catalogue(t);
    const name = randomName('extra');
    const res = await create({
      name,
      plan: c.dedicated[0]!.name,
      region: c.anyRegion,
      no_default_alarms: true,
      colour: 'blue',
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body).not.toHaveProperty('colour');
    const got = (await get(res.body.id)).body;
    expect(got).toMatchObject({ name, plan: c.dedicated[0]!.name });
    expect(got).not.toHaveProperty('colour');
    expect(got).not.toHaveProperty('no_default_alarms');
  });

  it('stores the tags given on create and on update, and returns them in get and list (JSON and form)', async () => {
    const c = await catalogue(t);
    const res = await create({
      name: randomName('tags'),
      plan: c.dedicated[0]!.name,
      region: c.anyRegion,
      tags: ['production', 'team-a'],
    });
    expect(res.status, res.text).toBe(200);
    expect((await get(res.body.id)).body.tags).toEqual(['production', 'team-a']);
    expect((await list()).find((i) => i.id === res.body.id)!.tags).toEqual(['production', 'team-a']);
    const form = await create(
      { name: randomName('tags'), plan: c.dedicated[0]!.name, region: c.anyRegion, tags: ['a', 'b'] },
      { form: true },
    );
    expect(form.status, form.text).toBe(200);
    expect((await get(form.body.id)).body.tags).toEqual(['a', 'b']);
    const updated = await t.api.customer('updateInstance', { params: { id: res.body.id }, body: { tags: [] } });
    t.api.expectStatus(updated, '2XX');
    expect((await get(res.body.id)).body.tags).toEqual([]);
  });

  it('creates an instance from a form body', async () => {
    const c = await catalogue(t);
    const name = randomName('form');
    const res = await create(
      { name, plan: c.dedicated[0]!.name, region: c.anyRegion, action: 'standalone', pg_version: '16' },
      { form: true },
    );
    expect(res.status).toBe(200);
    expect((await get(res.body.id)).body.name).toBe(name);
  });

  it(
    'creates an instance that is not ready at first and becomes ready',
    async () => {
      const c = await catalogue(t);
      const sent = Date.now();
      const res = await create({ name: randomName(), plan: c.dedicated[0]!.name, region: c.anyRegion });
      const first = await get(res.body.id);
      // In-process the provision delay is known: not ready before it has passed, which only an
      // answer that came back sooner can show (a busy runner may take longer; then it proves nothing).
      if (t.target.provisionDelayMs !== undefined && Date.now() - sent < t.target.provisionDelayMs)
        expect(first.body.ready).toBe(false);
      await eventually(async () => (await get(res.body.id)).body.ready === true, READY_PATIENCE_MS);
    },
    READY_PATIENCE_MS + 30_000,
  );

  it('places a shared plan in a region that has shared plans', async ({ skip }) => {
    const c = await catalogue(t);
    if (!c.shared.length || !c.sharedRegion) skip('the target has no shared plan or no region with shared plans');
    const res = await create({ name: randomName(), plan: c.shared[0]!.name, region: c.sharedRegion });
    expect(res.status).toBe(200);
    expect((await get(res.body.id)).body).toMatchObject({ plan: c.shared[0]!.name, region: c.sharedRegion });
  });

  it('refuses a shared plan in a region without shared plans (400 naming region), creating nothing', async ({
    skip,
  }) => {
    const c = await catalogue(t);
    if (!c.shared.length || !c.noSharedRegion) skip('the target has no shared plan or no region without shared plans');
    const before = await list();
    expectBadRequest(await create({ name: randomName(), plan: c.shared[0]!.name, region: c.noSharedRegion }), 'region');
    expect(await list()).toEqual(before);
  });

  it('refuses an unknown plan (400 naming plan) and an unknown region (400 naming region), creating nothing', async () => {
    const c = await catalogue(t);
    const before = await list();
    expectBadRequest(await create({ name: randomName(), plan: 'no-such-plan', region: c.anyRegion }), 'plan');
    expectBadRequest(
      await create({ name: randomName(), plan: c.dedicated[0]!.name, region: 'no-such-provider::nowhere-1' }),
      'region',
    );
    expectBadRequest(await create({ name: randomName(), plan: c.dedicated[0]!.name, region: 'us-east-1' }), 'region');
    expect(await list()).toEqual(before);
  });

  it('requires name, plan and region, and refuses values outside the document', async () => {
    const c = await catalogue(t);
    const ok = { name: randomName(), plan: c.dedicated[0]!.name, region: c.anyRegion };
    const before = await list();
    expectBadRequest(await create({ plan: ok.plan, region: ok.region }), 'name');
    expectBadRequest(await create({ name: ok.name, region: ok.region }), 'plan');
    expectBadRequest(await create({ name: ok.name, plan: ok.plan }), 'region');
    expectBadRequest(await create({ ...ok, name: '' }), 'name');
    expectBadRequest(await create({ ...ok, name: 'x'.repeat(65) }), 'name');
    expectBadRequest(await create({ ...ok, action: 'clone' }), 'action');
    expectBadRequest(await create({ ...ok, pg_version: '9' }), 'pg_version');
    expectBadRequest(await create({ ...ok, action: 'fork', instance_id: 'one' }, { form: true }), 'instance_id');
    expect((await create(ok)).status).toBe(200);
    expect((await list()).filter((i) => !before.some((b) => b.id === i.id)).map((i) => i.name)).toEqual([ok.name]);
  });

  it('forks an instance of the account', async () => {
    const source = await createInstance(t);
    const name = randomName('fork');
    const res = await create({
      name,
      plan: source.plan,
      region: source.region,
      action: 'fork',
      instance_id: source.id,
    });
    expect(res.status).toBe(200);
    expect(res.body.id).not.toBe(source.id);
    expect((await get(res.body.id)).body.name).toBe(name);
  });

  it('refuses a fork without instance_id or of an instance the account does not have (400 naming instance_id)', async () => {
    const c = await catalogue(t);
    const body = { name: randomName(), plan: c.dedicated[0]!.name, region: c.anyRegion, action: 'fork' };
    const before = await list();
    expectBadRequest(await create(body), 'instance_id');
    expectBadRequest(await create({ ...body, instance_id: await goneId() }), 'instance_id');
    expect((await list()).map((i) => i.id)).toEqual(before.map((i) => i.id));
  });

  it('creates a point-in-time copy at a time between the source’s creation and now', async () => {
    const source = await createInstance(t);
    await sleep(2500);
    // (The target's time, known to within a second when its clock is not this machine's: see Client.now.)
    const res = await create({
      name: randomName('pit'),
      plan: source.plan,
      region: source.region,
      action: 'pit',
      instance_id: source.id,
      pit: pitOf(t.api.now() - 750),
    });
    expect(res.status, res.text).toBe(200);
  });

  it('refuses a point-in-time copy without pit, at a time in the future, before the source existed, or not a time (400 naming pit)', async () => {
    const source = await createInstance(t);
    const body = {
      name: randomName(),
      plan: source.plan,
      region: source.region,
      action: 'pit',
      instance_id: source.id,
    };
    const before = await list();
    expectBadRequest(await create(body), 'pit');
    expectBadRequest(await create({ ...body, pit: pitOf(t.api.now() + 3_600_000) }), 'pit');
    expectBadRequest(await create({ ...body, pit: '2001-01-01 00:00:00' }), 'pit');
    expectBadRequest(await create({ ...body, pit: '2026-11-20T14:30:00Z' }), 'pit');
    expectBadRequest(await create({ ...body, pit: '2026-02-30 10:00:00' }), 'pit');
    expectBadRequest(await create({ ...body, pit: pitOf(t.api.now()), instance_id: await goneId() }), 'instance_id');
    expect((await list()).map((i) => i.id)).toEqual(before.map((i) => i.id));
  });

  it('is open to a devops key and closed to member, monitor and billing manager keys (403)', async ({ skip }) => {
    const c = await catalogue(t);
    const body = () => ({ name: randomName(), plan: c.dedicated[0]!.name, region: c.anyRegion });
    for (const role of ['member', 'monitor', 'billing manager'] as const) {
      expect((await create(body(), { key: requireRoleKey(t, role, skip) })).status, role).toBe(403);
    }
    expect((await create(body(), { key: requireRoleKey(t, 'devops', skip) })).status).toBe(200);
  });

  it('fails validation for a JSON body sent without Content-Type application/json (400)', async () => {
    const c = await catalogue(t);
    const text = JSON.stringify({ name: randomName(), plan: c.dedicated[0]!.name, region: c.anyRegion });
    const before = await list();
    expectBadRequest(await t.api.customer('createInstance', { raw: { text, contentType: 'text/plain' } }));
    expect(await list()).toEqual(before);
  });

  it('answers 400 to malformed JSON', async () => {
    expectBadRequest(
      await t.api.customer('createInstance', { raw: { text: '{"name": "x",', contentType: 'application/json' } }),
    );
  });

  it('answers 401 without a key', async () => {
    expect(
      (await t.api.customer('createInstance', { key: null, body: { name: 'x', plan: 'y', region: 'a::b' } })).status,
    ).toBe(401);
  });
});

describe('getInstance', () => {
  it('returns the instance with its instance key and ready flag', async () => {
    const a = await createInstance(t);
    const res = await get(a.id);
    expect(res.status).toBe(200);
    expect(
      Object.keys(res.body)
        .filter((k) => k !== 'tags')
        .sort(),
    ).toEqual(['apikey', 'id', 'name', 'plan', 'providerid', 'ready', 'region', 'url']);
    expect(res.body).toMatchObject({ id: a.id, apikey: a.apikey, plan: a.plan, region: a.region });
    const summary = (await list()).find((i) => i.id === a.id)!;
    expect(res.body).toMatchObject(summary);
  });

  it('answers 404 for an id the account does not have and 400 for an id that is not a positive integer', async () => {
    expect((await get(await goneId())).status).toBe(404);
    expectBadRequest(await t.api.customer('getInstance', { params: { id: 'abc' } }), 'id');
    expectBadRequest(await t.api.customer('getInstance', { params: { id: 0 } }), 'id');
  });

  it('is open to a monitor key and closed to a billing manager key (403)', async ({ skip }) => {
    const { id } = await createInstance(t);
    expect(
      (await t.api.customer('getInstance', { params: { id }, key: requireRoleKey(t, 'monitor', skip) })).status,
    ).toBe(200);
    expect(
      (await t.api.customer('getInstance', { params: { id }, key: requireRoleKey(t, 'billing manager', skip) })).status,
    ).toBe(403);
  });

  it('answers 401 with a wrong key and 405 for PATCH', async () => {
    const { id } = await createInstance(t);
    expect((await t.api.customer('getInstance', { params: { id }, key: 'wrong' })).status).toBe(401);
    await expectMethodNotAllowed(t, 'getInstance', 'PATCH', ['DELETE', 'GET', 'PUT'], { id });
  });
});

describe('updateInstance', () => {
  it('renames an instance from a form body, keeping its id, url, apikey and region', async () => {
    const a = await createInstance(t);
    const before = (await get(a.id)).body;
    const name = randomName('renamed');
    const res = await t.api.customer('updateInstance', { params: { id: a.id }, body: { name }, form: true });
    expect([200, 204]).toContain(res.status);
    const after = (await get(a.id)).body;
    expect(after).toMatchObject({ ...before, name, ready: after.ready });
  });

  it('moves an instance to another plan from a JSON body', async () => {
    const c = await catalogue(t);
    const a = await createInstance(t);
    const other = c.dedicated.find((p) => p.name !== a.plan)!;
    const res = await t.api.customer('updateInstance', { params: { id: a.id }, body: { plan: other.name } });
    expect([200, 204]).toContain(res.status);
    if (res.status === 200 && t.target.inProcess) expect(res.body).toMatchObject({ id: a.id, plan: other.name });
    expect((await get(a.id)).body.plan).toBe(other.name);
    expect((await list()).find((i) => i.id === a.id)!.plan).toBe(other.name);
  });

  it('refuses an unknown plan (400 naming plan), an empty body and a too long name, changing nothing', async () => {
    const a = await createInstance(t);
    const before = (await get(a.id)).body;
    expectBadRequest(
      await t.api.customer('updateInstance', {
        params: { id: a.id },
        body: { name: randomName(), plan: 'no-such-plan' },
      }),
      'plan',
    );
    expectBadRequest(await t.api.customer('updateInstance', { params: { id: a.id }, body: {} }));
    expectBadRequest(
      await t.api.customer('updateInstance', { params: { id: a.id }, body: { name: 'x'.repeat(65) } }),
      'name',
    );
    // region is no field of an update: it is ignored, which leaves the body without a field to change.
    expectBadRequest(await t.api.customer('updateInstance', { params: { id: a.id }, body: { region: a.region } }));
    const after = (await get(a.id)).body;
    expect({ ...after, ready: before.ready }).toEqual(before);
  });

  it('refuses a shared plan for an instance in a region without shared plans (400), changing nothing', async ({
    skip,
  }) => {
    const c = await catalogue(t);
    if (!c.shared.length || !c.noSharedRegion) skip('the target has no shared plan or no region without shared plans');
    const res = await create({ name: randomName(), plan: c.dedicated[0]!.name, region: c.noSharedRegion });
    expectBadRequest(
      await t.api.customer('updateInstance', { params: { id: res.body.id }, body: { plan: c.shared[0]!.name } }),
    );
    expect((await get(res.body.id)).body.plan).toBe(c.dedicated[0]!.name);
  });

  it('answers 404 for an id the account does not have', async () => {
    expect(
      (await t.api.customer('updateInstance', { params: { id: await goneId() }, body: { name: 'x' } })).status,
    ).toBe(404);
  });

  it('is open to a member key and closed to a monitor key (403)', async ({ skip }) => {
    const a = await createInstance(t);
    expect(
      (
        await t.api.customer('updateInstance', {
          params: { id: a.id },
          body: { name: 'by-monitor' },
          key: requireRoleKey(t, 'monitor', skip),
        })
      ).status,
    ).toBe(403);
    expect((await get(a.id)).body.name).not.toBe('by-monitor');
    expect([200, 204]).toContain(
      (
        await t.api.customer('updateInstance', {
          params: { id: a.id },
          body: { name: 'by-member' },
          key: requireRoleKey(t, 'member', skip),
        })
      ).status,
    );
    expect((await get(a.id)).body.name).toBe('by-member');
  });

  it('answers 401 without a key', async () => {
    const a = await createInstance(t);
    expect(
      (await t.api.customer('updateInstance', { params: { id: a.id }, body: { name: 'x' }, key: null })).status,
    ).toBe(401);
  });
});

describe('deleteInstance', () => {
  it('deleting an instance removes it and revokes its instance key', async () => {
    const a = await createInstance(t);
    expect((await t.api.instance('listRecipients', a.apikey)).status).toBe(200);
    const res = await t.api.customer('deleteInstance', { params: { id: a.id } });
    expect([200, 204]).toContain(res.status);
    expect((await t.api.instance('listRecipients', a.apikey)).status).toBe(401);
    expect((await get(a.id)).status).toBe(404);
    expect((await list()).map((i) => i.id)).not.toContain(a.id);
  });

  it('answers 404 for an instance that was already deleted', async () => {
    expect((await t.api.customer('deleteInstance', { params: { id: await goneId() } })).status).toBe(404);
  });

  it('is open to a devops key and closed to a member key (403)', async ({ skip }) => {
    const a = await createInstance(t);
    expect(
      (await t.api.customer('deleteInstance', { params: { id: a.id }, key: requireRoleKey(t, 'member', skip) })).status,
    ).toBe(403);
    expect((await get(a.id)).status).toBe(200);
    expect([200, 204]).toContain(
      (await t.api.customer('deleteInstance', { params: { id: a.id }, key: requireRoleKey(t, 'devops', skip) })).status,
    );
    expect((await get(a.id)).status).toBe(404);
  });

  it('answers 401 with a wrong key, leaving the instance', async () => {
    const a = await createInstance(t);
    expect((await t.api.customer('deleteInstance', { params: { id: a.id }, key: 'wrong' })).status).toBe(401);
    expect((await get(a.id)).status).toBe(200);
  });
});
