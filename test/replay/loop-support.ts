// What the tests of issue 46's whole loop share: `tusk serve`, `tusk proxy --record`, `tusk import`
// and `tusk replay` as the commands a user runs (each stopped with its test, support/processes.ts),
// and the scenario a client plays through the proxy, which returns every secret it met so that the
// tests can look for them in the recordings.
import { join } from 'node:path';
import { expect } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { run, start, type Started } from '../support/processes.js';

export const BIN = join(PROJECT_ROOT, 'bin', 'tusk.js');

export interface Urls {
  customer: string;
  instance: string;
}

export const basic = (key: string) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;

/** The two URLs a `tusk serve` or `tusk proxy` prints when it starts. */
const printedUrls = (out: string): Urls => ({
  customer: /customer API\s+(\S+)/.exec(out)![1]!,
  instance: /instance API\s+(\S+)/.exec(out)![1]!,
});

/** `tusk serve --databases off --provision-delay 0 ...args` on free ports, once ready. */
export async function serveTusk(args: string[] = []): Promise<{ process: Started; urls: Urls }> {
  const p = start(process.execPath, [
    BIN,
    'serve',
    '--customer-port',
    '0',
    '--instance-port',
    '0',
    '--databases',
    'off',
    '--provision-delay',
    '0',
    '--quiet',
    ...args,
  ]);
  return { process: p, urls: printedUrls(await p.until(/tusk: ready/)) };
}

/** `tusk proxy` in front of `target`, recording to `file` (`extra`: --record-secrets, ...), once ready. */
export async function recordingProxy(
  target: Urls,
  file: string,
  extra: string[] = [],
): Promise<{ process: Started; urls: Urls }> {
  const p = start(process.execPath, [
    BIN,
    'proxy',
    '--customer-target',
    target.customer,
    '--instance-target',
    target.instance,
    '--customer-port',
    '0',
    '--instance-port',
    '0',
    '--record',
    file,
    ...extra,
  ]);
  return { process: p, urls: printedUrls(await p.until(/tusk proxy: ready/)) };
}

/** `tusk import` of the account behind `key` at `source` into `out`. */
export function importAccount(source: Urls, key: string, out: string, extra: string[] = []) {
  return run(process.execPath, [
    BIN,
    'import',
    '--customer-url',
    source.customer,
    '--instance-url',
    source.instance,
    '--api-key',
    key,
    '--out',
    out,
    '--audit-months',
    '24',
    ...extra,
  ]);
}

/** `tusk replay FILE` against `target` with the account's key. */
export function replay(file: string, target: Urls, key: string, extra: string[] = []) {
  return run(process.execPath, [
    BIN,
    'replay',
    file,
    '--customer-url',
    target.customer,
    '--instance-url',
    target.instance,
    '--api-key',
    key,
    ...extra,
  ]);
}

/** One request; the answer's status and JSON body (text when it is not JSON). */
export async function call(
  base: string,
  method: string,
  path: string,
  key: string,
  body?: { json?: unknown; form?: Record<string, string | string[]> },
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read as the tests need them
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: basic(key) };
  let payload: string | undefined;
  if (body?.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body?.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    const form = new URLSearchParams();
    for (const [k, v] of Object.entries(body.form)) for (const x of Array.isArray(v) ? v : [v]) form.append(k, x);
    payload = form.toString();
  }
  const res = await fetch(base + path, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* text */
  }
  return { status: res.status, body: parsed };
}

/** The secret log-integration key the scenario sets up, and the recipient's webhook. */
export const INTEGRATION_KEY = 'dd-0123456789abcdef-integration-secret';

/**
 * A client's session, through `urls`: an instance created (form body, tags), read, its alarms
 * listed, a webhook recipient and an alarm with odd thresholds for it (JSON), the alarm changed, a
 * log integration set up with a key, its instance key rotated and the new key used, a maintenance
 * rescheduled, the instance renamed, a team member invited and removed again, a 404 and a 400.
 * Returns the secrets it met (keys, the password of the url, the integration key).
 */
