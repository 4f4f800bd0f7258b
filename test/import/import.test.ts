// `tusk import` (issue 46, point 2), as a user runs it: a Tusk (A) whose account was shaped by a
// client (an instance with tags, a webhook recipient, an alarm with odd thresholds, a log
// integration with a key, a rescheduled maintenance, a rotated key) is imported through
// `tusk proxy --record`, which proves that the import sent GET requests only; the state file is
// served by a second Tusk (B) with `tusk serve --state`, and every GET the import made answers
// the same body there, keys and passwords aside; the secrets in the file are new. A rate-limited
// source is waited out; a key whose role may not read everything gives a report of what was not read.
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHarFile } from '../../src/record/har.js';
import { SECRET_FIELDS } from '../../src/record/redact.js';
import { run, stopStarted } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { BIN, call, importAccount, recordingProxy, scenario, serveTusk, type Urls } from '../replay/loop-support.js';

const dir = mkdtempSync(join(tmpdir(), 'tusk-import-'));
const recording = join(dir, 'import.har');
const stateFile = join(dir, 'account.json');
let a: Urls;
let aSecrets: string[];
let imported: { code: number | null; stdout: string; out: string };
let proxyOutput: string;

beforeAll(async () => {
  a = (await serveTusk()).urls;
  ({ secrets: aSecrets } = await scenario(a, 'tusk-admin-key'));
  // The import through a recording proxy: what it sent is in the recording (secrets kept, to
  // send the same requests to the copy below).
  const proxy = await recordingProxy(a, recording, ['--record-secrets']);
  imported = await importAccount(proxy.urls, 'tusk-admin-key', stateFile);
  await proxy.process.stop();
  proxyOutput = proxy.process.output();
}, 120_000);
afterAll(async () => {
  await stopStarted();
  rmSync(dir, { recursive: true, force: true });
});

