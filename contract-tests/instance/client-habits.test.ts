// The habits of the provider's own clients, which production accepts ("Request bodies" in the
// interface description): fields the contract does not name are ignored and not stored, fields of
// another alarm type sent with their zero value are ignored, an empty string for an optional field
// with a default is that default, and form arrays come in three styles (JSON text, brackets, the
// key repeated), with and without a Content-Type header.
import { beforeAll, describe, expect, it } from 'vitest';
import { createInstance, useContract } from '../harness/index.js';
import { expectError } from './support.js';

const t = useContract();
let key: string;
beforeAll(async () => {
  ({ apikey: key } = await createInstance(t));
});

const alarms = async () => (await t.api.instance('listAlarms', key)).body;
const getAlarm = async (id: number) => (await t.api.instance('getAlarm', key, { params: { id } })).body;

/** A form body sent as it is, with the given Content-Type or none at all (as Go's net/http clients do). */
async function postForm(
  path: string,
  text: string,
  contentType: string | null,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` };
  if (contentType) headers['content-type'] = contentType;
  const res = await fetch(new URL(path, t.target.instanceUrl), {
    method: 'POST',
    headers,
    body: new TextEncoder().encode(text),
  });
  const raw = await res.text();
  return { status: res.status, body: raw ? (JSON.parse(raw) as Record<string, unknown>) : {} };
}

async function recipientIds(n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await t.api.instance('createRecipient', key, {
      body: { type: 'email', value: `habit-${i}-${Date.now()}@example.com` },
    });
    t.api.expectStatus(res, '2XX');
    ids.push((res.body as { id: number }).id);
  }
  return ids;
}

describe('what real clients send', () => {
  it('a cpu alarm with the fields of the client model (value_calculation "", reminder_interval, message_type, queue_regex, vhost_regex) is created; the extra fields are not stored', async () => {
    const res = await t.api.instance('createAlarm', key, {
      body: {
        type: 'cpu',
        enabled: true,
        value_threshold: 85,
        time_threshold: 300,
        value_calculation: '',
        recipients: [],
        reminder_interval: 0,
        message_type: 'all',
        queue_regex: '.*',
        vhost_regex: '.*',
      },
    });
    t.api.expectStatus(res, '2XX');
    const created = (await alarms()).find(
      (a) => a.type === 'cpu' && a.value_threshold === 85 && a.time_threshold === 300,
    )!;
    expect(created).toEqual({
      id: created.id,
      type: 'cpu',
      enabled: true,
      value_threshold: 85,
      time_threshold: 300,
      recipients: [],
    });
  });

  it('a notice alarm with value_threshold 0, time_threshold 0 and value_calculation "" is created; those fields are not stored', async () => {
    const before = (await alarms()).map((a) => a.id);
    const res = await t.api.instance('createAlarm', key, {
      body: {
        type: 'notice',
        enabled: true,
        value_threshold: 0,
        time_threshold: 0,
        value_calculation: '',
        recipients: [],
      },
    });
    t.api.expectStatus(res, '2XX');
    const created = (await alarms()).find((a) => !before.includes(a.id))!;
    expect(created).toEqual({ id: created.id, type: 'notice', enabled: true, recipients: [] });
  });

  it('a field of another alarm type with a value that is not its zero value is still a 400 naming it, and creates nothing', async () => {
    const before = await alarms();
    expectError(
      await t.api.instance('createAlarm', key, { body: { type: 'notice', value_threshold: 90 } }),
      400,
      'value_threshold',
    );
    expectError(
      await t.api.instance('createAlarm', key, {
        body: { type: 'cpu', value_threshold: 90, time_threshold: 60, value_calculation: 'percentage' },
      }),
      400,
      'value_calculation',
    );
    expect(await alarms()).toEqual(before);
  });

  it('a known field keeps every rule: a wrong type or value is a 400 naming it, whatever else the body carries', async () => {
    expectError(
      await t.api.instance('createAlarm', key, {
        body: { type: 'cpu', value_threshold: 'high', time_threshold: 60, colour: 'red' },
      }),
      400,
      'value_threshold',
    );
  });

  it('value_calculation "" on a disk alarm is the default, fixed', async () => {
    const before = (await alarms()).map((a) => a.id);
    t.api.expectStatus(
      await t.api.instance('createAlarm', key, {
        body: { type: 'disk', value_threshold: 7, time_threshold: 120, value_calculation: '' },
      }),
      '2XX',
    );
    const created = (await alarms()).find((a) => !before.includes(a.id))!;
    expect(created).toMatchObject({ type: 'disk', value_threshold: 7, value_calculation: 'fixed' });
  });

  it('a recipient with options {} and an unknown field is created with options {}; the field is not stored', async () => {
    const res = await t.api.instance('createRecipient', key, {
      body: { type: 'webhook', value: 'https://hooks.example.com/habits', options: {}, priority: 'high' },
    });
    t.api.expectStatus(res, '2XX');
    const id = (res.body as { id: number }).id;
    const got = (await t.api.instance('getRecipient', key, { params: { id } })).body;
    expect(got).toEqual({ id, type: 'webhook', value: 'https://hooks.example.com/habits', name: '', options: {} });
  });

  it('an update with fields the contract does not name changes what it names and stores nothing else', async () => {
    const before = (await alarms()).map((a) => a.id);
    t.api.expectStatus(
      await t.api.instance('createAlarm', key, { body: { type: 'memory', value_threshold: 70, time_threshold: 60 } }),
      '2XX',
    );
    const a = (await alarms()).find((x) => !before.includes(x.id))!;
    t.api.expectStatus(
      await t.api.instance('updateAlarm', key, {
        params: { id: a.id },
        body: { type: 'memory', enabled: false, reminder_interval: 600 },
      }),
      '2XX',
    );
    expect(await getAlarm(a.id)).toEqual({ ...a, enabled: false });
  });
});

describe('form arrays in the three styles', () => {
  const styles = (ids: number[]): [string, string][] => [
    ['JSON text', `recipients=${encodeURIComponent(JSON.stringify(ids))}`],
    ['brackets', ids.map((id) => `recipients%5B%5D=${id}`).join('&')],
    ['the key repeated', ids.map((id) => `recipients=${id}`).join('&')],
  ];

  for (const contentType of ['application/x-www-form-urlencoded', null]) {
    it(`each style stores the same recipients (${contentType ? 'with Content-Type' : 'without Content-Type'})`, async () => {
      const ids = await recipientIds(2);
      for (const [style, recipients] of styles(ids)) {
        const before = (await alarms()).map((a) => a.id);
        const res = await postForm(
          '/api/alarms',
          `type=cpu&value_threshold=80&time_threshold=60&${recipients}`,
          contentType,
        );
        expect(res.status, `${style}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${style}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
        const created = (await alarms()).find((a) => !before.includes(a.id))!;
        expect(created.recipients, style).toEqual(ids);
      }
    });
  }

  it('a malformed array is a 400 naming the field, and creates nothing', async () => {
    const before = await alarms();
    for (const recipients of ['recipients=%5B1%2C', 'recipients%5B%5D=one', 'recipients=one&recipients=2']) {
      const res = await postForm(
        '/api/alarms',
        `type=cpu&value_threshold=80&time_threshold=60&${recipients}`,
        'application/x-www-form-urlencoded',
      );
      expect(res.status, recipients).toBe(400);
      expect(String(res.body.error), recipients).toContain('recipients');
    }
    expect(await alarms()).toEqual(before);
  });
});
