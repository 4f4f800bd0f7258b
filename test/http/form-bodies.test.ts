// Form bodies (application/x-www-form-urlencoded), as production's clients send them: each field read
// by the type the operation's schema gives it, array fields in brackets or as JSON text, and the
// fields the form's `encoding` marks as JSON read as JSON. The kinds are taken from the documents
// when the server is built, so each test builds its own.
import { describe, expect, it } from 'vitest';
import { tuskForTest } from '../support/in-process.js';

async function server() {
  const { send } = await tuskForTest();
  return (api: 'customer' | 'instance', key: string, method: string, path: string, form?: string) =>
    send(api, method, path, { key, form });
}

describe('form bodies', () => {
  it('createInstance: tags in brackets or as JSON text', async () => {
    const send = await server();
    const region = encodeURIComponent('amazon-web-services::us-east-1');
    const brackets = await send(
      'customer',
      'tusk-admin-key',
      'POST',
      '/api/instances',
      `name=f1&plan=hippo&region=${region}&tags[]=a&tags[]=b`,
    );
    expect(brackets.status, brackets.text).toBe(200);
    expect((await send('customer', 'tusk-admin-key', 'GET', `/api/instances/${brackets.body.id}`)).body.tags).toEqual([
      'a',
      'b',
    ]);
    const json = await send(
      'customer',
      'tusk-admin-key',
      'POST',
      '/api/instances',
      `name=f2&plan=hippo&region=${region}&tags=${encodeURIComponent('["x"]')}`,
    );
    expect(json.status, json.text).toBe(200);
    expect((await send('customer', 'tusk-admin-key', 'GET', `/api/instances/${json.body.id}`)).body.tags).toEqual([
      'x',
    ]);
  });

  it('createRecipient and createAlarm: options as JSON text, numbers as numbers, recipients in brackets', async () => {
    const send = await server();
    const key = 'tusk-instance-1-key';
    const options = encodeURIComponent('{"rotation":"weekly"}');
    const recipient = await send(
      'instance',
      key,
      'POST',
      '/api/alarms/recipients',
      `type=email&value=${encodeURIComponent('oncall@example.com')}&name=on-call&options=${options}`,
    );
    expect(recipient.status, recipient.text).toBe(200);
    const created = recipient.body;
    const alarm = await send(
      'instance',
      key,
      'POST',
      '/api/alarms',
      `type=cpu&value_threshold=80&time_threshold=300&recipients[]=${created.id}`,
    );
    expect(alarm.status, alarm.text).toBe(200);
    const alarms = (await send('instance', key, 'GET', '/api/alarms')).body as {
      type: string;
      value_threshold?: number;
      time_threshold?: number;
      recipients: unknown[];
    }[];
    expect(alarms.at(-1)).toMatchObject({ type: 'cpu', value_threshold: 80, time_threshold: 300 });
    const recipients = (await send('instance', key, 'GET', '/api/alarms/recipients')).body as {
      id: number;
      options: unknown;
    }[];
    expect(recipients.find((r) => r.id === created.id)!.options).toEqual({ rotation: 'weekly' });
  });
});
