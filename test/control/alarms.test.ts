// Alarms that fire, used as a client developer would: create an instance on the customer API, a
// webhook recipient pointing at a local receiver and an alarm on the instance API, raise a metric
// through the control API, move the virtual clock past time_threshold, receive the notification.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openReceiver, type Receiver } from '../../contract-tests/harness/receiver.js';
import type { NotificationBody } from '../../src/resources/alarms/notifications.js';
import { ControlDocument } from '../../src/control/document.js';
import { basic, start, type Api } from './client.js';

const control = new ControlDocument();

/** Checks a value against a schema of the control document (/__tusk/openapi.json). */
const conforms = (schema: string, value: unknown) => {
  const validate = control.schema(schema);
  expect(validate(value), JSON.stringify(validate.errors)).toBe(true);
};

let api: Api;
let receiver: Receiver;
let instance: { id: number; apikey: string };
beforeAll(async () => {
  // One after the other: if the second fails, afterAll still closes the first.
  api = await start();
  receiver = await openReceiver({});
});
afterAll(async () => {
  await api?.tusk.close();
  await receiver?.close();
});
beforeEach(async () => {
  instance = await api.createInstance();
});

const json = async <T = unknown>(res: Response | Promise<Response>, status = 200): Promise<T> => {
  const r = await res;
  const text = await r.text();
  expect(r.status, text).toBe(status);
  return (text ? JSON.parse(text) : undefined) as T;
};
const createRecipient = (body: Record<string, unknown>) =>
  json<{ id: number }>(api.instance(instance.apikey, 'POST', '/api/alarms/recipients', body));
const createAlarm = (body: Record<string, unknown>) =>
  json<{ id: number }>(api.instance(instance.apikey, 'POST', '/api/alarms', body));
const setMetrics = (metrics: Record<string, number>, query = '') =>
  json(api.control('PUT', `/instances/${instance.id}/metrics${query}`, metrics));
const advance = (by: string) => json(api.control('POST', '/clock', { advance: by }));
const outbox = () =>
  json<{ entries: { kind: string; event: string; target: string; status: string; body: NotificationBody }[] }>(
    api.control('GET', '/outbox?kind=notification'),
  );

describe('a cpu alarm with a webhook recipient', () => {
  it('notifies the receiver once cpu has stayed above the threshold for time_threshold', async () => {
    const url = receiver.url();
    const hook = await createRecipient({ type: 'webhook', value: url, name: 'ops hook' });
    const alarm = await createAlarm({ type: 'cpu', value_threshold: 80, time_threshold: 600, recipients: [hook.id] });

    const view = await setMetrics(
      { cpu: 95, memory: 40, disk_used_gb: 12, disk_total_gb: 100 },
      `?account=${[...api.tusk.registry.allHomes()].map((h) => h.records)[0]!.id}`,
    );
    expect(view).toMatchObject({
      instance: { id: instance.id },
      metrics: { cpu: 95, memory: 40, disk_used_gb: 12, disk_total_gb: 100 },
    });
    conforms('MetricsView', view);
    await advance('9m');
    expect(receiver.at(url)).toHaveLength(0);
    await advance('2m');

    const got = await receiver.waitFor(url);
    expect(got.method).toBe('POST');
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    const body = got.body as NotificationBody;
    expect(body).toMatchObject({
      event: 'alarm',
      reason: 'threshold',
      alarm: { id: alarm.id, type: 'cpu', value_threshold: 80, time_threshold: 600 },
      instance: { id: instance.id, name: 'alarm-test' },
      value: 95,
      metrics: { cpu: 95 },
      recipient: { id: hook.id, type: 'webhook', name: 'Ops hook' },
    });
    expect(Date.parse(body.triggered_at)).not.toBeNaN();
    conforms('Notification', body);

    // Once per episode: moving on does not notify again.
    await advance('1h');
    await api.tusk.registry.outbox.settle();
    expect(receiver.at(url)).toHaveLength(1);
  });

  it("shows each alarm's state on GET metrics", async () => {
    await createAlarm({ type: 'memory', value_threshold: 50, time_threshold: 120 });
    await setMetrics({ memory: 60 });
    const view = await json<{ alarms: { type: string; holding?: boolean; triggers_at?: string | null }[] }>(
      api.control('GET', `/instances/${instance.id}/metrics`),
    );
    const memory = view.alarms.filter((a) => a.type === 'memory');
    expect(memory.map((a) => a.holding)).toEqual([false, true]);
    expect(memory[1]!.triggers_at).toMatch(/Z$/);
  });
});

