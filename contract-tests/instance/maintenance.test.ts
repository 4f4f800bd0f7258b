// Upcoming maintenance of the instance interface: list, reschedule, run now, and the errors a
// client can provoke.
import { describe, expect, it } from 'vitest';
import { createInstance, useContract, type InstanceSchema } from '../harness/index.js';
import { DAY, expectError, expectMethodNotAllowed, maintenanceDateOf, timeOf } from './support.js';

const t = useContract();

/** An instance with its upcoming maintenance; the reference implementation gives each new instance one or two items. */
async function withMaintenance(): Promise<{ key: string; items: InstanceSchema<'Maintenance'>[] }> {
  const { apikey } = await createInstance(t);
  const res = await t.api.instance('listMaintenance', apikey);
  expect(res.status).toBe(200);
  const items = res.body;
  expect(items.length, 'the target created no maintenance for a new instance').toBeGreaterThan(0);
  return { key: apikey, items };
}

const list = async (key: string) => (await t.api.instance('listMaintenance', key)).body;

describe('maintenance', () => {
  it('lists the upcoming maintenance, scheduled, with scheduled_by before required_by', async () => {
    const { items } = await withMaintenance();
    for (const m of items) {
      expect(m.status).toBe('scheduled');
      expect(timeOf(m.scheduled_by)).toBeGreaterThan(t.api.now());
      expect(timeOf(m.scheduled_by)).toBeLessThanOrEqual(timeOf(m.required_by));
    }
  });

  it('rescheduling moves scheduled_by and keeps the item scheduled', async () => {
    const { key, items } = await withMaintenance();
    const m = items[0]!;
    const target = Math.floor((t.api.now() + timeOf(m.required_by)) / 2 / 1000) * 1000;
    const res = await t.api.instance('rescheduleMaintenance', key, {
      params: { id: m.id },
      body: { scheduled_by: maintenanceDateOf(target) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: m.id,
      status: 'scheduled',
      scheduled_by: maintenanceDateOf(target),
      required_by: m.required_by,
    });
    expect((await list(key)).find((x) => x.id === m.id)).toEqual({ ...m, scheduled_by: maintenanceDateOf(target) });
  });

  it('rescheduling accepts form encoding and any UTC offset', async () => {
    const { key, items } = await withMaintenance();
    const m = items[0]!;
    const target = Math.floor((t.api.now() + 2 * DAY) / 1000) * 1000;
    // The same moment written with +0200.
    const local = new Date(target + 2 * 60 * 60_000).toISOString().slice(0, 19).replace('T', ' ') + ' +0200';
    const res = await t.api.instance('rescheduleMaintenance', key, {
      params: { id: m.id },
      body: { scheduled_by: local },
      form: true,
    });
    expect(res.status).toBe(200);
    expect(timeOf((await list(key)).find((x) => x.id === m.id)!.scheduled_by)).toBe(target);
  });

  it('rescheduling into the past, after required_by, or in another form is a 400 naming scheduled_by, and changes nothing', async () => {
    const { key, items } = await withMaintenance();
    const m = items[0]!;
    const cases = [
      maintenanceDateOf(t.api.now() - DAY),
      maintenanceDateOf(timeOf(m.required_by) + 1000),
      '2026-02-30 02:00:00 +0000',
      '2026-12-01T02:00:00Z',
      '2026-12-01 02:00:00',
    ];
    for (const scheduled_by of cases) {
      expectError(
        await t.api.instance('rescheduleMaintenance', key, { params: { id: m.id }, body: { scheduled_by } }),
        400,
        'scheduled_by',
      );
    }
    expectError(
      await t.api.instance('rescheduleMaintenance', key, { params: { id: m.id }, body: {} }),
      400,
      'scheduled_by',
    );
    expect(await list(key)).toEqual(items);
  });

  it('running an item starts it now: in_progress, and it can be neither run again nor rescheduled', async () => {
    const { key, items } = await withMaintenance();
    const m = items[0]!;
    const res = await t.api.instance('runMaintenance', key, { params: { id: m.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: m.id, status: 'in_progress' });
    expect((await list(key)).find((x) => x.id === m.id)!.status).toBe('in_progress');
    expectError(await t.api.instance('runMaintenance', key, { params: { id: m.id } }), 400);
    expectError(
      await t.api.instance('rescheduleMaintenance', key, {
        params: { id: m.id },
        body: { scheduled_by: maintenanceDateOf(t.api.now() + DAY) },
      }),
      400,
      'scheduled_by',
    );
  });

  it('an unknown id is a 404; a non-integer id a 400', async () => {
    const { key } = await withMaintenance();
    expectError(await t.api.instance('runMaintenance', key, { params: { id: 999999 } }), 404);
    expectError(
      await t.api.instance('rescheduleMaintenance', key, {
        params: { id: 999999 },
        body: { scheduled_by: maintenanceDateOf(t.api.now() + DAY) },
      }),
      404,
    );
    expectError(await t.api.instance('runMaintenance', key, { params: { id: 'next' } }), 400, 'id');
  });

  it('unsupported methods are a 405 with Allow', async () => {
    const { key } = await withMaintenance();
    await expectMethodNotAllowed(t, 'POST', '/api/maintenance', key, ['GET']);
    await expectMethodNotAllowed(t, 'DELETE', '/api/maintenance/1', key, ['POST', 'PUT']);
  });
});
