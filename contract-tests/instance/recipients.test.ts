// Recipients of the instance interface: the default recipient, create/get/update/delete, in JSON and
// in form encoding, and every error a client can provoke.
import { beforeAll, describe, expect, it } from 'vitest';
import { createInstance, useContract } from '../harness/index.js';
import { expectError, expectMethodNotAllowed } from './support.js';

const t = useContract();
let key: string;
beforeAll(async () => {
  ({ apikey: key } = await createInstance(t));
});

const create = async (body: Record<string, unknown>, form = false) => {
  const res = await t.api.instance('createRecipient', key, { body, form });
  return t.api.record('instance', 'Recipient', res);
};

describe('recipients', () => {
  it('a new instance has the default recipient: name Default, type email, an e-mail address', async () => {
    const { apikey } = await createInstance(t);
    const res = await t.api.instance('listRecipients', apikey);
    expect(res.status).toBe(200);
    const list = res.body;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ type: 'email', name: 'Default', options: null });
    expect(list[0]!.value).toMatch(/^[^@\s]+@[^@\s]+$/);
    const got = await t.api.instance('getRecipient', apikey, { params: { id: list[0]!.id } });
    expect(got.body).toEqual(list[0]);
  });

  it('creating a recipient returns it with its name capitalised, and it is listed', async () => {
    const r = await create({ type: 'email', value: 'oncall@example.com', name: 'on-call' });
    expect(r).toMatchObject({ type: 'email', value: 'oncall@example.com', name: 'On-call', options: {} });
    expect((await t.api.instance('getRecipient', key, { params: { id: r.id } })).body).toEqual(r);
    expect((await t.api.instance('listRecipients', key)).body).toContainEqual(r);
  });

  it('a recipient without a name gets the name ""', async () => {
    expect((await create({ type: 'webhook', value: 'https://hooks.example.com/tusk/alarms' })).name).toBe('');
  });

  it('creating in form encoding works, with options as JSON text kept as given', async () => {
    const options = { channel: '#ops', mention: ['@here'] };
    const r = await create(
      { type: 'chat_a', value: 'https://chat-a.example.com/hooks/T000/B000', name: 'ops chat', options },
      true,
    );
    expect(r).toMatchObject({ type: 'chat_a', name: 'Ops chat', options });
  });

  it('every recipient type is accepted with its value form', async () => {
    const bodies = [
      { type: 'email', value: 'a@example.com' },
      { type: 'webhook', value: 'http://hooks.example.com/a' },
      { type: 'chat_a', value: 'https://chat-a.example.com/x' },
      { type: 'chat_b', value: 'https://chat-b.example.com/y' },
      { type: 'paging_a', value: 'R0ut1ngKey0123456789abcd' },
      { type: 'incident_b', value: 'incident-b-key-0001' },
      { type: 'incident_b_eu', value: 'incident_b_eu_key_0001' },
      { type: 'incident_c', value: 'IncidentC00000001' },
    ];
    for (const body of bodies) expect(await create(body)).toMatchObject(body);
  });

  it('refuses invalid bodies with 400 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ value: 'a@example.com' }, 'type'],
      [{ type: 'email' }, 'value'],
      [{ type: 'pager', value: 'a@example.com' }, 'type'],
      [{ type: 'email', value: 'not-an-address' }, 'value'],
      [{ type: 'webhook', value: 'ftp://hooks.example.com' }, 'value'],
      [{ type: 'paging_a', value: 'short' }, 'value'],
      [{ type: 'email', value: 'a@example.com', name: 'x'.repeat(101) }, 'name'],
      [{ type: 'email', value: 'a@example.com', options: 'text' }, 'options'],
    ];
    const before = (await t.api.instance('listRecipients', key)).body;
    for (const [body, field] of cases) expectError(await t.api.instance('createRecipient', key, { body }), 400, field);
    expect((await t.api.instance('listRecipients', key)).body).toEqual(before);
  });

  it('refuses malformed JSON and a JSON body sent without the JSON content type', async () => {
    expectError(
      await t.api.instance('createRecipient', key, {
        raw: { text: '{"type": "email",', contentType: 'application/json' },
      }),
      400,
    );
    expectError(
      await t.api.instance('createRecipient', key, {
        raw: { text: '{"type":"email","value":"a@example.com"}', contentType: 'text/plain' },
      }),
      400,
    );
  });

  it('an id that is not a positive integer is a 400; an unknown id a 404', async () => {
    expectError(await t.api.instance('getRecipient', key, { params: { id: 'abc' } }), 400, 'id');
    expectError(await t.api.instance('getRecipient', key, { params: { id: 0 } }), 400, 'id');
    expectError(await t.api.instance('getRecipient', key, { params: { id: 999999 } }), 404);
    expectError(
      await t.api.instance('updateRecipient', key, {
        params: { id: 999999 },
        body: { type: 'email', value: 'a@example.com' },
      }),
      404,
    );
    expectError(await t.api.instance('deleteRecipient', key, { params: { id: 999999 } }), 404);
  });

  it('updating replaces type and value and keeps the name when none is given', async () => {
    const r = await create({ type: 'email', value: 'old@example.com', name: 'ops' });
    const res = await t.api.instance('updateRecipient', key, {
      params: { id: r.id },
      body: { type: 'webhook', value: 'https://hooks.example.com/tusk' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: r.id,
      type: 'webhook',
      value: 'https://hooks.example.com/tusk',
      name: 'Ops',
      options: {},
    });
    const renamed = await t.api.instance('updateRecipient', key, {
      params: { id: r.id },
      body: { type: 'webhook', value: 'https://hooks.example.com/tusk', name: 'ops hook' },
      form: true,
    });
    expect(renamed.body.name).toBe('Ops hook');
    expect((await t.api.instance('getRecipient', key, { params: { id: r.id } })).body).toEqual(renamed.body);
  });

  it('updating with an invalid body is a 400 and changes nothing', async () => {
    const r = await create({ type: 'email', value: 'keep@example.com' });
    expectError(
      await t.api.instance('updateRecipient', key, { params: { id: r.id }, body: { type: 'email' } }),
      400,
      'value',
    );
    expectError(
      await t.api.instance('updateRecipient', key, {
        params: { id: r.id },
        body: { type: 'webhook', value: 'keep@example.com' },
      }),
      400,
      'value',
    );
    expect((await t.api.instance('getRecipient', key, { params: { id: r.id } })).body).toEqual(r);
  });

  it('deleting a recipient removes it and takes it off every alarm', async () => {
    const a = await create({ type: 'email', value: 'a@example.com' });
    const b = await create({ type: 'email', value: 'b@example.com' });
    const alarm = {
      body: t.api.record(
        'instance',
        'Alarm',
        await t.api.instance('createAlarm', key, { body: { type: 'notice', recipients: [a.id, b.id] } }),
      ),
    };
    const del = await t.api.instance('deleteRecipient', key, { params: { id: a.id } });
    expect([200, 204]).toContain(del.status);
    expectError(await t.api.instance('getRecipient', key, { params: { id: a.id } }), 404);
    expect((await t.api.instance('getAlarm', key, { params: { id: alarm.body.id } })).body.recipients).toEqual([b.id]);
    expectError(await t.api.instance('deleteRecipient', key, { params: { id: a.id } }), 404);
  });

  it('the default recipient cannot be deleted (400)', async () => {
    const list = (await t.api.instance('listRecipients', key)).body;
    const def = list.find((r) => r.name === 'Default')!;
    expectError(await t.api.instance('deleteRecipient', key, { params: { id: def.id } }), 400);
    expect((await t.api.instance('getRecipient', key, { params: { id: def.id } })).body).toEqual(def);
  });

  it('unsupported methods are a 405 with Allow', async () => {
    await expectMethodNotAllowed(t, 'PATCH', '/api/alarms/recipients', key, ['GET', 'POST']);
    await expectMethodNotAllowed(t, 'PUT', '/api/alarms/recipients', key, ['GET', 'POST']);
    await expectMethodNotAllowed(t, 'DELETE', '/api/alarms/recipients', key, ['GET', 'POST']);
    await expectMethodNotAllowed(t, 'POST', '/api/alarms/recipients/1', key, ['GET', 'PUT', 'DELETE']);
  });
});
