// The parts of a recording (issue 46): redaction with stable placeholders, the HAR file that is a
// whole document after every entry (a process killed between two entries leaves one that parses),
// and go-vcr cassettes read and written.
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { Redactor, SECRET_FIELDS } from '../../src/record/redact.js';
import { HarWriter, readHar } from '../../src/record/har.js';
import { ExchangeRecorder } from '../../src/record/recorder.js';
import { readCassette, writeCassette } from '../../src/record/cassette.js';
import { fromHar } from '../../src/record/exchange.js';
import { readRecording } from '../../src/record/read.js';
import { loadDocuments, PROJECT_ROOT } from '../../src/openapi/documents.js';
import { tempDir } from '../support/temp.js';
import { start } from '../support/processes.js';

const basic = (key: string, user = '') => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

describe('Redactor', () => {
  it('gives the same secret the same placeholder wherever it stands, and another secret another', () => {
    const r = new Redactor();
    const key = 'inst-key-0123456789abcdef';
    const created = r.body(
      JSON.stringify({ id: 7, apikey: key, url: 'postgres://u7:pw0123456789@h:5432/db7' }),
      'application/json',
    );
    expect(created).not.toContain(key);
    expect(created).not.toContain('pw0123456789');
    const keyPlaceholder = JSON.parse(created).apikey as string;
    expect(keyPlaceholder).toMatch(/^<redacted:apikey:\d+>$/);
    expect(JSON.parse(created).url).toMatch(/^postgres:\/\/u7:<redacted:password:\d+>@h:5432\/db7$/);
    // The same key in a later request's Authorization header: the same placeholder.
    expect(r.header('Authorization', basic(key))).toBe(`Basic ${keyPlaceholder}`);
    expect(r.header('authorization', basic(key, 'user-field'))).toBe(`Basic ${keyPlaceholder}`);
    // Quoted in some other field of a later body: replaced too.
    expect(r.body(JSON.stringify({ note: `rotated from ${key}` }), 'application/json')).not.toContain(key);
    expect(r.header('Authorization', basic('another-key-000000'))).not.toBe(`Basic ${keyPlaceholder}`);
  });

  it('redacts secret fields of JSON at any depth, form bodies and query strings, and URL signatures', () => {
    const r = new Redactor();
    const json = r.body(
      JSON.stringify([{ config: { api_key: 'dd-0123456789', region: 'us1', nested: { token: 'tok-abcdefgh' } } }]),
      'application/json',
    );
    expect(json).not.toMatch(/dd-0123456789|tok-abcdefgh/);
    expect(json).toContain('"region":"us1"');
    const form = r.body('type=logs_e&token=tok%2Fslash+12345&password=short', 'application/x-www-form-urlencoded');
    expect(form).not.toMatch(/tok%2Fslash|short/);
    expect(new URLSearchParams(form).get('type')).toBe('logs_e');
    expect(new URLSearchParams(form).get('token')).toMatch(/^<redacted:token:\d+>$/);
    const url = r.url('http://h/api/x?apikey=abc&keep=1');
    expect(url).not.toContain('apikey=abc');
    expect(new URL(url).searchParams.get('keep')).toBe('1');
    const signed = r.body(
      JSON.stringify([{ url: 'https://backups.example/b.tar.gz?expires=1&signature=0a1b2c3d4e5f' }]),
      'application/json',
    );
    expect(signed).not.toContain('0a1b2c3d4e5f');
    expect(signed).toContain('expires=1&signature=<redacted:signature:');
  });

  it("names every key, token and secret field of the integration systems' documents", async () => {
    const docs = await loadDocuments();
    const seen = new Set<string>();
    const walk = (v: unknown) => {
      if (!v || typeof v !== 'object') return;
      const o = v as Record<string, unknown>;
      if (o['x-system'] && o.properties) for (const name of Object.keys(o.properties)) seen.add(name);
      for (const x of Object.values(o)) walk(x);
    };
    walk(docs.instance);
    // The fields that are credentials by their own documentation.
    const credentials = [...seen].filter((n) => /(key|secret|token|password)$/.test(n) && n !== 'access_key_id');
    expect(credentials.length).toBeGreaterThan(4);
    for (const name of credentials) expect(SECRET_FIELDS, name).toContain(name);
  });

  it('keeps everything when disabled (--record-secrets)', () => {
    const r = new Redactor(false);
    expect(r.header('authorization', basic('k-0123456789'))).toBe(basic('k-0123456789'));
    expect(r.body('{"apikey":"k-0123456789"}', 'application/json')).toBe('{"apikey":"k-0123456789"}');
  });
});