const normalise = (text: string) =>
  text
    // keys and passwords are new in the copy
    .replace(/"apikey":"[^"]*"/g, '"apikey":"KEY"')
    // and so are the keys of integrations (placeholders)
    .replace(new RegExp(`"(${[...SECRET_FIELDS].join('|')})":"[^"]*"`, 'g'), '"$1":"SECRET"')
    .replace(/(postgres:\/\/[^:"]+:)[^@"]+@/g, '$1PASSWORD@')
    // a backup link is signed for the second its expiry falls in
    .replace(/expires=\d+&signature=[0-9a-f]+/g, 'expires=T&signature=S');

describe('tusk import', () => {
  it('sends GET requests only (the recording proxy saw no other method), one progress line per instance', () => {
    expect(imported.code, imported.out).toBe(0);
    expect(proxyOutput).toMatch(/warning: --record-secrets/);
    const entries = readHarFile(recording);
    expect(entries.length).toBeGreaterThan(10);
    expect(new Set(entries.map((e) => e.request.method))).toEqual(new Set(['GET']));
    const instances = JSON.parse(readFileSync(stateFile, 'utf8')).accounts[0].instances as unknown[];
    expect(instances.length).toBe(4);
    expect(imported.stdout.match(/^tusk import: instance \d+\/4 /gm)).toHaveLength(4);
    expect(imported.stdout).toMatch(/not carried, or only in part:/);
    expect(imported.stdout).toMatch(/databases' data/);
    expect(imported.stdout).toMatch(/the payments behind them are not in the API/);
    expect(imported.stdout).toMatch(/^tusk import: admin key +\S+/m);
  });

  it('writes new secrets only: no key, password or integration key of the source is in the file (mode 0600)', () => {
    const text = readFileSync(stateFile, 'utf8');
    expect(statSync(stateFile).mode & 0o777).toBe(0o600);
    for (const secret of aSecrets) expect(text, secret).not.toContain(secret);
    for (const seeded of ['tusk-instance-1-key', 'tusk-instance-3-key', 'tusk-instance-4-key', 'tusk-admin-key'])
      expect(text).not.toContain(seeded);
  });

  it('served by tusk serve --state, every GET the import made answers the same body as the source, keys and passwords aside', async () => {
    const b = (await serveTusk(['--state', stateFile])).urls;
    const state = JSON.parse(readFileSync(stateFile, 'utf8'));
    const bAdmin = state.accounts[0].keys.find((k: { role: string }) => k.role === 'admin').key as string;
    // A's instance keys (as the import was answered them) and B's for the same instance ids.
    const keys = new Map<string, string>([['tusk-admin-key', bAdmin]]);
    for (const i of state.accounts[0].instances as { id: number; apikey: string }[]) {
      const aKey = (await call(a.customer, 'GET', `/api/instances/${i.id}`, 'tusk-admin-key')).body.apikey as string;
      keys.set(aKey, i.apikey);
    }
    const entries = readHarFile(recording);
    let compared = 0;
    for (const e of entries) {
      const url = new URL(e.request.url);
      const api = e._api!;
      const auth = e.request.headers.find((h) => h.name.toLowerCase() === 'authorization')!.value;
      const aKey = Buffer.from(auth.replace(/^Basic /, ''), 'base64')
        .toString()
        .slice(1);
      const bKey = keys.get(aKey);
      expect(bKey, `a key for ${e.request.url}`).toBeDefined();
      const res = await fetch((api === 'customer' ? b.customer : b.instance) + url.pathname + url.search, {
        headers: { authorization: `Basic ${Buffer.from(`:${bKey}`).toString('base64')}` },
      });
      const body = await res.text();
      expect(res.status, `${url.pathname}${url.search}`).toBe(e.response.status);
      expect(normalise(body), `${api} ${url.pathname}${url.search}`).toBe(normalise(e.response.content.text!));
      compared++;
    }
    expect(compared).toBe(entries.length);
  });

  it('--keep-secrets keeps the keys: the source key opens the copy, and so do the instance keys', async () => {
    const file = join(tempDir('tusk-keep-'), 'kept.json');
    const r = await importAccount(a, 'tusk-admin-key', file, ['--keep-secrets']);
    expect(r.code, r.out).toBe(0);
    const b = (await serveTusk(['--state', file])).urls;
    const list = await call(b.customer, 'GET', '/api/instances', 'tusk-admin-key');
    expect(list.status).toBe(200);
    const one = await call(a.customer, 'GET', `/api/instances/${list.body[0].id}`, 'tusk-admin-key');
    expect((await call(b.instance, 'GET', '/api/alarms', one.body.apikey)).status).toBe(200);
    expect(readFileSync(file, 'utf8')).toContain('dd-0123456789abcdef-integration-secret');
  });

  it('waits out the rate limit of the source (429 with Retry-After) and still reads everything', async () => {
    const limited = (await serveTusk(['--rate-limit', '10/1'])).urls;
    const file = join(tempDir('tusk-limited-'), 'limited.json');
    const r = await importAccount(limited, 'tusk-admin-key', file);
    expect(r.code, r.out).toBe(0);
    expect(r.stdout).toMatch(/answered 429; again in \d+(\.\d+)? s \(Retry-After\)/);
    expect(r.stdout).toMatch(/answered 429 and waited out/);
    expect(JSON.parse(readFileSync(file, 'utf8')).accounts[0].instances).toHaveLength(3);
  }, 60_000);

  it('with a key whose role may not read the audit log and invoices, says so and imports the rest', async () => {
    const file = join(tempDir('tusk-monitor-'), 'monitor.json');
    const r = await importAccount(a, 'tusk-monitor-key', file);
    expect(r.code, r.out).toBe(0);
    expect(r.stdout).toMatch(/invoices: not read \(403: the key's role may not read it\); none carried/);
    expect(r.stdout).toMatch(/audit log: not read \(403/);
    expect(JSON.parse(readFileSync(file, 'utf8')).accounts[0].instances).toHaveLength(4);
  });

  it('says in --help that it sends GET requests only, and refuses to run without its flags', async () => {
    const help = await run(process.execPath, [BIN, 'import', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/It sends GET requests only/);
    const missing = await run(process.execPath, [BIN, 'import', '--customer-url', a.customer], {
      env: { ...process.env, TUSK_IMPORT_INSTANCE_URL: '', TUSK_IMPORT_API_KEY: '' },
    });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--instance-url \(or TUSK_IMPORT_INSTANCE_URL\) is required/);
    const unreachable = await importAccount(
      { customer: 'http://127.0.0.1:9', instance: 'http://127.0.0.1:9' },
      'k',
      join(dir, 'x.json'),
    );
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toMatch(/cannot read the account: customer GET \/api\/instances: no answer/);
  });
});
