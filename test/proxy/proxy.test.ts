// `tusk proxy` (issue 19): forwards exchanges unchanged and reports each departure from the
// documents with its operation, field and rule. In front of deliberately broken targets (small
// node:http servers) it names a wrong status, a missing field, a wrong date format, a 401 without
// WWW-Authenticate, and a client's bad body; an unreachable target is a 502 with a JSON body; keys
// and bodies never reach the log; --strict refuses a departing request itself.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocuments, type InterfaceName, type OpenApiDocument } from '../../src/openapi/documents.js';
import { ValidatingProxy } from '../../src/proxy/proxy.js';
import { junitReport } from '../../src/proxy/cli.js';

const KEY = 'secret-key-never-logged-0123';
const basic = (key: string, user = '') => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

const BACKUP = {
  id: 1,
  database_id: '3f1c2a4e-9b7d-4e2a-8c1f-0a9b8c7d6e5f',
  backup_date: '2026-11-20 03:00:00+0000',
  size: 10,
  bucket: null,
  file_name: 'db1.dump',
  region: 'amazon-web-services::us-east-1',
  database_name: 'db1',
  url: 'https://backups.example.com/db1.dump',
};

/** A target whose answers are set per path by the test; it records what it received. */
class Target {
  server!: Server;
  url = '';
  received: { method: string; path: string; headers: IncomingMessage['headers']; body: string }[] = [];
  answers = new Map<string, (res: ServerResponse) => void>();

