// Limits (issue 9): bodies over 64 KiB get 413 on every operation that takes one, before they are
// parsed and without changing anything; the node servers cut off a slow client (headers, body,
// idle keep-alive); lists stay bounded (caps per account and instance, 400 naming the list); and
// the documents state the same numbers as src/core/limits.ts.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTusk, startTusk, type RunningTusk, type Tusk } from '../../src/server.js';
import { LIST_CAPS, MAX_BODY_BYTES, MAX_BODY_DEPTH, SERVER_TIMEOUTS } from '../../src/core/limits.js';
import { INTERFACES } from '../../src/openapi/documents.js';
import { Contract } from '../../contract-tests/harness/contract.js';

const contract = await Contract.load();
const basic = (key: string) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;

function firstInstance(tusk: Tusk) {
  const account = [...tusk.registry.allHomes()].map((h) => h.records)[0]!;
  const id = account.instances.list()[0]!.id;
  return { account, id, store: account.instanceStore(id)!, key: account.instanceStore(id)!.apikey };
}

describe('request bodies over 64 KiB', () => {
  let tusk: Tusk;
  beforeAll(async () => {
    tusk = await createTusk({ log: 'off', rateLimit: '1000000/1' });
  });

  it('are documented: PayloadTooLarge says 64 KiB, and every operation with a body declares 413', () => {
    expect(MAX_BODY_BYTES).toBe(65_536);
    const shared = (contract.documents.customer.components?.responses as Record<string, { description: string }>)
      .PayloadTooLarge!;
    expect(shared.description).toMatch(/64 KiB \(65,536 bytes\)/);
    for (const api of INTERFACES) {
      for (const op of contract.operations[api].values())
        expect(op.responses.has('413'), `${op.operationId}`).toBe(Boolean(op.body));
    }
  });

  for (const api of INTERFACES) {
    for (const op of contract.operations[api].values()) {
      if (!op.body) continue;
      it(`${api} ${op.operationId}: 413 as JSON and as form data, nothing changes; exactly 64 KiB is read`, async () => {
        const { id, store, key, account } = firstInstance(tusk);
        const auth = basic(api === 'customer' ? tusk.registry.adminKey : key);
        const path = op.path.replace(/\{[^}]+\}/g, (m) =>
          m.includes('system') && op.method === 'post'
            ? op.path.includes('metrics')
              ? 'metrics_c_v3'
              : 'logs_d'
            : m.includes('user_id')
              ? '00000000-0000-4000-8000-000000000000'
              : String(id),
        );
        const dump = () =>
          JSON.stringify([
            account.toJSON?.() ?? account.instances.list(),
            store.alarms.list(),
            store.recipients.list(),
          ]);
        const before = dump();
        for (const [type, text] of [
          ['application/json', `{"name":"${'x'.repeat(MAX_BODY_BYTES)}"}`],
          ['application/x-www-form-urlencoded', `name=${'x'.repeat(MAX_BODY_BYTES)}`],
        ] as const) {
          const res = await tusk[api].fetch(
            new Request(`http://tusk${path}`, {
              method: op.method.toUpperCase(),
              headers: { authorization: auth, 'content-type': type },
              body: text,
            }),
          );
          const body = await res.text();
          expect(res.status, body).toBe(413);
          expect(
            contract.violations(api, op.operationId, {
              status: res.status,
              headers: Object.fromEntries(res.headers),
              text: body,
            }),
          ).toEqual([]);
          expect(JSON.parse(body)).toMatchObject({ field: 'body', rule: 'maxBytes' });
        }
        expect(dump()).toBe(before);
        // At the limit the body is read (and refused for what it says, not for its size).
        const atLimit = `{"name":"${'x'.repeat(MAX_BODY_BYTES - 11)}"}`;
        expect(Buffer.byteLength(atLimit)).toBe(MAX_BODY_BYTES);
        const res = await tusk[api].fetch(
          new Request(`http://tusk${path}`, {
            method: op.method.toUpperCase(),
            headers: { authorization: auth, 'content-type': 'application/json' },
            body: atLimit,
          }),
        );
        expect(res.status).not.toBe(413);
      });
    }
  }

  it('without a valid key the answer is 401, whatever the size', async () => {
    const res = await tusk.instance.fetch(
      new Request('http://tusk/api/alarms', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: 'x'.repeat(MAX_BODY_BYTES * 2),
      }),
    );
    expect(res.status).toBe(401);
  });

  it(`bodies nested deeper than ${MAX_BODY_DEPTH} levels are a 400 naming the body (a recipient's free-form options)`, async () => {
    const { key } = firstInstance(tusk);
    const nested = (levels: number) => '{"a":'.repeat(levels - 1) + '{}' + '}'.repeat(levels - 1);
    const send = (options: string) =>
      tusk.instance.fetch(
        new Request('http://tusk/api/alarms/recipients', {
          method: 'POST',
          headers: { authorization: basic(key), 'content-type': 'application/json' },
          body: `{"type":"email","value":"deep@example.com","options":${options}}`,
        }),
      );
    // The body is level 1, options level 2: options may nest 31 levels.
    expect((await send(nested(MAX_BODY_DEPTH - 1))).status).toBe(200);
    const deep = await send(nested(MAX_BODY_DEPTH));
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ field: 'body', rule: 'maxDepth' });
    // 64 KiB of nesting once overflowed the stack (500).
    expect((await send(nested(10_000))).status).toBe(400);
  });
});