describe('recipients without HTTP', () => {
  it('an e-mail recipient is recorded in the outbox, not sent', async () => {
    const mail = await createRecipient({ type: 'email', value: 'oncall@example.com' });
    const alarm = await createAlarm({ type: 'memory', value_threshold: 70, time_threshold: 60, recipients: [mail.id] });
    await setMetrics({ memory: 75 });
    await advance('61s');
    const entries = (await outbox()).entries.filter(
      (e) => e.body.alarm.id === alarm.id && e.body.instance.id === instance.id,
    );
    expect(entries).toMatchObject([
      { kind: 'notification', event: 'alarm.memory', target: 'oncall@example.com', status: 'recorded' },
    ]);
  });

  it('the default alarms notify the default recipient (the team e-mail)', async () => {
    await setMetrics({ disk_used_gb: 98, disk_total_gb: 100 });
    await advance('10m');
    const entries = (await outbox()).entries.filter(
      (e) => e.body.instance.id === instance.id && e.event === 'alarm.disk',
    );
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      status: 'recorded',
      body: { recipient: { id: 1, type: 'email', name: 'Default' }, value: 2 },
    });
  });
});

describe('event and notice alarms', () => {
  it('server_unreachable triggers on its event', async () => {
    const url = receiver.url();
    const hook = await createRecipient({ type: 'chat_a', value: url });
    await createAlarm({ type: 'server_unreachable', recipients: [hook.id] });
    const result = await json<{ notified: number }>(
      api.control('POST', `/instances/${instance.id}/events`, { type: 'server_unreachable' }),
    );
    expect(result.notified).toBe(1);
    conforms('EventResult', result);
    const got = await receiver.waitFor(url);
    expect(got.body).toMatchObject({
      reason: 'server_unreachable',
      alarm: { type: 'server_unreachable' },
      recipient: { type: 'chat_a' },
    });
  });

  it('the notice alarm fires when maintenance is run', async () => {
    const url = receiver.url();
    const hook = await createRecipient({ type: 'webhook', value: url });
    const alarms = await json<{ id: number; type: string }[]>(api.instance(instance.apikey, 'GET', '/api/alarms'));
    const notice = alarms.find((a) => a.type === 'notice')!;
    await json(
      api.instance(instance.apikey, 'PUT', `/api/alarms/${notice.id}`, { type: 'notice', recipients: [hook.id] }),
    );
    const [item] = await json<{ id: number }[]>(api.instance(instance.apikey, 'GET', '/api/maintenance'));
    await json(api.instance(instance.apikey, 'POST', `/api/maintenance/${item!.id}`));
    const got = await receiver.waitFor(url);
    expect(got.body).toMatchObject({
      reason: 'maintenance_started',
      alarm: { id: notice.id, type: 'notice' },
      maintenance: { id: item!.id, status: 'in_progress' },
    });
  });
});

describe('state', () => {
  it('metrics and alarm states are part of the state dump and come back with a load', async () => {
    await setMetrics({ cpu: 93 });
    const view = async () => {
      const { now: _now, ...rest } = await json<{ now: string }>(
        api.control('GET', `/instances/${instance.id}/metrics`),
      );
      return rest;
    };
    const before = await view();
    const state = await json(api.control('GET', '/state'));
    await json(api.control('POST', '/reset'));
    await json(api.control('PUT', '/state', state));
    expect(await view()).toEqual(before);
  });
});

describe('finding the instance', () => {
  it('takes the instance key or a customer key instead of ?account=', async () => {
    const byInstanceKey = await fetch(`${api.tusk.instanceUrl}/__tusk/instances/${instance.id}/metrics`, {
      headers: { authorization: basic(instance.apikey) },
    });
    expect(byInstanceKey.status).toBe(200);
    const byCustomerKey = await fetch(`${api.tusk.customerUrl}/__tusk/instances/${instance.id}/metrics`, {
      headers: { authorization: basic(api.tusk.registry.adminKey) },
    });
    expect(byCustomerKey.status).toBe(200);
  });

  it('refuses a bad id, an unknown instance and bad metrics', async () => {
    expect((await api.control('GET', '/instances/abc/metrics')).status).toBe(400);
    expect((await api.control('GET', '/instances/999999/metrics')).status).toBe(404);
    const bad = await api.control('PUT', `/instances/${instance.id}/metrics`, { cpu: 120 });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ field: 'cpu', rule: 'maximum' });
    const event = await api.control('POST', `/instances/${instance.id}/events`, { type: 'fire' });
    expect(event.status).toBe(400);
  });
});
