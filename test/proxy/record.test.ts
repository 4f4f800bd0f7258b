// `tusk proxy --record FILE` (issue 46, point 1), the proxy in-process in front of a Tusk: every
// exchange is in the file as it happens (a whole HAR document after each one, read between two
// requests), the traffic itself is unchanged (the real key reaches the target, the real answer the
// client), a request --strict refuses is recorded with why, and the secrets are placeholders.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { ValidatingProxy } from '../../src/proxy/proxy.js';
import { ExchangeRecorder } from '../../src/record/recorder.js';
import { readHar } from '../../src/record/har.js';
import { startTusk } from '../../src/server.js';
import { closeWithTest } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const basic = (key: string) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;

async function recorded(strict = false) {
  const tusk = closeWithTest(await startTusk({ customerPort: 0, instancePort: 0, log: 'off', provisionDelayMs: 0 }));
  const file = join(tempDir('tusk-record-'), 'traffic.har');
  const recorder = new ExchangeRecorder(file, { creator: { name: 'test', version: '1' } });
  const proxy = closeWithTest(
    new ValidatingProxy({
      documents: await loadDocuments(),
      targets: { customer: tusk.customerUrl, instance: tusk.instanceUrl },
      recorder,
      strict,
      log: () => {},
    }),
  );
  await proxy.listen();
  return { tusk, proxy, file };
}

describe('tusk proxy --record', () => {
  it('appends each exchange as it happens, the file a whole HAR after each, the traffic unchanged', async () => {
    const { tusk, proxy, file } = await recorded();
    const key = tusk.registry.adminKey;
    const created = await fetch(`${proxy.urls.customer}/api/instances`, {
      method: 'POST',
      headers: { authorization: basic(key), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'rec', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    const answer = (await created.json()) as { id: number; apikey: string; url: string };
    // The client got the real key; the file has its placeholder.
    expect(answer.apikey).not.toMatch(/redacted/);
    let entries = readHar(readFileSync(file, 'utf8'));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ _api: 'customer', request: { method: 'POST' }, response: { status: 200 } });
    const placeholder = JSON.parse(entries[0]!.response.content.text!).apikey as string;
    expect(placeholder).toMatch(/^<redacted:apikey:\d+>$/);
    // The key reaches the target: the instance API answers through the proxy with it.
    const alarms = await fetch(`${proxy.urls.instance}/api/alarms`, {
      headers: { authorization: basic(answer.apikey) },
    });
    expect(alarms.status).toBe(200);
    entries = readHar(readFileSync(file, 'utf8'));
    expect(entries).toHaveLength(2);
    expect(entries[1]!.request.headers).toContainEqual({ name: 'authorization', value: `Basic ${placeholder}` });
    expect(entries[1]!._api).toBe('instance');
    const text = readFileSync(file, 'utf8');
    for (const secret of [key, answer.apikey, /:([^@]+)@/.exec(answer.url)![1]!]) expect(text).not.toContain(secret);
  });

  it('records a request that --strict refused, saying so', async () => {
    const { tusk, proxy, file } = await recorded(true);
    const res = await fetch(`${proxy.urls.customer}/api/instances`, {
      method: 'POST',
      headers: { authorization: basic(tusk.registry.adminKey), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'no plan' }),
    });
    expect(res.status).toBe(400);
    const [entry] = readHar(readFileSync(file, 'utf8'));
    expect(entry).toMatchObject({
      response: { status: 400 },
      comment: 'refused by tusk proxy --strict, not forwarded',
    });
    expect(entry!.request.postData).toMatchObject({ mimeType: 'application/json', text: '{"name":"no plan"}' });
  });
});