export async function scenario(urls: Urls, adminKey: string): Promise<{ secrets: string[]; instanceId: number }> {
  const c = (method: string, path: string, body?: Parameters<typeof call>[4]) =>
    call(urls.customer, method, path, adminKey, body);
  const created = await c('POST', '/api/instances', {
    form: { name: 'orders-db', plan: 'hippo', region: 'amazon-web-services::us-east-1', 'tags[]': ['ci', 'team-a'] },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.id as number;
  const got = await c('GET', `/api/instances/${id}`);
  expect(got.body.ready).toBe(true);
  const key = got.body.apikey as string;
  const password = /^postgres:\/\/[^:]+:([^@]+)@/.exec(got.body.url as string)![1]!;
  const i = (method: string, path: string, k: string, body?: Parameters<typeof call>[4]) =>
    call(urls.instance, method, path, k, body);
  expect((await i('GET', '/api/alarms', key)).status).toBe(200);
  const recipient = await i('POST', '/api/alarms/recipients', key, {
    form: { type: 'webhook', value: 'http://127.0.0.1:9/hook', name: 'ops hook' },
  });
  expect(recipient.status).toBe(200);
  const alarm = await i('POST', '/api/alarms', key, {
    json: { type: 'cpu', value_threshold: 77, time_threshold: 420, enabled: true, recipients: [recipient.body.id] },
  });
  expect(alarm.status, JSON.stringify(alarm.body)).toBe(200);
  expect(
    (
      await i('PUT', `/api/alarms/${alarm.body.id}`, key, {
        json: { type: 'cpu', value_threshold: 83, time_threshold: 420, enabled: true },
      })
    ).status,
  ).toBe(200);
  expect((await i('GET', `/api/alarms/${alarm.body.id}`, key)).body.value_threshold).toBe(83);
  const logs = await i('POST', '/api/integrations/logs/logs_d', key, {
    json: { api_key: INTEGRATION_KEY, region: 'us1' },
  });
  expect(logs.status, JSON.stringify(logs.body)).toBe(200);
  expect((await i('GET', `/api/integrations/logs/${logs.body.id}`, key)).status).toBe(200);
  const rotated = await i('POST', '/api/account/rotate-apikey', key);
  const newKey = rotated.body.apikey as string;
  expect((await i('GET', '/api/alarms/recipients', newKey)).status).toBe(200);
  expect((await i('GET', '/api/backup', newKey)).status).toBe(200);
  // A seeded instance's maintenance (a new one's is made by the server): its key from get-instance.
  const seeded = (await c('GET', '/api/instances')).body.find((x: { id: number }) => x.id !== id);
  const seededKey = (await c('GET', `/api/instances/${seeded.id}`)).body.apikey as string;
  const maintenance = await i('GET', '/api/maintenance', seededKey);
  expect(maintenance.body.length).toBeGreaterThan(0);
  const m = maintenance.body[0];
  // An hour later than it was (before its required_by), in the form the document writes.
  const at = Date.parse(String(m.scheduled_by).replace(' ', 'T').replace(' +0000', 'Z')) + 3_600_000;
  const later = `${new Date(at).toISOString().replace('T', ' ').slice(0, 19)} +0000`;
  const moved = await i('PUT', `/api/maintenance/${m.id}`, seededKey, { json: { scheduled_by: later } });
  expect(moved.status, JSON.stringify(moved.body)).toBe(200);
  expect((await c('PUT', `/api/instances/${id}`, { json: { name: 'orders-db-2', tags: ['ci'] } })).status).toBe(200);
  const invited = await c('POST', '/api/team/invite', { json: { email: 'new.member@example.com', role: 'monitor' } });
  expect(invited.status, JSON.stringify(invited.body)).toBeLessThan(300);
  expect((await c('POST', '/api/team/remove', { json: { email: 'new.member@example.com' } })).status).toBeLessThan(300);
  expect((await i('GET', '/api/alarms/99999', newKey)).status).toBe(404);
  expect((await i('POST', '/api/alarms', newKey, { json: { type: 'cpu', value_threshold: 'high' } })).status).toBe(400);
  return { secrets: [adminKey, key, newKey, password, seededKey, INTEGRATION_KEY], instanceId: id };
}
