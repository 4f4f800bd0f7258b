// Authentication of the instance interface, and the stories that cross both interfaces.
import { describe, expect, it } from 'vitest';
import request from 'supertest';
import { createInstance, useContract } from '../harness/index.js';
import { expectError } from './support.js';

const t = useContract();

/** Path parameters that fit each operation's path. */
function paramsFor(path: string, method: string): Record<string, string | number> {
  const metrics = path.includes('/metrics/');
  return {
    id: 1,
    system_or_int_id: method === 'post' ? (metrics ? 'metrics_c_v3' : 'logs_d') : 1,
    system: metrics ? 'metrics_c_v3' : 'logs_d',
    int_id: 1,
  };
}

describe('instance interface authentication', () => {
  it('every operation refuses a request without credentials with 401 and WWW-Authenticate', async () => {
    for (const op of t.contract.operations.instance.values()) {
      const res = await t.api.call('instance', op.operationId, { key: null, params: paramsFor(op.path, op.method) });
      expectError(res, 401);
      expect(res.headers['www-authenticate'], op.operationId).toMatch(/^Basic/);
    }
  });

  it('every operation refuses a wrong key with 401', async () => {
    for (const op of t.contract.operations.instance.values()) {
      const res = await t.api.call('instance', op.operationId, {
        key: 'not-a-tusk-key-0000000000000000',
        params: paramsFor(op.path, op.method),
      });
      expectError(res, 401);
    }
  });

  it('every operation refuses the customer admin key with 401', async () => {
    for (const op of t.contract.operations.instance.values()) {
      const res = await t.api.call('instance', op.operationId, {
        key: t.target.apiKey,
        params: paramsFor(op.path, op.method),
      });
      expectError(res, 401);
    }
  });

  it('refuses credentials that are not HTTP Basic with 401', async () => {
    const { apikey } = await createInstance(t);
    const res = await request(t.target.instanceUrl).get('/api/alarms').set('Authorization', `Bearer ${apikey}`);
    t.contract.check('instance', 'listAlarms', res);
    expectError(res, 401);
  });

  it('accepts the instance key in the password field (user empty) and in the user field', async () => {
    const { apikey } = await createInstance(t);
    expect((await t.api.instance('listAlarms', apikey)).status).toBe(200);
    const res = await request(t.target.instanceUrl).get('/api/alarms').auth(apikey, '');
    t.contract.check('instance', 'listAlarms', res);
    expect(res.status).toBe(200);
  });

  it("the key of another instance opens only that instance: it never sees this instance's resources", async () => {
    const a = await createInstance(t);
    const b = await createInstance(t);
    const created = await t.api.instance('createRecipient', a.apikey, {
      body: { type: 'email', value: 'only-a@example.com', name: 'only a' },
    });
    t.api.expectStatus(created, '2XX');
    const listB = await t.api.instance('listRecipients', b.apikey);
    expect(listB.status).toBe(200);
    expect((listB.body as { value: string }[]).map((r) => r.value)).not.toContain('only-a@example.com');
    const alarm = await t.api.instance('createAlarm', a.apikey, {
      body: { type: 'notice', recipients: [created.body.id] },
    });
    t.api.expectStatus(alarm, '2XX');
    const alarmsB = (await t.api.instance('listAlarms', b.apikey)).body as { recipients: number[] }[];
    expect(alarmsB.every((x) => !x.recipients.includes(created.body.id))).toBe(true);
  });

  it('an unknown path is a 404 with the JSON error body', async () => {
    const { apikey } = await createInstance(t);
    const res = await t.api.send(t.target.instanceUrl, 'GET', '/api/nothing-here', { key: apikey, unchecked: true });
    expectError(res, 404);
  });
});

describe('stories across the customer and instance interfaces', () => {
  it('create an instance, manage its alarms with its key, rotate the key, delete the instance: the key dies', async () => {
    const { id, apikey } = await createInstance(t);
    // The key of create-instance is the key of get-instance and opens the instance interface.
    const got = await t.api.customer('getInstance', { params: { id } });
    expect(got.body.apikey).toBe(apikey);

    const alarm = {
      body: t.api.record(
        'instance',
        'Alarm',
        await t.api.instance('createAlarm', apikey, {
          body: { type: 'cpu', value_threshold: 85, time_threshold: 120 },
        }),
      ),
    };
    const off = await t.api.instance('updateAlarm', apikey, {
      params: { id: alarm.body.id },
      body: { type: 'cpu', enabled: false },
    });
    expect(off.body).toMatchObject({ id: alarm.body.id, enabled: false, value_threshold: 85 });

    t.api.expectStatus(await t.api.instance('rotateInstanceApiKey', apikey), '2XX');
    const fresh = (await t.api.customer('getInstance', { params: { id } })).body.apikey;
    expect(fresh).not.toBe(apikey);
    expectError(await t.api.instance('listAlarms', apikey), 401);
    const alarms = await t.api.instance('getAlarm', fresh, { params: { id: alarm.body.id } });
    expect(alarms.body).toMatchObject({ enabled: false, value_threshold: 85 });

    const deleted = await t.api.customer('deleteInstance', { params: { id } });
    expect([200, 204]).toContain(deleted.status);
    expectError(await t.api.instance('listAlarms', fresh), 401);
    expectError(await t.api.instance('getAlarm', fresh, { params: { id: alarm.body.id } }), 401);
  });
});