describe('a chunked body (no Content-Length) over HTTP', () => {
  let tusk: RunningTusk;
  beforeAll(async () => {
    tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off' });
  });
  afterAll(() => tusk.close());

  it('is cut off at 64 KiB with 413, and the server goes on serving', async () => {
    const { key } = firstInstance(tusk);
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        // 4 MiB if nobody stopped reading.
        if (sent >= 4 * 1024 * 1024) return controller.close();
        sent += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x61));
      },
    });
    const res = await fetch(`${tusk.instanceUrl}/api/alarms`, {
      method: 'POST',
      headers: { authorization: basic(key), 'content-type': 'application/json' },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(sent).toBeLessThan(4 * 1024 * 1024);
    const ok = await fetch(`${tusk.instanceUrl}/api/alarms`, { headers: { authorization: basic(key) } });
    expect(ok.status).toBe(200);
  });
});

/** Opens a raw connection; resolves with what the server sent and when it closed the connection. */
function rawClient(
  port: number,
  drip: { lines: string[]; everyMs: number },
): Promise<{ closedAfterMs: number; received: string; sentLines: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect(port, '127.0.0.1');
    let received = '';
    let sentLines = 0;
    const timer = setInterval(() => {
      const line = drip.lines[sentLines];
      if (line === undefined) return;
      socket.write(line);
      sentLines++;
    }, drip.everyMs);
    socket.on('data', (d) => {
      received += d.toString();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ closedAfterMs: Date.now() - started, received, sentLines });
    });
  });
}