  async start() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        this.received.push({ method: req.method!, path: req.url!, headers: req.headers, body });
        const answer = this.answers.get(`${req.method} ${req.url!.split('?')[0]}`);
        if (answer) answer(res);
        else {
          res.writeHead(404, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: 'Not found' }));
        }
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', () => r()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  json(method: string, path: string, status: number, body: unknown, headers: Record<string, string> = {}) {
    this.answers.set(`${method} ${path}`, (res) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    });
  }

  close() {
    this.server.closeAllConnections();
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

let documents: Record<InterfaceName, OpenApiDocument>;
let target: Target;
let proxy: ValidatingProxy;
const lines: string[] = [];

async function send(
  api: InterfaceName,
  method: string,
  path: string,
  init: { key?: string | null; body?: string; contentType?: string; user?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (init.key !== null) headers.authorization = basic(init.key ?? KEY, init.user);
  if (init.contentType) headers['content-type'] = init.contentType;
  const res = await fetch(proxy.urls[api] + path, {
    method,
    headers,
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const departuresOf = (path: string) => proxy.departures.filter((d) => d.path === path);

beforeAll(async () => {
  documents = await loadDocuments();
  target = new Target();
  await target.start();
  proxy = new ValidatingProxy({
    documents,
    targets: { customer: target.url, instance: target.url },
    annotate: true,
    log: (l) => lines.push(l),
  });
  await proxy.listen();
});
afterAll(async () => {
  await proxy.close();
  await target.close();
});

describe('tusk proxy in front of a target that departs from the contract', () => {
  it('forwards method, path, query, headers and body unchanged, and the answer back unchanged', async () => {
    target.json('GET', '/api/plans', 200, [{ name: 'hippo', price: 0, backend: 'postgresql', shared: false }], {
      'x-target': 'yes',
    });
    const res = await send('customer', 'GET', '/api/plans?backend=postgresql', { key: KEY });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-target')).toBe('yes');
    expect(JSON.parse(res.text)).toEqual([{ name: 'hippo', price: 0, backend: 'postgresql', shared: false }]);
    const got = target.received.at(-1)!;
    expect(got).toMatchObject({ method: 'GET', path: '/api/plans?backend=postgresql' });
    expect(got.headers.authorization).toBe(basic(KEY));
  });

  it('a HEAD request is the GET of its path: checked for status and headers, not for a body it cannot have', async () => {
    target.answers.set('HEAD /api/maintenance', (res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '2' });
      res.end();
    });
    const res = await send('instance', 'HEAD', '/api/maintenance');
    expect(res.status).toBe(200);
    expect(departuresOf('/api/maintenance')).toEqual([]);
  });

  it('a status the operation does not declare: a response departure naming the operation, rule status', async () => {
    target.json('GET', '/api/regions', 418, { error: 'teapot' });
    const res = await send('customer', 'GET', '/api/regions');
    expect(res.status).toBe(418);
    expect(departuresOf('/api/regions')).toEqual([
      expect.objectContaining({
        side: 'response',
        api: 'customer',
        operation_id: 'listRegions',
        status: 418,
        rule: 'status',
      }),
    ]);
    expect(res.headers.get('tusk-departures')).toBe('response - status');
  });

  it('a missing required field: rule required, naming the field (each missing field)', async () => {
    target.json('GET', '/api/instances', 200, [
      { id: 1, plan: 'hippo', region: 'amazon-web-services::us-east-1', tags: [] },
    ]);
    await send('customer', 'GET', '/api/instances');
    expect(departuresOf('/api/instances')).toEqual(
      ['name', 'url', 'providerid'].map((f) =>
        expect.objectContaining({
          side: 'response',
          operation_id: 'listInstances',
          rule: 'required',
          field: `body.0.${f}`,
        }),
      ),
    );
  });

  it('every departure of one exchange, everywhere it reports: the list, the log, Tusk-Departures and the JUnit report (issue 32)', async () => {
    // A missing required field and a wrong type elsewhere in one answer.
    target.json('GET', '/api/alarms/recipients', 200, [
      { id: 1, type: 'email', value: 'a@example.com', name: 'Default' },
      { id: 'two', type: 'email', value: 'b@example.com', name: 'B', options: {} },
    ]);
    const res = await send('instance', 'GET', '/api/alarms/recipients');
    const found = departuresOf('/api/alarms/recipients');
    expect(found.map((d) => [d.field, d.rule])).toEqual([
      ['body.0.options', 'required'],
      ['body.1.id', 'type'],
    ]);
    expect(res.headers.get('tusk-departures')).toBe('response body.0.options required, response body.1.id type');
    expect(lines.filter((l) => l.includes('listRecipients GET /api/alarms/recipients 200'))).toEqual([
      expect.stringMatching(/body\.0\.options: rule required/),
      expect.stringMatching(/body\.1\.id: rule type/),
    ]);
    const junit = junitReport(proxy);
    expect(junit).toMatch(
      /<testcase classname="instance" name="listRecipients"><failure message="2 departure\(s\)">[^<]*body\.0\.options: rule required[^<]*\n[^<]*body\.1\.id: rule type/,
    );
    // A request with two departures of its own, answered by a response with one: three in all.
    target.json('POST', '/api/alarms/recipients', 200, { id: 3, type: 'email', value: 'c@example.com', name: 'C' });
    const created = await send('instance', 'POST', '/api/alarms/recipients', {
      body: JSON.stringify({ type: 'email', name: 7 }),
      contentType: 'application/json',
    });
    expect(
      departuresOf('/api/alarms/recipients')
        .slice(2)
        .map((d) => [d.side, d.field, d.rule]),
    ).toEqual([
      ['request', 'value', 'required'],
      ['request', 'name', 'type'],
      ['response', 'body.options', 'required'],
    ]);
    expect(created.headers.get('tusk-departures')?.split(', ')).toHaveLength(3);
  });

  it('a date in the wrong form: the rule of the date schema, naming the field', async () => {
    target.json('GET', '/api/backup', 200, [{ ...BACKUP, backup_date: '20/11/2026 03:00' }]);
    await send('instance', 'GET', '/api/backup');
    const [d] = departuresOf('/api/backup');
    expect(d).toMatchObject({
      side: 'response',
      api: 'instance',
      operation_id: 'listBackups',
      field: 'body.0.backup_date',
    });
    expect(['pattern', 'format']).toContain(d!.rule);
  });

  it('a 401 without WWW-Authenticate: rule header, naming the header', async () => {
    target.json('GET', '/api/alarms', 401, { error: 'Unauthorized' });
    await send('instance', 'GET', '/api/alarms');
    expect(departuresOf('/api/alarms')).toEqual([
      expect.objectContaining({
        side: 'response',
        operation_id: 'listAlarms',
        status: 401,
        rule: 'header',
        field: 'WWW-Authenticate',
      }),
    ]);
  });

  it("a client's bad body: a request departure naming the field and the rule; the request is still forwarded", async () => {
    target.json('POST', '/api/instances', 200, { id: 7, message: 'Instance created' });
    const before = target.received.length;
    const res = await send('customer', 'POST', '/api/instances', {
      body: JSON.stringify({ name: 'n', region: 'amazon-web-services::us-east-1', password: 'p4ss-w0rd-in-the-body' }),
      contentType: 'application/json',
    });
    expect(res.status).toBe(200);
    expect(target.received.length).toBe(before + 1);
    expect(departuresOf('/api/instances').filter((d) => d.side === 'request')).toEqual([
      expect.objectContaining({ operation_id: 'createInstance', field: 'plan', rule: 'required' }),
    ]);
  });

  it("credentials not in the interface's form: the key in the user field on the customer interface is a request departure (rule auth)", async () => {
    target.json('GET', '/api/invoices', 200, []);
    await send('customer', 'GET', '/api/invoices', { key: '', user: KEY });
    expect(departuresOf('/api/invoices')).toEqual([
      expect.objectContaining({ side: 'request', rule: 'auth', field: 'Authorization' }),
    ]);
  });

  it('never logs a key or a body; one line per departure names the operation, field and rule', () => {
    expect(lines.length).toBe(proxy.departureCount);
    for (const line of lines) {
      expect(line).not.toContain(KEY);
      expect(line).not.toContain(Buffer.from(`:${KEY}`).toString('base64'));
      expect(line).not.toContain('p4ss-w0rd-in-the-body');
    }
    expect(lines).toContainEqual(
      expect.stringMatching(
        /departure \(request\) customer createInstance POST \/api\/instances 200: plan: rule required$/,
      ),
    );
  });

  it('lists the departures at GET /__tusk/departures and counts the traffic into coverage', async () => {
    const listed = JSON.parse((await send('customer', 'GET', '/__tusk/departures', { key: null })).text) as {
      count: number;
      departures: unknown[];
    };
    expect(listed.count).toBe(proxy.departureCount);
    const coverage = JSON.parse((await send('customer', 'GET', '/__tusk/coverage', { key: null })).text);
    const regions = coverage.interfaces.customer.by_operation.find(
      (o: { operation_id: string }) => o.operation_id === 'listRegions',
    );
    expect(regions.undocumented).toEqual([{ status: '418', count: 1 }]);
  });
});

describe('tusk proxy when the target fails', () => {
  it('an unreachable target is a 502 with a JSON Error body and a log line saying why, and the proxy keeps serving', async () => {
    const closed = new Target();
    await closed.start();
    const url = closed.url;
    await closed.close();
    const logged: string[] = [];
    const p = new ValidatingProxy({ documents, targets: { customer: url, instance: url }, log: (l) => logged.push(l) });
    await p.listen();
    try {
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${p.urls.customer}/api/plans`, { headers: { authorization: basic(KEY) } });
        expect(res.status).toBe(502);
        expect(await res.json()).toEqual({
          error: expect.stringMatching(/^Bad gateway: the customer target http:\/\/127\.0\.0\.1:\d+ cannot be reached/),
        });
      }
      expect(logged).toEqual(
        [0, 1].map(() =>
          expect.stringMatching(
            /^tusk proxy: 502 to GET \/api\/plans: the customer target http:\/\/127\.0\.0\.1:\d+ cannot be reached \(ECONNREFUSED\)$/,
          ),
        ),
      );
    } finally {
      await p.close();
    }
  });

  it('a kept-alive connection the target drops as the next request arrives (its keep-alive timeout) is not a 502: the request goes again on a new connection', async () => {
    // The target answers the first request of each connection and drops the connection at the second.
    let connections = 0;
    const target = createServer((req, res) => {
      const socket = req.socket as typeof req.socket & { served?: number };
      socket.served = (socket.served ?? 0) + 1;
      if (socket.served > 1) return void socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    target.on('connection', () => connections++);
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const p = new ValidatingProxy({ documents, targets: { customer: url, instance: url }, log: () => undefined });
    await p.listen();
    try {
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${p.urls.customer}/api/regions`, { headers: { authorization: basic(KEY) } });
        expect([res.status, await res.text()]).toEqual([200, '[]']);
      }
      expect(connections).toBe(3);
    } finally {
      await p.close();
      target.closeAllConnections();
      await new Promise<void>((r) => target.close(() => r()));
    }
  });

  it('a target that does not answer in time is a 504', async () => {
    const slow = new Target();
    await slow.start();
    slow.answers.set('GET /api/plans', () => undefined); // never answers
    const p = new ValidatingProxy({
      documents,
      targets: { customer: slow.url, instance: slow.url },
      timeoutMs: 300,
      log: () => undefined,
    });
    await p.listen();
    try {
      const res = await fetch(`${p.urls.customer}/api/plans`, { headers: { authorization: basic(KEY) } });
      expect(res.status).toBe(504);
      expect((await res.json()) as { error: string }).toMatchObject({
        error: expect.stringMatching(/^Gateway timeout/),
      });
    } finally {
      await p.close();
      await slow.close();
    }
  });
});

describe('tusk proxy --strict', () => {
  it("refuses a departing request with the stand-in's 400 naming field and rule, and never forwards it", async () => {
    const t = new Target();
    await t.start();
    const p = new ValidatingProxy({
      documents,
      targets: { customer: t.url, instance: t.url },
      strict: true,
      log: () => undefined,
    });
    await p.listen();
    try {
      const res = await fetch(`${p.urls.customer}/api/instances`, {
        method: 'POST',
        headers: { authorization: basic(KEY), 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'n' }),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ field: expect.stringMatching(/^(plan|region)$/), rule: 'required' });
      const unauth = await fetch(`${p.urls.customer}/api/plans`);
      expect(unauth.status).toBe(401);
      expect(unauth.headers.get('www-authenticate')).toMatch(/^Basic/);
      expect(t.received).toEqual([]);
    } finally {
      await p.close();
      await t.close();
    }
  });
});
