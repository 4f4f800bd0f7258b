// The rules of `tusk replay` (issue 46, point 3) one by one, against an in-process Tusk, from a
// go-vcr v1 cassette written here by hand: ids and keys the recorded answers made are carried into
// later requests (path, body, Authorization), values that differ between runs by nature are not
// departures (made ids, keys, urls, times, sizes, error messages, redacted values, fields the
// live answer adds), and each kind of departure is named with its field.
import { describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { readCassette } from '../../src/record/cassette.js';
import type { RecordedExchange } from '../../src/record/exchange.js';
import { Replayer } from '../../src/replay/replay.js';
import { startTusk } from '../../src/server.js';
import { closeWithTest } from '../support/processes.js';

const basic = (key: string) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;

async function replayAgainstTusk(exchanges: RecordedExchange[], options: { instanceKey?: string } = {}) {
  const tusk = closeWithTest(await startTusk({ customerPort: 0, instancePort: 0, log: 'off', provisionDelayMs: 0 }));
  const replayer = new Replayer({
    customerUrl: tusk.customerUrl,
    instanceUrl: tusk.instanceUrl,
    apiKey: tusk.registry.adminKey,
    documents: await loadDocuments(),
    ...options,
  });
  return replayer.run(exchanges);
}

/** A go-vcr v1 cassette (what go-vcr v1 wrote) of a session with the production API. */
const CASSETTE = `---
version: 1
interactions:
- request:
    body: '{"name":"vcr-db","plan":"hippo","region":"amazon-web-services::us-east-1"}'
    form: {}
    headers:
      Authorization: ["${basic('production-admin-key')}"]
      Content-Type: [application/json]
    url: https://api.provider.example/api/instances
    method: POST
  response:
    body: '{"id":4242,"message":"Instance created","url":"postgres://u:recorded-pw@db.provider.example:5432/db4242","apikey":"recorded-instance-key-000000000000"}'
    headers:
      Content-Type: [application/json]
    status: 200 OK
    code: 200
- request:
    body: ""
    form: {}
    headers:
      Authorization: ["${basic('production-admin-key')}"]
    url: https://api.provider.example/api/instances/4242
    method: GET
  response:
    body: '{"id":4242,"name":"vcr-db","plan":"hippo","region":"amazon-web-services::us-east-1","url":"postgres://u:recorded-pw@db.provider.example:5432/db4242","providerid":"00000000-0000-4000-8000-000000000000","tags":[],"apikey":"recorded-instance-key-000000000000","ready":true}'
    headers:
      Content-Type: [application/json]
    status: 200 OK
    code: 200
- request:
    body: ""
    form:
      type: [webhook]
      value: [http://hooks.example/a]
      name: [ops]
    headers:
      Authorization: ["${basic('recorded-instance-key-000000000000')}"]
    url: https://instance.provider.example/api/alarms/recipients
    method: POST
  response:
    body: '{"id":77,"type":"webhook","value":"http://hooks.example/a","name":"Ops","options":{}}'
    headers:
      Content-Type: [application/json]
    status: 200 OK
    code: 200
- request:
    body: '{"type":"cpu","value_threshold":70,"time_threshold":300,"enabled":true,"recipients":[77]}'
    form: {}
    headers:
      Authorization: ["${basic('recorded-instance-key-000000000000')}"]
      Content-Type: [application/json]
    url: https://instance.provider.example/api/alarms
    method: POST
  response:
    body: '{"id":90,"type":"cpu","enabled":true,"value_threshold":70,"time_threshold":300,"recipients":[77]}'
    headers:
      Content-Type: [application/json]
    status: 200 OK
    code: 200
- request:
    body: ""
    form: {}
    headers:
      Authorization: ["${basic('recorded-instance-key-000000000000')}"]
    url: https://instance.provider.example/api/alarms/90
    method: GET
  response:
    body: '{"id":90,"type":"cpu","enabled":true,"value_threshold":70,"time_threshold":300,"recipients":[77]}'
    headers:
      Content-Type: [application/json]
    status: 200 OK
    code: 200
- request:
    body: ""
    form: {}
    headers:
      Authorization: ["${basic('recorded-instance-key-000000000000')}"]
    url: https://instance.provider.example/api/alarms/123456
    method: GET
  response:
    body: '{"error":"Not found: production says it otherwise"}'
    headers:
      Content-Type: [application/json]
    status: 404 Not Found
    code: 404
- request:
    body: ""
    form: {}
    headers: {}
    url: https://api.provider.example/__tusk/clock
    method: GET
  response:
    body: '{}'
    headers: {}
    status: 200 OK
    code: 200
`;

describe('tusk replay', () => {
  it('carries the ids and keys the recorded answers made into later requests; no departure against a faithful deployment', async () => {
    const results = await replayAgainstTusk(readCassette(CASSETTE));
    for (const r of results) expect(r.departures, `#${r.index + 1} ${r.method} ${r.path}`).toEqual([]);
    const [create, get, recipient, alarm, getAlarm, notFound, control] = results;
    expect(create!.status).toBe(200);
    // 4242 was carried as the id the stand-in gave; the recipient's and alarm's ids as theirs.
    expect(get!.sent).toMatch(/^\/api\/instances\/\d+$/);
    expect(get!.sent).not.toBe('/api/instances/4242');
    expect(recipient!.status).toBe(200);
    expect(alarm!.status).toBe(200);
    expect(getAlarm!.sent).not.toBe('/api/alarms/90');
    expect(getAlarm!.status).toBe(200);
    // The instance key the create answered opened the instance API; the error's message differs.
    expect(notFound!.status).toBe(404);
    expect(control!.skipped).toMatch(/control/);
  });

  it('names each kind of departure with its field, and lets values that differ by nature be', async () => {
    const [create, get] = readCassette(CASSETTE);
    const recorded = JSON.parse(get!.responseBody!);
    const departing: RecordedExchange = {
      ...get!,
      index: 1,
      responseBody: JSON.stringify({
        ...recorded,
        name: 'another-name', // value
        plan: 42, // type
        region_label: 'US East', // missing: the live answer has no such field
        tags: ['prod'], // a list element the live answer lacks
      }),
    };
    const results = await replayAgainstTusk([create!, departing]);
    const kinds = results[1]!.departures.map((d) => `${d.kind} ${d.field}`);
    expect(kinds).toEqual(['value body.name', 'type body.plan', 'missing body.tags[0]', 'missing body.region_label']);
    expect(results[1]!.departures[0]!.message).toBe('body.name is "vcr-db", recorded "another-name"');
    // url (with its password), apikey and providerid differ from the recording: carried, not departures.
  });

  it('reports another status, and a key redacted in the recording that nothing tells', async () => {
    const [create, get] = readCassette(CASSETTE);
    const missing = { ...get!, index: 1, url: 'https://api.provider.example/api/instances/999999' };
    const redacted: RecordedExchange = {
      ...get!,
      index: 2,
      url: 'https://instance.provider.example/api/alarms',
      headers: [['Authorization', 'Basic <redacted:apikey:9>']],
      responseBody: '[]',
    };
    const results = await replayAgainstTusk([create!, missing, redacted]);
    expect(results[1]!.departures).toEqual([
      expect.objectContaining({ kind: 'status', recorded: '200', got: '404', message: 'status 404, recorded 200' }),
    ]);
    expect(results[2]!.departures).toEqual([
      expect.objectContaining({
        kind: 'key',
        field: 'Authorization',
        message: expect.stringMatching(/--instance-key/),
      }),
    ]);
    expect(results[2]!.status).toBeUndefined();
  });
});
