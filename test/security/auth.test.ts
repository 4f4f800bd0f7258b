// Security (issue 9), generated from the documents: every operation of both interfaces refuses
// each kind of bad credential with 401 and WWW-Authenticate (no credentials, malformed
// Authorization headers, a wrong key, a key rotated away, the other interface's key, a deleted
// instance's key), in a response that honours the documents and changes nothing.
//
// Another instance's key and another account's key are valid credentials, for their own data: one
// instance-API host serves every instance (the key selects it) and one customer-API host every
// account. For them the property is isolation: no data of the other instance or account ever
// appears in any response, its ids are 404, and nothing of it changes.
//
// Keys are compared in constant time (SHA-256 index, then timingSafeEqual), and never appear in
// the request log nor in the request journal (GET /__tusk/requests).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { INTERFACES, type InterfaceName } from '../../src/openapi/documents.js';
import type { OperationInfo } from '../../src/openapi/operations.js';
import { Contract } from '../../contract-tests/harness/contract.js';

const contract = await Contract.load();
type Obj = Record<string, unknown>;

const b64 = (s: string) => Buffer.from(s).toString('base64');
const basic = (key: string) => `Basic ${b64(`:${key}`)}`;

/** A path for the operation: probe values from each path parameter's schema. */
function probePath(op: OperationInfo, values: Record<string, string | number> = {}): string {
  return op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (values[name] !== undefined) return encodeURIComponent(String(values[name]));
    const schema = op.parameters.find((p) => p.name === name)!.schema;
    if (Array.isArray(schema.enum)) return String(schema.enum[0]);
    if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000001';
    return '1';
  });
}

interface Sent {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: unknown;
}

async function send(
  tusk: Tusk,
  api: InterfaceName,
  op: OperationInfo,
  authorization: string | undefined,
  options: { path?: string; body?: unknown } = {},
): Promise<Sent> {
  const headers: Record<string, string> = {};
  if (authorization !== undefined) headers.authorization = authorization;
  const hasBody = op.body !== undefined;
  if (hasBody) headers['content-type'] = 'application/json';
  const res = await tusk[api].fetch(
    new Request(`http://tusk${options.path ?? probePath(op)}`, {
      method: op.method.toUpperCase(),
      headers,
      ...(hasBody ? { body: JSON.stringify(options.body ?? {}) } : {}),
    }),
  );
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), text, json };
}