describe('a slow client cannot hold the server', () => {
  let tusk: RunningTusk;
  const timeouts = { headersMs: 600, requestMs: 1500, keepAliveMs: 400, checkIntervalMs: 100 };
  beforeAll(async () => {
    tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', timeouts });
  });
  afterAll(() => tusk.close());
  const port = () => Number(new URL(tusk.customerUrl).port);

  it('the defaults: headers within 10 s, the whole request within 30 s, idle keep-alive 5 s', () => {
    expect(SERVER_TIMEOUTS).toMatchObject({ headersMs: 10_000, requestMs: 30_000, keepAliveMs: 5_000 });
  });

  it('slowloris: a client sending one header line every 200 ms is cut off once the header timeout passes', async () => {
    // 60 header lines at 200 ms would take 12 s.
    const lines = [
      'GET /api/plans HTTP/1.1\r\n',
      'Host: 127.0.0.1\r\n',
      ...Array.from({ length: 60 }, (_, i) => `X-Slow-${i}: ${'a'.repeat(10)}\r\n`),
    ];
    const [slow, fast] = await Promise.all([
      rawClient(port(), { lines, everyMs: 200 }),
      // Meanwhile the server answers others.
      new Promise<void>((r) => setTimeout(r, 300)).then(() =>
        fetch(`${tusk.customerUrl}/api/plans`, { headers: { authorization: basic(tusk.registry.adminKey) } }).then(
          (res) => res.status,
        ),
      ),
    ]);
    expect(fast).toBe(200);
    expect(slow.sentLines).toBeLessThan(lines.length);
    expect(slow.closedAfterMs).toBeLessThan(timeouts.headersMs + 1000);
    expect(slow.received).toMatch(/^HTTP\/1\.1 408|^$/);
  });

  it('a body dripped one byte every 100 ms is cut off once the request timeout passes', async () => {
    const key = firstInstance(tusk).key;
    const head = `POST /api/alarms/recipients HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic(key)}\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n`;
    const slow = await rawClient(Number(new URL(tusk.instanceUrl).port), {
      lines: [head, ...'{"type":"email","value":"slow@example.com"'.split(''), ...Array(200).fill(' ')],
      everyMs: 100,
    });
    expect(slow.closedAfterMs).toBeLessThan(timeouts.requestMs + 1000);
    expect(slow.sentLines).toBeLessThan(100);
  });

  it('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    const idle = await rawClient(port(), {
      lines: [`GET /api/plans HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic(tusk.registry.adminKey)}\r\n\r\n`],
      everyMs: 10,
    });
    expect(idle.received).toMatch(/^HTTP\/1\.1 200/);
    // node adds a buffer of up to a second to the keep-alive timeout.
    expect(idle.closedAfterMs).toBeLessThan(timeouts.keepAliveMs + 2000);
  });
});

