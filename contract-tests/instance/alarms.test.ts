// Alarms of the instance interface: the four default alarms, create/get/update/delete per type, in
// JSON and in form encoding, the plan's alarm types, and every error a client can provoke.
import { beforeAll, describe, expect, it } from 'vitest';
import { createInstance, useContract } from '../harness/index.js';
import { expectError, expectMethodNotAllowed } from './support.js';

const t = useContract();
let key: string;
let defaultRecipient: number;
beforeAll(async () => {
  ({ apikey: key } = await createInstance(t));
  defaultRecipient = ((await t.api.instance('listRecipients', key)).body as { id: number; name: string }[]).find(
    (r) => r.name === 'Default',
  )!.id;
});

const create = async (body: Record<string, unknown>, form = false) => {
  const res = await t.api.instance('createAlarm', key, { body, form });
  return t.api.record('instance', 'Alarm', res);
};
const get = async (id: number) => (await t.api.instance('getAlarm', key, { params: { id } })).body;

describe('alarms', () => {
  it('a new instance has the four default alarms, all enabled, without recipients', async () => {
    const { apikey } = await createInstance(t);
    const res = await t.api.instance('listAlarms', apikey);
    expect(res.status).toBe(200);
    const list = res.body.map(({ id: _id, ...rest }) => rest);
    expect(list).toEqual([
      { type: 'cpu', enabled: true, value_threshold: 90, time_threshold: 600, recipients: [] },
      { type: 'memory', enabled: true, value_threshold: 90, time_threshold: 600, recipients: [] },
      {
        type: 'disk',
        enabled: true,
        value_threshold: 5,
        value_calculation: 'fixed',
        time_threshold: 600,
        recipients: [],
      },
      { type: 'notice', enabled: true, recipients: [] },
    ]);
  });

  it('creating an alarm returns it with enabled true and recipients [] by default, and it reads back', async () => {
    const a = await create({ type: 'cpu', value_threshold: 80, time_threshold: 300 });
    expect(a).toMatchObject({ type: 'cpu', enabled: true, value_threshold: 80, time_threshold: 300, recipients: [] });
    expect(await get(a.id)).toEqual(a);
    expect((await t.api.instance('listAlarms', key)).body).toContainEqual(a);
  });

  it('creating in form encoding reads recipients=[1,2], enabled=false and the numbers by the schema', async () => {
    const r = await t.api.instance('createRecipient', key, { body: { type: 'email', value: 'form@example.com' } });
    const a = await create(
      {
        type: 'memory',
        enabled: false,
        value_threshold: 75,
        time_threshold: 120,
        recipients: [defaultRecipient, r.body.id],
      },
      true,
    );
    expect(a).toMatchObject({
      type: 'memory',
      enabled: false,
      value_threshold: 75,
      time_threshold: 120,
      recipients: [defaultRecipient, r.body.id],
    });
  });

  it('a disk alarm has value_calculation fixed by default, or percentage', async () => {
    expect((await create({ type: 'disk', value_threshold: 200, time_threshold: 600 })).value_calculation).toBe('fixed');
    expect(
      await create({ type: 'disk', value_threshold: 80, time_threshold: 600, value_calculation: 'percentage' }),
    ).toMatchObject({
      value_calculation: 'percentage',
      value_threshold: 80,
    });
  });

  it('the event types take type, enabled and recipients only', async () => {
    for (const type of ['notice', 'server_unreachable', 'netsplit']) {
      const a = await create({ type, enabled: false, recipients: [defaultRecipient] });
      expect(a).toEqual({ id: a.id, type, enabled: false, recipients: [defaultRecipient] });
    }
  });

  it('refuses invalid bodies with 400 naming the field, and creates nothing', async () => {
    const before = (await t.api.instance('listAlarms', key)).body;
    const cases: [Record<string, unknown>, string][] = [
      [{ value_threshold: 80, time_threshold: 300 }, 'type'],
      [{ type: 'fire' }, 'type'],
      [{ type: 'cpu', time_threshold: 300 }, 'value_threshold'],
      [{ type: 'cpu', value_threshold: 80 }, 'time_threshold'],
      [{ type: 'cpu', value_threshold: 101, time_threshold: 300 }, 'value_threshold'],
      [{ type: 'memory', value_threshold: 0, time_threshold: 300 }, 'value_threshold'],
      [{ type: 'cpu', value_threshold: 80.5, time_threshold: 300 }, 'value_threshold'],
      [{ type: 'cpu', value_threshold: 80, time_threshold: 604801 }, 'time_threshold'],
      [{ type: 'disk', value_threshold: 101, time_threshold: 300, value_calculation: 'percentage' }, 'value_threshold'],
      [{ type: 'disk', value_threshold: 10, time_threshold: 300, value_calculation: 'relative' }, 'value_calculation'],
      [{ type: 'cpu', value_threshold: 80, time_threshold: 300, value_calculation: 'fixed' }, 'value_calculation'],
      [{ type: 'notice', value_threshold: 80 }, 'value_threshold'],
      [{ type: 'server_unreachable', time_threshold: 80 }, 'time_threshold'],
      [{ type: 'notice', enabled: 'yes' }, 'enabled'],
      [{ type: 'notice', recipients: 'all' }, 'recipients'],
      [{ type: 'notice', recipients: [defaultRecipient, defaultRecipient] }, 'recipients'],
    ];
    for (const [body, field] of cases) expectError(await t.api.instance('createAlarm', key, { body }), 400, field);
    expect((await t.api.instance('listAlarms', key)).body).toEqual(before);
  });

  it('refuses invalid form fields (a non-boolean enabled, recipients that are not JSON) with 400', async () => {
    expectError(
      await t.api.instance('createAlarm', key, { body: { type: 'notice', enabled: 'maybe' }, form: true }),
      400,
      'enabled',
    );
    expectError(
      await t.api.instance('createAlarm', key, {
        raw: { text: 'type=notice&recipients=1,2', contentType: 'application/x-www-form-urlencoded' },
      }),
      400,
      'recipients',
    );
    expectError(
      await t.api.instance('createAlarm', key, {
        body: { type: 'cpu', value_threshold: 'ninety', time_threshold: 60 },
        form: true,
      }),
      400,
      'value_threshold',
    );
  });

  it('recipients must be recipients of this instance (400 naming recipients)', async () => {
    const before = (await t.api.instance('listAlarms', key)).body;
    expectError(
      await t.api.instance('createAlarm', key, { body: { type: 'notice', recipients: [defaultRecipient, 987654] } }),
      400,
      'recipients',
    );
    expect((await t.api.instance('listAlarms', key)).body).toEqual(before);
  });

  it('a shared instance accepts only notice; another type is a 400 saying it is not available on shared plans', async () => {
    const { apikey } = await createInstance(t, { shared: true });
    const before = (await t.api.instance('listAlarms', apikey)).body;
    for (const body of [
      { type: 'cpu', value_threshold: 80, time_threshold: 60 },
      { type: 'memory', value_threshold: 80, time_threshold: 60 },
      { type: 'disk', value_threshold: 8, time_threshold: 60 },
      { type: 'netsplit' },
      { type: 'server_unreachable' },
    ]) {
      const res = await t.api.instance('createAlarm', apikey, { body });
      expect(expectError(res, 400, 'type').error).toMatch(/not available on shared plans/);
    }
    expect((await t.api.instance('listAlarms', apikey)).body).toEqual(before);
    t.api.expectStatus(await t.api.instance('createAlarm', apikey, { body: { type: 'notice' } }), '2XX');
  });

  it("updating enabled switches the alarm off and on (the spec's transition), keeping the other fields", async () => {
    const a = await create({ type: 'cpu', value_threshold: 70, time_threshold: 90, recipients: [defaultRecipient] });
    const off = await t.api.instance('updateAlarm', key, {
      params: { id: a.id },
      body: { type: 'cpu', enabled: false },
    });
    t.api.expectStatus(off, '2XX');
    expect(off.body).toEqual({ ...a, enabled: false });
    expect(await get(a.id)).toEqual({ ...a, enabled: false });
    const on = await t.api.instance('updateAlarm', key, {
      params: { id: a.id },
      body: { type: 'cpu', enabled: true },
      form: true,
    });
    expect(on.body).toEqual(a);
  });

  it('updating is a merge: given fields replace, recipients replaces the whole list', async () => {
    const a = await create({ type: 'memory', value_threshold: 70, time_threshold: 90, recipients: [defaultRecipient] });
    const res = await t.api.instance('updateAlarm', key, {
      params: { id: a.id },
      body: { type: 'memory', time_threshold: 30, recipients: [] },
    });
    expect(res.body).toEqual({ ...a, time_threshold: 30, recipients: [] });
    const form = await t.api.instance('updateAlarm', key, {
      params: { id: a.id },
      body: { type: 'memory', recipients: [defaultRecipient] },
      form: true,
    });
    expect(form.body).toEqual({ ...a, time_threshold: 30 });
  });

  it('updating with another type, an unknown recipient or a body the type does not take is a 400, and changes nothing', async () => {
    const a = await create({ type: 'disk', value_threshold: 500, time_threshold: 60 });
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'cpu', enabled: false }, 'type'],
      [{ enabled: false }, 'type'],
      [{ type: 'disk', recipients: [987654] }, 'recipients'],
      // The merged alarm: 500 GB stored, percentage would make it 500 %.
      [{ type: 'disk', value_calculation: 'percentage' }, 'value_'],
      [{ type: 'disk', value_calculation: 'percentage', value_threshold: 101 }, 'value_threshold'],
    ];
    for (const [body, field] of cases)
      expectError(await t.api.instance('updateAlarm', key, { params: { id: a.id }, body }), 400, field);
    expect(await get(a.id)).toEqual(a);
  });

  it('an id that is not a positive integer is a 400; an unknown id a 404', async () => {
    expectError(await t.api.instance('getAlarm', key, { params: { id: 'first' } }), 400, 'id');
    expectError(await t.api.instance('getAlarm', key, { params: { id: 999999 } }), 404);
    expectError(
      await t.api.instance('updateAlarm', key, { params: { id: 999999 }, body: { type: 'cpu', enabled: false } }),
      404,
    );
    expectError(await t.api.instance('deleteAlarm', key, { params: { id: 999999 } }), 404);
  });

  it('deleting an alarm removes it; a default alarm can be deleted too', async () => {
    const { apikey } = await createInstance(t);
    const [cpu] = (await t.api.instance('listAlarms', apikey)).body;
    const del = await t.api.instance('deleteAlarm', apikey, { params: { id: cpu!.id } });
    expect([200, 204]).toContain(del.status);
    expectError(await t.api.instance('getAlarm', apikey, { params: { id: cpu!.id } }), 404);
    expect((await t.api.instance('listAlarms', apikey)).body.map((a) => a.type)).toEqual(['memory', 'disk', 'notice']);
    expectError(await t.api.instance('deleteAlarm', apikey, { params: { id: cpu!.id } }), 404);
  });

  it('unsupported methods are a 405 with Allow', async () => {
    await expectMethodNotAllowed(t, 'PATCH', '/api/alarms', key, ['GET', 'POST']);
    await expectMethodNotAllowed(t, 'DELETE', '/api/alarms', key, ['GET', 'POST']);
    await expectMethodNotAllowed(t, 'POST', '/api/alarms/1', key, ['GET', 'PUT', 'DELETE']);
  });
});