async function call(
  tusk: Tusk,
  api: InterfaceName,
  method: string,
  path: string,
  key: string,
  body?: unknown,
): Promise<Sent> {
  const res = await tusk[api].fetch(
    new Request(`http://tusk${path}`, {
      method,
      headers: { authorization: basic(key), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
  const text = await res.text();
  return {
    status: res.status,
    headers: Object.fromEntries(res.headers),
    text,
    json: text ? (JSON.parse(text) as unknown) : undefined,
  };
}

const ops = (api: InterfaceName) => [...contract.operations[api].values()];

describe('authentication of every operation', () => {
  let tusk: Tusk;
  /** Bad credentials per interface: what each is, and the Authorization header (undefined: none). */
  let bad: Record<InterfaceName, [string, string | undefined][]>;
  const logged: string[] = [];

  beforeAll(async () => {
    // The request log on (text), captured, to check below that no key ever reaches it.
    vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    tusk = await createTusk({ log: 'text', rateLimit: '1000000/1', provisionDelayMs: 0 });
    const admin = tusk.registry.adminKey;
    const account = [...tusk.registry.allHomes()].map((h) => h.records)[0]!;
    // A customer key rotated away: the monitor's old key.
    const monitor = account.apiKeys.list().find((k) => k.role === 'monitor')!.key;
    expect((await call(tusk, 'customer', 'POST', '/api/apikeys/rotate-apikey', monitor)).status).toBe(200);
    const plan = tusk.registry.catalogue.plans.find((p) => !p.shared)!.name;
    const r = tusk.registry.catalogue.regions[0]!;
    const create = async () =>
      (
        await call(tusk, 'customer', 'POST', '/api/instances', admin, {
          name: 'auth',
          plan,
          region: `${r.provider}::${r.region}`,
        })
      ).json as {
        id: number;
        apikey: string;
      };
    // An instance key rotated away, and the key of a deleted instance.
    const rotated = await create();
    expect((await call(tusk, 'instance', 'POST', '/api/account/rotate-apikey', rotated.apikey)).status).toBe(200);
    const deleted = await create();
    expect((await call(tusk, 'customer', 'DELETE', `/api/instances/${deleted.id}`, admin)).status).toBe(204);
    const live = await create();
    const common = (valid: string): [string, string | undefined][] => [
      ['no Authorization header', undefined],
      ['an empty Authorization header', ''],
      ['a Bearer token carrying a valid key', `Bearer ${valid}`],
      ['a Digest header', `Digest username="", response="${valid}"`],
      ['Basic with text that is not base64', 'Basic !!!not base64!!!'],
      ['Basic without a colon (a valid key alone, encoded)', `Basic ${b64(valid)}`],
      ['Basic with nothing after the scheme', 'Basic '],
      ['Basic with an empty user and password', basic('')],
      ['a wrong key', basic(`${valid.slice(0, -1)}${valid.endsWith('0') ? '1' : '0'}`)],
      ['a valid key with a trailing space', basic(`${valid} `)],
      ['a prefix of a valid key', basic(valid.slice(0, -1))],
      ['a 12 KB key', basic('k'.repeat(12_000))],
    ];
    bad = {
      customer: [
        ...common(admin),
        ['a customer key rotated away (revoked)', basic(monitor)],
        ['an instance key (the other interface)', basic(live.apikey)],
        ['the admin key in the user field (the customer API reads the password)', `Basic ${b64(`${admin}:`)}`],
        ['the key of a deleted instance', basic(deleted.apikey)],
      ],
      instance: [
        ...common(live.apikey),
        ['an instance key rotated away (revoked)', basic(rotated.apikey)],
        ['the customer admin key (the other interface)', basic(admin)],
        ['the key of a deleted instance', basic(deleted.apikey)],
        ['a customer key rotated away', basic(monitor)],
      ],
    };
  });
  afterAll(() => vi.restoreAllMocks());

  for (const api of INTERFACES) {
    for (const op of ops(api)) {
      it(`${api} ${op.operationId} (${op.method.toUpperCase()} ${op.path}): 401 with WWW-Authenticate for every bad credential, nothing changes`, async () => {
        const before = JSON.stringify(
          tusk.registry.dump?.() ?? [...tusk.registry.allHomes()].map((h) => h.records).map((a) => a.instances.list()),
        );
        for (const [what, header] of bad[api]) {
          const res = await send(tusk, api, op, header);
          expect(res.status, what).toBe(401);
          expect(res.headers['www-authenticate'], what).toMatch(/^Basic realm=/);
          expect(contract.violations(api, op.operationId, res), what).toEqual([]);
        }
        expect(
          JSON.stringify(
            tusk.registry.dump?.() ??
              [...tusk.registry.allHomes()].map((h) => h.records).map((a) => a.instances.list()),
          ),
        ).toBe(before);
      });
    }
  }

  it('no key ever reaches the request log or the request journal', async () => {
    const keys = new Set<string>();
    for (const { records: a } of tusk.registry.allHomes()) {
      for (const k of a.apiKeys.list()) keys.add(k.key);
      for (const i of a.instances.list()) keys.add(a.instanceStore(i.id)!.apikey);
    }
    for (const list of Object.values(bad))
      for (const [, h] of list)
        if (h?.startsWith('Basic ')) keys.add(Buffer.from(h.slice(6), 'base64').toString().replace(/^:/, ''));
    keys.delete('');
    expect(logged.length).toBeGreaterThan(100);
    const journal = await tusk.customer.fetch(new Request('http://tusk/__tusk/requests?limit=1000'));
    const journalText = journal.status === 200 ? await journal.text() : '';
    if (journal.status === 200)
      expect((JSON.parse(journalText) as { entries: unknown[] }).entries.length).toBeGreaterThan(100);
    for (const key of keys) {
      if (key.length < 8) continue;
      expect(
        logged.find((l) => l.includes(key)),
        'request log',
      ).toBeUndefined();
      expect(journalText.includes(key), 'request journal').toBe(false);
      // Nor their base64 (the Authorization header as sent).
      expect(
        logged.find((l) => l.includes(b64(`:${key}`))),
        'request log',
      ).toBeUndefined();
      expect(journalText.includes(b64(`:${key}`)), 'request journal').toBe(false);
    }
  });
});

describe("another instance's key and another account's key: valid, but only for their own data", () => {
  let tusk: Tusk;
  /** Instance A (the one whose data must stay hidden) and B (whose key probes for it). */
  let a: { id: number; apikey: string };
  let b: { id: number; apikey: string };
  const marker = `only-in-A-${Math.random().toString(36).slice(2, 10)}`;
  let secretsOfA: string[];
  let otherAccount: { admin: string; instance: { id: number; apikey: string } };

  beforeAll(async () => {
    tusk = await createTusk({
      log: 'off',
      rateLimit: '1000000/1',
      provisionDelayMs: 0,
      registry: { backupDelayMs: 0 },
    });
    const admin = tusk.registry.adminKey;
    const plan = tusk.registry.catalogue.plans.find((p) => !p.shared)!.name;
    const r = tusk.registry.catalogue.regions[0]!;
    const region = `${r.provider}::${r.region}`;
    const create = async (key: string, name: string) =>
      (await call(tusk, 'customer', 'POST', '/api/instances', key, { name, plan, region })).json as {
        id: number;
        apikey: string;
      };
    a = await create(admin, `${marker}-instance`);
    b = await create(admin, 'probe-b');
    // A gets more of everything than B has, so that A's ids name nothing in B.
    for (let i = 0; i < 6; i++) {
      expect(
        (
          await call(tusk, 'instance', 'POST', '/api/alarms/recipients', a.apikey, {
            type: 'email',
            value: `${marker}-${i}@example.com`,
            name: `${marker}-${i}`,
            options: { note: marker },
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(tusk, 'instance', 'POST', '/api/alarms', a.apikey, {
            type: 'cpu',
            value_threshold: 50 + i,
            time_threshold: 60,
            recipients: [2],
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(tusk, 'instance', 'POST', '/api/integrations/logs/logs_d', a.apikey, {
            api_key: `${marker}-logs-${i}`,
            region: 'eu',
            tags: `owner=${marker}`,
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await call(tusk, 'instance', 'POST', '/api/integrations/metrics/metrics_c_v3', a.apikey, {
            api_key: `${marker}-metrics-${i}`,
            region: 'eu',
          })
        ).status,
      ).toBe(200);
      expect((await call(tusk, 'instance', 'POST', '/api/backup', a.apikey, {})).status).toBeLessThan(300);
    }
    const record = (await call(tusk, 'customer', 'GET', `/api/instances/${a.id}`, admin)).json as {
      url: string;
      providerid: string;
    };
    secretsOfA = [marker, a.apikey, record.url, record.providerid, new URL(record.url).password];
    // A second account (POST /__tusk/accounts), with an instance of its own.
    const made = await tusk.customer.fetch(
      new Request('http://tusk/__tusk/accounts', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      }),
    );
    expect(made.status).toBe(201);
    const otherAdmin = ((await made.json()) as { admin_key: string }).admin_key;
    otherAccount = { admin: otherAdmin, instance: await create(otherAdmin, 'other-account') };
  });

  /** The document's JSON request example of an operation (a body that validates). */
  const exampleBody = (op: OperationInfo): unknown => {
    const body = op.raw.requestBody as
      { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> } | undefined;
    const media = body?.content?.['application/json'];
    return media?.example ?? Object.values(media?.examples ?? {})[0]?.value ?? {};
  };

  /**
   * Every operation, called with the key on every id `idsOf` gives (the other's ids), with the
   * document's example body; returns the responses. A rotated key is followed.
   */
  async function sweep(
    api: InterfaceName,
    holder: { key: string },
    idsOf: (op: OperationInfo) => Promise<string[]>,
  ): Promise<{ op: OperationInfo; path: string; res: Sent }[]> {
    const out: { op: OperationInfo; path: string; res: Sent }[] = [];
    for (const op of ops(api)) {
      const idParam = op.parameters.find(
        (p) =>
          p.in === 'path' && (p.schema.type === 'integer' || (p.name.includes('id') && !Array.isArray(p.schema.enum))),
      );
      const paths = idParam
        ? (await idsOf(op)).map((id) =>
            probePath(op, { [idParam.name]: id, system: op.path.includes('metrics') ? 'metrics_c_v3' : 'logs_d' }),
          )
        : [probePath(op)];
      for (const path of paths) {
        const res = await send(tusk, api, op, basic(holder.key), { path, body: exampleBody(op) });
        out.push({ op, path, res });
        const fresh = (res.json as { apikey?: unknown } | undefined)?.apikey;
        if (op.operationId.startsWith('rotate') && res.status === 200 && typeof fresh === 'string') holder.key = fresh;
      }
    }
    return out;
  }

  /** The ids listed by the collection above an operation's id parameter, for an instance key. */
  async function listed(op: OperationInfo, key: string, api: InterfaceName = 'instance'): Promise<string[]> {
    let path = op.path.replace(/\/\{[^}]+\}.*$/, '');
    while (path.startsWith('/api/') && !ops(api).some((o) => o.method === 'get' && o.path === path))
      path = path.replace(/\/[^/]*$/, '');
    const res = await call(tusk, api, 'GET', path, key);
    return Array.isArray(res.json) ? (res.json as Obj[]).map((x) => String(x.id)) : [];
  }

  it("with instance B's key, every operation on A's ids is a 404, no response carries A's data, and A is unchanged", async () => {
    const dumpA = () =>
      JSON.stringify(
        [...tusk.registry.allHomes()]
          .map((h) => h.records)[0]!
          .instanceStore(a.id)!
          .toJSON?.() ?? '',
      );
    const before = dumpA();
    const probe = { key: b.apikey };
    const results = await sweep('instance', probe, async (op) => {
      const [ofA, ofB] = [await listed(op, a.apikey), await listed(op, probe.key)];
      return ofA.filter((id) => !ofB.includes(id));
    });
    let probedIds = 0;
    for (const { op, path, res } of results) {
      expect(res.status, `${op.operationId} ${path}`).toBeLessThan(500);
      for (const s of secretsOfA) expect(res.text.includes(s), `${op.operationId} ${path} shows A's ${s}`).toBe(false);
      if (op.parameters.some((p) => p.in === 'path' && p.schema.type === 'integer')) {
        probedIds++;
        expect(res.status, `${op.operationId} ${path}: ${res.text}`).toBe(404);
      }
    }
    expect(probedIds).toBeGreaterThan(20);
    expect(dumpA()).toBe(before);
    // A's recipient ids in B's alarms and A's backup ids in B's restore are unknown in B.
    const recipients = await call(tusk, 'instance', 'POST', '/api/alarms', probe.key, {
      type: 'notice',
      recipients: [7],
    });
    expect(recipients.status).toBe(400);
    const aBackups = (await call(tusk, 'instance', 'GET', '/api/backup', a.apikey)).json as { id: number }[];
    const bBackups = new Set(
      ((await call(tusk, 'instance', 'GET', '/api/backup', probe.key)).json as { id: number }[]).map((x) => x.id),
    );
    const onlyA = aBackups.find((x) => !bBackups.has(x.id))!;
    expect(
      (await call(tusk, 'instance', 'POST', '/api/backup/restore', probe.key, { backup_id: onlyA.id })).status,
    ).toBe(400);
  });

  it("with another account's keys (its admin key and its instance's key), no response carries this account's data, and its instance ids are 404", async () => {
    const mine = [...tusk.registry.allHomes()].map((h) => h.records)[0]!;
    const before = JSON.stringify(mine.toJSON?.() ?? mine.instances.list());
    const ownIds = new Set(
      (await listed(contract.operation('customer', 'getInstance'), otherAccount.admin, 'customer')).map(String),
    );
    const theirInstance = { key: otherAccount.instance.apikey };
    const instance = await sweep('instance', theirInstance, async (op) => listed(op, theirInstance.key));
    const theirAdmin = { key: otherAccount.admin };
    const customer = await sweep('customer', theirAdmin, async (op) => {
      if (op.path !== '/api/instances/{id}') return (await listed(op, theirAdmin.key, 'customer')).slice(0, 3);
      return mine.instances
        .list()
        .map((i) => String(i.id))
        .filter((id) => !ownIds.has(id));
    });
    const secrets = [
      ...secretsOfA,
      mine.name,
      mine.teamEmail,
      ...mine.apiKeys.list().map((k) => k.key),
      ...mine.team.list().map((m) => m.email),
    ];
    for (const { op, path, res } of [...customer, ...instance]) {
      expect(res.status, `${op.operationId} ${path}`).toBeLessThan(500);
      for (const s of secrets)
        expect(res.text.includes(s), `${op.operationId} ${path} shows the other account's ${s}`).toBe(false);
      if (op.path === '/api/instances/{id}' && !ownIds.has(path.split('/').pop()!))
        expect(res.status, `${op.operationId} ${path}`).toBe(404);
    }
    expect(customer.filter((x) => x.op.path === '/api/instances/{id}').length).toBeGreaterThan(3);
    expect(JSON.stringify(mine.toJSON?.() ?? mine.instances.list())).toBe(before);
  });
});
