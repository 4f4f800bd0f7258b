// Issue 46's whole loop, with the commands a user runs: a client's scenario recorded through
// `tusk proxy --record` in front of a Tusk (A); the recording holds no secret; A's account read by
// `tusk import` into a state file that a second Tusk (B) serves with `tusk serve --state`; the
// recording replayed by `tusk replay` against B (no departure), as a go-vcr cassette the test
// writes from it (no departure), and against a deployment broken on purpose in front of B (each
// departure named, in the text and in the JUnit report, exit 1).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, afterAll, describe, expect, it } from 'vitest';
import { readHarFile } from '../../src/record/har.js';
import { fromHar } from '../../src/record/exchange.js';
import { writeCassette } from '../../src/record/cassette.js';
import { brokenDeployment } from '../support/broken-deployment.js';
import { stopStarted } from '../support/processes.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { importAccount, recordingProxy, replay, scenario, serveTusk, type Urls } from './loop-support.js';

const dir = mkdtempSync(join(tmpdir(), 'tusk-loop-'));
const recording = join(dir, 'scenario.har');
const stateFile = join(dir, 'account.json');
let a: Urls;
let b: Urls;
let bAdmin: string;
let secrets: string[];

beforeAll(async () => {
  a = (await serveTusk()).urls;
  const proxy = await recordingProxy(a, recording);
  ({ secrets } = await scenario(proxy.urls, 'tusk-admin-key'));
  await proxy.process.stop();
  const imported = await importAccount(a, 'tusk-admin-key', stateFile);
  expect(imported.code, imported.out).toBe(0);
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  bAdmin = state.accounts[0].keys.find((k: { role: string }) => k.role === 'admin').key;
  b = (await serveTusk(['--state', stateFile])).urls;
}, 120_000);
afterAll(async () => {
  await stopStarted();
  rmSync(dir, { recursive: true, force: true });
});

describe('record, import, replay', () => {
  it('the recording holds every exchange and no secret: keys, the password of a url, integration keys', () => {
    const text = readFileSync(recording, 'utf8');
    const entries = readHarFile(recording);
    expect(entries.length).toBeGreaterThanOrEqual(20);
    for (const secret of secrets) {
      expect(text, secret).not.toContain(secret);
      expect(text).not.toContain(Buffer.from(`:${secret}`).toString('base64'));
    }
    // The instance key the create answered is the placeholder later instance requests carry.
    const getInstance = entries.find(
      (e) => e.request.method === 'GET' && /\/api\/instances\/\d+$/.test(e.request.url),
    )!;
    const keyPlaceholder = JSON.parse(getInstance.response.content.text!).apikey as string;
    expect(keyPlaceholder).toMatch(/^<redacted:apikey:\d+>$/);
    const listAlarms = entries.find((e) => e.request.method === 'GET' && e.request.url.endsWith('/api/alarms'))!;
    expect(listAlarms.request.headers).toContainEqual({ name: 'authorization', value: `Basic ${keyPlaceholder}` });
    expect(text).toContain('<redacted:api_key:');
  });

  it('replayed against the imported copy, every exchange answers as recorded (exit 0)', async () => {
    const junit = join(dir, 'replay.xml');
    const r = await replay(recording, b, bAdmin, ['--junit', junit]);
    expect(r.code, r.out).toBe(0);
    expect(r.stdout).toMatch(/RESULT: the target answers as recorded in every exchange sent/);
    expect(r.stdout).not.toMatch(/^DEPART/m);
    // The created instance got another id on B: carried into the later requests.
    expect(r.stdout).toMatch(/sent as|ok {6}#\d+ GET \/api\/instances\/\d+ \(getInstance\)/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toMatch(/<testsuite name="tusk replay [^"]+" tests="\d+" failures="0"/);
  });

  it('a go-vcr cassette the test writes from the recording replays against the copy too', async () => {
    const cassette = join(dir, 'scenario.yaml');
    writeFileSync(cassette, writeCassette(fromHar(readHarFile(recording))));
    expect(readFileSync(cassette, 'utf8')).toMatch(/^---\nversion: 2\ninteractions:\n/);
    const r = await replay(cassette, b, bAdmin);
    expect(r.code, r.out).toBe(0);
    expect(r.stdout).toMatch(/\(go-vcr\)/);
  });

  it('against a deployment broken on purpose, names each departure and exits 1', async () => {
    const broken = await brokenDeployment({ customerUrl: b.customer, instanceUrl: b.instance }, [
      // A status: the alarm update is refused.
      {
        answer: (x) =>
          x.method === 'PUT' && /^\/api\/alarms\/\d+$/.test(x.path)
            ? { status: 404, body: { error: 'Not found' } }
            : undefined,
      },
      // A type: the alarm's threshold as a string.
      {
        response: (x, body) =>
          x.method === 'GET' && /^\/api\/alarms\/\d+$/.test(x.path)
            ? { ...(body as object), value_threshold: String((body as { value_threshold: unknown }).value_threshold) }
            : body,
      },
      // A missing field: the list of alarms without their recipients.
      {
        response: (x, body) =>
          x.method === 'GET' && x.path === '/api/alarms' && Array.isArray(body)
            ? body.map(({ recipients: _, ...rest }: Record<string, unknown>) => rest)
            : body,
      },
      // A value: the integration's region.
      {
        response: (x, body) =>
          x.method === 'GET' && /^\/api\/integrations\/logs\/\d+$/.test(x.path)
            ? { ...(body as object), config: { ...(body as { config: object }).config, region: 'eu9' } }
            : body,
      },
    ]);
    try {
      const junit = join(dir, 'broken.xml');
      const r = await replay(recording, { customer: broken.customerUrl, instance: broken.instanceUrl }, bAdmin, [
        '--junit',
        junit,
      ]);
      expect(r.code, r.out).toBe(1);
      const out = r.stdout;
      expect(out).toMatch(/DEPART +#\d+ PUT \/api\/alarms\/\d+ \(updateAlarm\) +404/);
      expect(out).toMatch(/status: status 404, recorded 200/);
      // (the update before it was refused: the threshold is still the created one, as a string)
      expect(out).toMatch(/type body\.value_threshold: body\.value_threshold is string "77", recorded number 83/);
      expect(out).toMatch(/contract body\.value_threshold: type: /);
      expect(out).toMatch(/missing body\[0\]\.recipients: body\[0\]\.recipients is missing \(recorded \[\]\)/);
      expect(out).toMatch(/contract body\.0\.recipients: required: /);
      expect(out).toMatch(/value body\.config\.region: body\.config\.region is "eu9", recorded "us1"/);
      expect(out).toMatch(/RESULT: the target departs from the recording/);
      const xml = readFileSync(junit, 'utf8');
      expect(xml).toMatch(
        /<testcase classname="instance" name="#\d+ PUT \/api\/alarms\/\d+ \(updateAlarm\)"><failure message="\d+ departure\(s\)">status: status 404, recorded 200/,
      );
      // Exchanges the breakages leave alone answer as recorded.
      expect(out).toMatch(/ok {6}#\d+ POST \/api\/instances \(createInstance\)/);
    } finally {
      await broken.close();
    }
  });
});