describe('HarWriter', () => {
  it('keeps the file a whole HAR 1.2 document after every entry, mode 0600', () => {
    const file = join(tempDir('tusk-har-'), 'r.har');
    const har = new HarWriter(file, { name: 'test', version: '1' });
    expect(readHar(readFileSync(file, 'utf8'))).toEqual([]);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const recorder = new ExchangeRecorder(join(tempDir('tusk-har-'), 'x.har'), {
      creator: { name: 't', version: '1' },
    });
    const entry = recorder.entry({
      api: 'customer',
      method: 'GET',
      url: 'http://127.0.0.1:1/api/plans',
      requestHeaders: { authorization: basic('tusk-admin-key') },
      requestBody: new Uint8Array(),
      status: 200,
      responseHeaders: { 'content-type': 'application/json' },
      responseBody: '[]',
      responseSize: 2,
      startedAt: new Date(),
      ms: 3,
    });
    recorder.close();
    for (let n = 1; n <= 3; n++) {
      har.append(entry);
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      expect(doc.log.version).toBe('1.2');
      expect(doc.log.entries).toHaveLength(n);
    }
    har.close();
    expect(fromHar(readHar(readFileSync(file, 'utf8')))[0]).toMatchObject({
      api: 'customer',
      method: 'GET',
      status: 200,
      responseBody: '[]',
    });
  });

  it('reads the entries before a torn last write (a kill or a power cut during a write)', () => {
    const file = join(tempDir('tusk-har-torn-'), 'r.har');
    const har = new HarWriter(file, { name: 'torn', version: '1' });
    const entry = {
      startedDateTime: new Date().toISOString(),
      time: 1,
      request: {
        method: 'GET',
        url: 'http://x/',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [],
        queryString: [],
        headersSize: -1,
        bodySize: 0,
      },
      response: {
        status: 200,
        statusText: '',
        httpVersion: 'HTTP/1.1',
        cookies: [],
        headers: [],
        content: { size: 0, mimeType: '' },
        redirectURL: '',
        headersSize: -1,
        bodySize: 0,
      },
      cache: {},
      timings: { send: 0, wait: 1, receive: 0 },
    };
    har.append(entry);
    har.append(entry);
    har.close();
    const whole = readFileSync(file, 'utf8');
    // The third entry's write stopped at some byte: its line is cut and the closing characters are gone.
    const torn = `${whole.slice(0, whole.lastIndexOf('\n]}}'))},\n${JSON.stringify(entry).slice(0, 40)}`;
    expect(() => JSON.parse(torn)).toThrow();
    expect(readHar(torn)).toHaveLength(2);
    expect(() => readHar('{"log": {"entries": [')).toThrow(SyntaxError);
  });

  it('leaves a document that parses when the writing process is killed mid-stream', async () => {
    const file = join(tempDir('tusk-har-kill-'), 'r.har');
    // A child appends entries as fast as it can; SIGKILL it at some point.
    // The built module (npm test builds before the tests run), in a process of its own.
    const script = `
      import { HarWriter } from ${JSON.stringify(join(PROJECT_ROOT, 'dist', 'src', 'record', 'har.js'))};
      const har = new HarWriter(${JSON.stringify(file)}, { name: 'kill', version: '1' });
      const entry = { startedDateTime: new Date().toISOString(), time: 1, request: { method: 'GET', url: 'http://x/', httpVersion: 'HTTP/1.1', cookies: [], headers: [], queryString: [], headersSize: -1, bodySize: 0 }, response: { status: 200, statusText: '', httpVersion: 'HTTP/1.1', cookies: [], headers: [], content: { size: 0, mimeType: '', text: 'x'.repeat(2000) }, redirectURL: '', headersSize: -1, bodySize: 0 }, cache: {}, timings: { send: 0, wait: 1, receive: 0 } };
      for (let i = 0; ; i++) { har.append(entry); if (i === 50) console.log('writing'); }
    `;
    const child = start(process.execPath, ['--input-type=module', '-e', script]);
    await child.until(/writing/);
    await new Promise((r) => setTimeout(r, 30));
    await child.stop('SIGKILL');
    const entries = readHar(readFileSync(file, 'utf8'));
    expect(entries.length).toBeGreaterThan(50);
  });
});

describe('go-vcr cassettes', () => {
  it('writes version 2 as go-vcr v4 does and reads it back; reads version 1 and form-only requests', () => {
    const text = writeCassette([
      {
        index: 0,
        method: 'POST',
        url: 'https://api.example.com/api/instances',
        headers: [
          ['Authorization', basic('k')],
          ['Content-Type', 'application/x-www-form-urlencoded'],
        ],
        body: 'name=a&plan=turtle',
        status: 200,
        responseHeaders: [['Content-Type', 'application/json']],
        responseBody: '{"id":1}',
        ms: 1500,
      },
    ]);
    const doc = parse(text);
    expect(doc.version).toBe(2);
    expect(doc.interactions[0].request.form).toEqual({ name: ['a'], plan: ['turtle'] });
    expect(doc.interactions[0].response).toMatchObject({ code: 200, status: '200', duration: '1.5s' });
    expect(readCassette(text)[0]).toMatchObject({
      method: 'POST',
      body: 'name=a&plan=turtle',
      status: 200,
      responseBody: '{"id":1}',
    });
    const v1 = readCassette(`---
version: 1
interactions:
- request:
    body: ""
    form:
      name: [b]
    headers: {}
    url: https://api.example.com/api/instances
    method: POST
  response:
    body: '{"id":2}'
    headers:
      Content-Type: [application/json]
    status: 200 OK
    code: 200
`);
    expect(v1[0]).toMatchObject({ body: 'name=b', status: 200 });
    expect(v1[0]!.headers).toContainEqual(['Content-Type', 'application/x-www-form-urlencoded']);
    expect(() => readCassette('version: 9\ninteractions: []\n')).toThrow(/version 9/);
    expect(() => readCassette('a: 1\n')).toThrow(/not a go-vcr cassette/);
  });

  it('readRecording tells HAR from a cassette by the text', () => {
    const dir = tempDir('tusk-rec-');
    const har = join(dir, 'a.har');
    new HarWriter(har, { name: 't', version: '1' }).close();
    expect(readRecording(har).format).toBe('har');
    const yaml = join(dir, 'a.yaml');
    writeFileSync(yaml, 'version: 2\ninteractions: []\n');
    expect(readRecording(yaml)).toEqual({ format: 'go-vcr', exchanges: [] });
  });
});