describe('long lists stay bounded', () => {
  let tusk: Tusk;
  beforeAll(async () => {
    tusk = await createTusk({ log: 'off', rateLimit: '1000000/1', provisionDelayMs: 0 });
  });
  const post = async (api: 'customer' | 'instance', path: string, key: string, body: unknown) => {
    const res = await tusk[api].fetch(
      new Request(`http://tusk${path}`, {
        method: 'POST',
        headers: { authorization: basic(key), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: (text ? JSON.parse(text) : {}) as { error: string } };
  };

  it('recipients, alarms, log and metrics integrations of an instance: the create beyond the cap is a 400 naming the list, nothing is added', async () => {
    const { store, key } = firstInstance(tusk);
    const cases = [
      {
        list: 'recipients',
        path: '/api/alarms/recipients',
        body: { type: 'email', value: 'cap@example.com' },
        cap: LIST_CAPS.recipientsPerInstance,
        count: () => store.recipients.list().length,
      },
      {
        list: 'alarms',
        path: '/api/alarms',
        body: { type: 'notice' },
        cap: LIST_CAPS.alarmsPerInstance,
        count: () => store.alarms.list().length,
      },
      {
        list: 'logs integrations',
        path: '/api/integrations/logs/logs_d',
        body: { api_key: 'k', region: 'eu' },
        cap: LIST_CAPS.integrationsPerInstance,
        count: () => store.integrations['logs'].list().length,
      },
      {
        list: 'metrics integrations',
        path: '/api/integrations/metrics/metrics_c_v3',
        body: { api_key: 'k', region: 'eu' },
        cap: LIST_CAPS.integrationsPerInstance,
        count: () => store.integrations['metrics'].list().length,
      },
    ];
    for (const c of cases) {
      while (c.count() < c.cap) expect((await post('instance', c.path, key, c.body)).status).toBe(200);
      const refused = await post('instance', c.path, key, c.body);
      expect(refused.status, c.list).toBe(400);
      expect(refused.body.error.startsWith(`${c.list}: `), refused.body.error).toBe(true);
      expect(
        contract.violations(
          'instance',
          c.list === 'recipients'
            ? 'createRecipient'
            : c.list === 'alarms'
              ? 'createAlarm'
              : c.list.startsWith('logs')
                ? 'createLogIntegration'
                : 'createMetricsIntegration',
          { status: 400, headers: { 'content-type': 'application/json' }, text: JSON.stringify(refused.body) },
        ),
      ).toEqual([]);
      expect(c.count()).toBe(c.cap);
    }
  });

  it('backups of an instance in the 30-day window', async () => {
    const { store, key } = firstInstance(tusk);
    let last = { status: 200, body: { error: '' } };
    for (let i = 0; i < LIST_CAPS.backupsPerInstance + 1 && last.status < 300; i++)
      last = await post('instance', '/api/backup', key, {});
    expect(last.status).toBe(400);
    expect(last.body.error).toMatch(/^backups: /);
    expect(store.backups.list().length).toBeLessThanOrEqual(LIST_CAPS.backupsPerInstance);
  });

  it('instances and team members of an account; the audit log keeps the latest events', async () => {
    const account = [...tusk.registry.allHomes()].map((h) => h.records)[0]!;
    const actor = account.apiKeys.list().find((k) => k.role === 'admin')!;
    const plan = tusk.registry.catalogue.plans.find((p) => !p.shared)!.name;
    const region = tusk.registry.catalogue.regions[0]!;
    const body = { name: 'cap', plan, region: `${region.provider}::${region.region}` };
    for (let n = account.instances.list().length; n < LIST_CAPS.instancesPerAccount; n++)
      account.instances.create(body, actor);
    const refused = await post('customer', '/api/instances', actor.key, body);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatch(/^instances: an account has at most 10000 instances/);
    expect(account.instances.list()).toHaveLength(LIST_CAPS.instancesPerAccount);

    for (let i = account.team.list().length; i < LIST_CAPS.teamMembersPerAccount; i++)
      account.team.invite({ email: `cap-${i}@example.com` }, actor);
    const invite = await post('customer', '/api/team/invite', actor.key, { email: 'one-more@example.com' });
    expect(invite.status).toBe(400);
    expect(invite.body.error).toMatch(/^team: /);

    const id = account.instances.list()[0]!.id;
    for (let i = 0; account.audit.rows().length < LIST_CAPS.auditEventsPerAccount || i < 10; i++)
      account.instances.update(id, { name: `renamed-${i}` }, actor);
    expect(account.audit.rows().length).toBe(LIST_CAPS.auditEventsPerAccount);
    expect(account.audit.rows().at(-1)!.extras).toContainEqual(['name', expect.stringMatching(/^renamed-/)]);
  }, 120_000);

  it('the documents state every cap in the description of the operation that creates the item', () => {
    const described = (api: 'customer' | 'instance', op: string) =>
      String(contract.operation(api, op).raw.description).replace(/\s+/g, ' ');
    const n = (x: number) => x.toLocaleString('en-US');
    expect(described('customer', 'createInstance')).toContain(`at most ${n(LIST_CAPS.instancesPerAccount)} instances`);
    expect(described('customer', 'inviteTeamMember')).toContain(
      `at most ${n(LIST_CAPS.teamMembersPerAccount)} members`,
    );
    expect(described('customer', 'getAuditLogCsv')).toContain(`latest ${n(LIST_CAPS.auditEventsPerAccount)} events`);
    expect(described('instance', 'createRecipient')).toContain(
      `at most ${n(LIST_CAPS.recipientsPerInstance)} recipients`,
    );
    expect(described('instance', 'createAlarm')).toContain(`at most ${n(LIST_CAPS.alarmsPerInstance)} alarms`);
    expect(described('instance', 'createLogIntegration')).toContain(
      `at most ${n(LIST_CAPS.integrationsPerInstance)} log integrations`,
    );
    expect(described('instance', 'createMetricsIntegration')).toContain(
      `at most ${n(LIST_CAPS.integrationsPerInstance)} metrics integrations`,
    );
    expect(described('instance', 'createBackup')).toContain(`at most ${n(LIST_CAPS.backupsPerInstance)} backups`);
  });
});
