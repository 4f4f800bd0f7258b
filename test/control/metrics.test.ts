// The metrics and events controls (/__tusk/instances/{instance_id}/metrics and /events) in-process,
// as a client developer drives them: which instance a request names when instance ids repeat across
// accounts (?account=, else the request's key, else the one instance with that id), and the 400s of
// a bad id or body, with the field and rule a client reads.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { basic } from './client.js';
import { request } from './setup.js';

const SEEDED_INSTANCE_1_KEY = 'tusk-instance-1-key';

let tusk: Tusk;
/** The seeded account (instances 1 to 4) and a fresh one with its own instance 1. */
let seeded: { id: string; instance1: string };
let fresh: { id: string; adminKey: string; instanceKey: string };

const call = (method: string, path: string, init: { body?: string; authorization?: string } = {}) =>
  request(tusk.customer, method, path, init);
const control = (method: string, path: string, body?: unknown, authorization?: string) =>
  request(tusk.customer, method, `/__tusk${path}`, { body, authorization });

beforeAll(async () => {
  tusk = await createTusk({ log: 'off', provisionDelayMs: 0, seed: 1 });
  const account = [...tusk.registry.allHomes()].map((h) => h.records)[0]!;
  seeded = {
    id: account.id,
    instance1: (await call('GET', '/api/instances/1', { authorization: basic(tusk.registry.adminKey) })).body.name,
  };
  const created = await control('POST', '/accounts', { name: 'Second' });
  expect(created.status).toBe(201);
  const instance = await call('POST', '/api/instances', {
    authorization: basic(created.body.admin_key),
    body: JSON.stringify({ name: 'second-one', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
  });
  expect(instance.body.id).toBe(1);
  fresh = { id: created.body.account_id, adminKey: created.body.admin_key, instanceKey: instance.body.apikey };
});

describe('metrics control: finding the instance', () => {
  it('asks for ?account= (400 account/ambiguous) when several accounts have an instance with the id and the request has no key', async () => {
    const res = await control('GET', '/instances/1/metrics');
    expect(res).toStrictEqual({
      status: 400,
      body: {
        error: `account: instance id 1 exists in 2 accounts (${seeded.id}, ${fresh.id}); add ?account=ACCOUNT_ID or send a key of the account`,
        field: 'account',
        rule: 'ambiguous',
      },
    });
  });

  it('finds the one instance with the id across all accounts when there is no key and no ?account=', async () => {
    const res = await control('GET', '/instances/3/metrics');
    expect(res.status).toBe(200);
    expect(res.body.instance).toStrictEqual({ id: 3, account: seeded.id, name: expect.any(String) });
    expect(await control('GET', '/instances/99/metrics')).toStrictEqual({
      status: 404,
      body: { error: 'Not found: no account has an instance with id 99' },
    });
  });

  it('?account= names the account of the instance', async () => {
    const res = await control('GET', `/instances/1/metrics?account=${fresh.id}`);
    expect(res.status).toBe(200);
    expect(res.body.instance).toStrictEqual({ id: 1, account: fresh.id, name: 'second-one' });
    const other = await control('GET', `/instances/1/metrics?account=${seeded.id}`);
    expect(other.body.instance).toStrictEqual({ id: 1, account: seeded.id, name: seeded.instance1 });
  });

  it('?account= wins over the key', async () => {
    const res = await control('GET', `/instances/1/metrics?account=${seeded.id}`, undefined, basic(fresh.adminKey));
    expect(res.body.instance).toStrictEqual({ id: 1, account: seeded.id, name: seeded.instance1 });
  });

  it('404s an unknown ?account= and an id that account does not have', async () => {
    expect(await control('GET', '/instances/1/metrics?account=no-such-account')).toStrictEqual({
      status: 404,
      body: { error: 'Not found: no account with id no-such-account' },
    });
    expect(await control('GET', `/instances/2/metrics?account=${fresh.id}`)).toStrictEqual({
      status: 404,
      body: { error: `Not found: account ${fresh.id} has no instance with id 2` },
    });
  });

  it('a customer key names its account', async () => {
    const res = await control('GET', '/instances/1/metrics', undefined, basic(fresh.adminKey));
    expect(res.status).toBe(200);
    expect(res.body.instance).toStrictEqual({ id: 1, account: fresh.id, name: 'second-one' });
    expect(await control('GET', '/instances/2/metrics', undefined, basic(fresh.adminKey))).toStrictEqual({
      status: 404,
      body: { error: "Not found: the key's account has no instance with id 2" },
    });
  });

  it('an instance key names its instance, in the password or (as on the instance API) the user field', async () => {
    const byPassword = await control('GET', '/instances/1/metrics', undefined, basic(fresh.instanceKey));
    expect(byPassword.body.instance).toStrictEqual({ id: 1, account: fresh.id, name: 'second-one' });
    const byUser = await control(
      'GET',
      '/instances/1/metrics',
      undefined,
      'Basic ' + Buffer.from(`${SEEDED_INSTANCE_1_KEY}:`).toString('base64'),
    );
    expect(byUser.body.instance).toStrictEqual({ id: 1, account: seeded.id, name: seeded.instance1 });
  });

  it('404s an instance key sent for another id, and a key that is no key at all', async () => {
    expect(await control('GET', '/instances/2/metrics', undefined, basic(SEEDED_INSTANCE_1_KEY))).toStrictEqual({
      status: 404,
      body: { error: 'Not found: the instance key opens instance 1, not 2' },
    });
    expect(await control('GET', '/instances/3/metrics', undefined, basic('not-a-key'))).toStrictEqual({
      status: 404,
      body: {
        error: "Not found: the request's key is no key of any account or instance (send none, or ?account=ACCOUNT_ID)",
      },
    });
  });

  it('refuses an instance_id that is not a positive integer of at most 10 digits (400 instance_id/type)', async () => {
    for (const raw of ['abc', '0', '01', '-1', '1x', 'x1', '1.5', '12345678901']) {
      expect(await control('GET', `/instances/${raw}/metrics`), raw).toStrictEqual({
        status: 400,
        body: {
          error: `instance_id: must be a positive integer (the instance's id on the customer interface), got "${raw}"`,
          field: 'instance_id',
          rule: 'type',
        },
      });
    }
    expect((await control('GET', '/instances/1234567890/metrics')).status).toBe(404);
  });
});

describe('metrics control: bodies', () => {
  it('PUT metrics without a body, or with only white space, is a 400 body/required', async () => {
    for (const body of ['', '  \n']) {
      expect(
        await control('PUT', `/instances/1/metrics?account=${fresh.id}`, body),
        JSON.stringify(body),
      ).toStrictEqual({
        status: 400,
        body: { error: 'body: a JSON body is required', field: 'body', rule: 'required' },
      });
    }
  });

  it('PUT metrics with malformed JSON is a 400 saying so, and changes nothing', async () => {
    const res = await control('PUT', `/instances/1/metrics?account=${fresh.id}`, '{"cpu": 9');
    expect(res.status).toBe(400);
    expect(res.body).toStrictEqual({
      error: expect.stringMatching(/^body: malformed JSON \(.+\)$/),
      field: 'body',
      rule: 'json',
    });
    expect((await control('GET', `/instances/1/metrics?account=${fresh.id}`)).body.metrics).toStrictEqual({
      cpu: 10,
      memory: 30,
      disk_used_gb: 10,
      disk_total_gb: 100,
    });
  });

  it('POST events refuses a body that is not a JSON object (400 body/type)', async () => {
    for (const body of [[], ['notice'], 'notice', null, 42]) {
      expect(
        await control('POST', `/instances/1/events?account=${fresh.id}`, JSON.stringify(body)),
        JSON.stringify(body),
      ).toStrictEqual({
        status: 400,
        body: { error: 'body: must be object', field: 'body', rule: 'type' },
      });
    }
  });

  it('POST events refuses a field other than type and message, naming it (400 additionalProperties)', async () => {
    expect(
      await control('POST', `/instances/1/events?account=${fresh.id}`, { type: 'notice', level: 'high' }),
    ).toStrictEqual({
      status: 400,
      body: { error: 'level: is not an accepted field here', field: 'level', rule: 'additionalProperties' },
    });
  });

  it('POST events refuses a missing type (400 type/required) or an unknown one, listing the event types (400 type/enum)', async () => {
    expect(await control('POST', `/instances/1/events?account=${fresh.id}`, {})).toStrictEqual({
      status: 400,
      body: { error: 'type: is required', field: 'type', rule: 'required' },
    });
    for (const body of [{ type: 'fire' }, { type: 'cpu' }, { type: 1 }]) {
      expect(
        await control('POST', `/instances/1/events?account=${fresh.id}`, body),
        JSON.stringify(body),
      ).toStrictEqual({
        status: 400,
        body: { error: 'type: must be one of "server_unreachable", "netsplit", "notice"', field: 'type', rule: 'enum' },
      });
    }
  });

  it('POST events refuses a message that is not a string (400 message/type) or longer than 1000 characters (400 message/maxLength)', async () => {
    for (const message of [42, null, ['hi']]) {
      expect(
        await control('POST', `/instances/1/events?account=${fresh.id}`, { type: 'notice', message }),
        JSON.stringify(message),
      ).toStrictEqual({
        status: 400,
        body: { error: 'message: must be string', field: 'message', rule: 'type' },
      });
    }
    expect(
      await control('POST', `/instances/1/events?account=${fresh.id}`, { type: 'notice', message: 'x'.repeat(1001) }),
    ).toStrictEqual({
      status: 400,
      body: { error: 'message: must NOT have more than 1000 characters', field: 'message', rule: 'maxLength' },
    });
  });

  it('POST events takes a message of up to 1000 characters, or none; the notification carries it', async () => {
    const notices = async () =>
      (
        (await control('GET', '/outbox?kind=notification')).body.entries as {
          event: string;
          body: { message: string; instance: { id: number } };
        }[]
      ).filter((e) => e.event === 'alarm.notice');
    const long = 'm'.repeat(1000);
    const res = await control('POST', `/instances/1/events?account=${fresh.id}`, { type: 'notice', message: long });
    expect(res).toStrictEqual({
      status: 200,
      body: { instance: { id: 1, account: fresh.id, name: 'second-one' }, type: 'notice', notified: 1 },
    });
    const short = await control('POST', `/instances/1/events?account=${fresh.id}`, {
      type: 'notice',
      message: 'db restarts at noon',
    });
    expect(short.body.notified).toBe(1);
    const none = await control('POST', `/instances/1/events?account=${fresh.id}`, { type: 'notice' });
    expect(none.body.notified).toBe(1);
    const messages = (await notices()).map((e) => e.body.message);
    expect(messages).toHaveLength(3);
    expect(messages.slice(0, 2)).toStrictEqual([long, 'db restarts at noon']);
    expect(messages[2]).toMatch(/\S/);
  });
});
