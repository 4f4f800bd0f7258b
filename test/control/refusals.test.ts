// What the control plane answers at its edges: who may act on an account (scope.ts, plane.ts), the
// refusals of the state, clock, fault and coverage controls and the words they use, the index of the
// controls, the choice of the validation error that explains a bad body, and the control document's
// request bodies. Every test builds its own server, some with options of their own.
import { describe, expect, it } from 'vitest';
import type { ErrorObject } from 'ajv';
import type { TuskOptions } from '../../src/server.js';
import { tuskForTest } from '../support/in-process.js';
import { ControlDocument } from '../../src/control/document.js';
import { reportedError, tellingErrors } from '../../src/control/body.js';
import { indexRoute } from '../../src/control/health.js';
import type { ControlDeps } from '../../src/control/deps.js';
import type { OpenApiDocument } from '../../src/openapi/documents.js';

interface Job {
  account_id: string;
  admin_key: string;
  keys: Record<string, string>;
}

/** A Tusk for this test only, closed when it finishes, and a client of its control plane. */
async function server(options: TuskOptions = {}) {
  const { tusk, send } = await tuskForTest(options);
  const call = (
    path: string,
    init: {
      method?: string;
      key?: string;
      body?: unknown;
      raw?: string;
      port?: 'customer' | 'instance';
      accept?: string;
    } = {},
  ) =>
    send(init.port ?? 'customer', init.method ?? 'GET', path, {
      key: init.key || undefined,
      json: init.body,
      raw: init.raw,
      headers: init.accept ? { accept: init.accept } : {},
    });
  const control = (path: string, init: Parameters<typeof call>[1] = {}) => call(`/__tusk${path}`, init);
  const newJob = async (name: string, key?: string): Promise<Job> => {
    const res = await control('/accounts', { method: 'POST', body: { name }, ...(key ? { key } : {}) });
    expect(res.status).toBe(201);
    return res.body as Job;
  };
  return { tusk, call, control, newJob };
}

describe('who may act on an account', () => {
  it('an admin key naming its own account with ?account= acts on it; naming another is a 403 that names both accounts', async () => {
    const { control, newJob } = await server();
    const a = await newJob('job a');
    const b = await newJob('job b');
    const own = await control(`/clock?account=${a.account_id}`, { key: a.admin_key });
    expect(own.status).toBe(200);
    expect(own.body.account).toBe(a.account_id);
    const other = await control(`/clock?account=${b.account_id}`, { key: a.admin_key });
    expect(other.status).toBe(403);
    expect(other.body.error).toBe(`Forbidden: the key is of account ${a.account_id}, not of account ${b.account_id}`);
  });

  it('an unknown ?account= is a 404 naming the id', async () => {
    const { control } = await server();
    const res = await control('/clock?account=no-such-account');
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Not found: no account with id no-such-account');
  });

  it('a key of no account is a 401 saying which keys are taken', async () => {
    const { control } = await server();
    const res = await control('/clock', { key: 'no-such-key-00000000' });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/^Unauthorized: the key is neither the control key nor a key of an account/);
  });

  it("an instance's key is a 403 naming it: the controls of an account need its admin key", async () => {
    const { control, call } = await server();
    const created = await call('/api/instances', {
      method: 'POST',
      key: 'tusk-admin-key',
      body: { name: 'scoped', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    expect(created.status).toBe(200);
    const res = await control('/clock', { key: created.body.apikey as string });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe(
      'Forbidden: the controls of an account need an admin key of the account, not an instance key',
    );
  });

  it('a control of the whole server scoped to an account is a 403 naming the control', async () => {
    const { control, newJob } = await server();
    const a = await newJob('job a');
    const res = await control('/seed', { method: 'POST', key: a.admin_key, body: { seed: 2 } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe(
      'Forbidden: POST /__tusk/seed acts on the whole server; it cannot be scoped to one account (use the control key, or no key without --control-key)',
    );
  });

  it('with --control-key: the controls need a key, and an admin key may name its own account with ?account=', async () => {
    const { control, newJob } = await server({ controlKey: 'control-key-0123' });
    expect((await control('/clock')).status).toBe(401);
    expect((await control('/coverage')).status).toBe(401);
    const a = await newJob('job a', 'control-key-0123');
    const own = await control(`/clock?account=${a.account_id}`, { key: a.admin_key });
    expect(own.status).toBe(200);
    expect(own.body.account).toBe(a.account_id);
  });
});

describe('the refusals of the state controls', () => {
  it('resetting an account that came with a loaded state is a 400 naming the account and the rule, and changes nothing', async () => {
    const { control, call, newJob } = await server();
    const a = await newJob('job a');
    const dump = await control('/state', { key: a.admin_key });
    expect((await control('/state', { method: 'PUT', key: a.admin_key, body: dump.body })).status).toBe(200);
    const made = await call('/api/instances', {
      method: 'POST',
      key: a.admin_key,
      body: { name: 'kept', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    expect(made.status).toBe(200);
    const res = await control('/reset', { method: 'POST', key: a.admin_key });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ field: 'account', rule: 'resettable' });
    expect(res.body.error).toBe(
      `account: account ${a.account_id} came with a loaded state: it has no seeded or created form to reset to (reset the whole server instead)`,
    );
    expect((await call('/api/instances', { key: a.admin_key })).body.map((i: { name: string }) => i.name)).toEqual([
      'kept',
    ]);
  });

  it('PUT /__tusk/state with no body is a 400: a state is required', async () => {
    const { control } = await server();
    const res = await control('/state', { method: 'PUT', raw: '' });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ field: 'body', rule: 'required' });
  });

  it("an account's dump whose record breaks its schema is a 400 naming the record within the account", async () => {
    const { control, call, newJob } = await server();
    const a = await newJob('job a');
    const made = await call('/api/instances', {
      method: 'POST',
      key: a.admin_key,
      body: { name: 'x', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    expect(made.status).toBe(200);
    const dump = (await control('/state', { key: a.admin_key })).body;
    const before = JSON.stringify(dump);
    dump.account.instances[0].recipients.items[0].type = 'pigeon';
    const res = await control('/state', { method: 'PUT', key: a.admin_key, body: dump });
    expect(res.status).toBe(400);
    expect(res.body.field).toMatch(/^account\.instances\.0\.recipients\.items\.0/);
    expect(JSON.stringify((await control('/state', { key: a.admin_key })).body)).toBe(before);
  });

  it('a state with more bodies nested too deep than can be told names the first 20', async () => {
    const { control, call } = await server({
      registry: { outbox: { fetch: (async () => new Response(null, { status: 204 })) as typeof fetch } },
    });
    const made = await call('/api/instances', {
      method: 'POST',
      key: 'tusk-admin-key',
      body: { name: 'deep', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    expect(made.status).toBe(200);
    const backup = await call('/api/backup', {
      method: 'POST',
      port: 'instance',
      key: made.body.apikey as string,
      body: { callback: 'http://127.0.0.1:9/cb' },
    });
    expect(backup.status).toBeLessThan(300);
    expect((await control('/clock', { method: 'POST', body: { advance: '1h' } })).status).toBe(200);
    const state = (await control('/state')).body;
    const template = state.outbox.entries.at(-1);
    expect(template).toBeDefined();
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = [deep];
    const first = await control('/state', {
      method: 'PUT',
      body: { ...state, outbox: { ...state.outbox, entries: [{ ...template, body: deep }] } },
    });
    expect(first.status).toBe(400);
    expect(first.body).toMatchObject({ field: 'outbox.entries.0.body', rule: 'maxDepth' });
    const entries = Array.from({ length: 25 }, (_, i) => ({ ...template, id: i + 1, body: deep }));
    const res = await control('/state', { method: 'PUT', body: { ...state, outbox: { ...state.outbox, entries } } });
    expect(res.status).toBe(400);
    // Ten named in the message, of the twenty told.
    expect(res.body.error.match(/outbox\.entries\.\d+\.body/g)).toHaveLength(10);
    expect(res.body.error).toMatch(/; and 10 more$/);
  });

  it('a clock move that names no move is a 400 naming the rule, and leaves the clock where it was', async () => {
    const { control } = await server();
    const before = (await control('/clock')).body;
    const res = await control('/clock', { method: 'POST', body: {} });
    expect(res.status).toBe(400);
    expect(res.body.rule).toBe('minProperties');
    expect((await control('/clock')).body).toMatchObject({ pinned: before.pinned, offset_ms: before.offset_ms });
  });
});

describe('the clock of the whole server', () => {
  it("refuses follow_server without an account, saying that only an account follows the server's clock", async () => {
    const { control } = await server();
    const res = await control('/clock', { method: 'POST', body: { follow_server: true } });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(
      "follow_server: only an account follows the server's clock: scope the request to an account (?account=ID or its admin key)",
    );
  });
});

describe('the fault and coverage controls of an account', () => {
  it('clearing the faults of an account that has none is a 204, and reading them shows the server seed and no rules', async () => {
    const { control, newJob } = await server({ seed: 7 });
    const a = await newJob('job a');
    const read = await control('/faults', { key: a.admin_key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ seed: (await control('/faults')).body.seed, rules: [] });
    expect((await control('/faults', { method: 'DELETE', key: a.admin_key })).status).toBe(204);
  });

  it('clearing the coverage of the whole server forgets every count', async () => {
    const { control, call } = await server();
    expect((await call('/api/regions', { key: 'tusk-admin-key' })).status).toBe(200);
    const counted = (r: {
      interfaces: { customer: { by_operation: { operation_id: string; statuses: { count: number }[] }[] } };
    }) =>
      r.interfaces.customer.by_operation
        .find((o) => o.operation_id === 'listRegions')!
        .statuses.reduce((n, s) => n + s.count, 0);
    expect(counted((await control('/coverage')).body)).toBe(1);
    expect((await control('/coverage', { method: 'DELETE' })).status).toBe(204);
    expect(counted((await control('/coverage')).body)).toBe(0);
  });
});

describe('the index of the controls', () => {
  it('lists each method of each path of the control document, with its summary, its document and the docs', async () => {
    const { control } = await server();
    const doc = new ControlDocument().document();
    const expected = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item as Record<string, { summary?: string }>)
        .filter(([m]) => ['get', 'put', 'post', 'delete', 'patch'].includes(m))
        .map(([m, op]) => ({ method: m.toUpperCase(), path, summary: op.summary ?? '' })),
    );
    const res = await control('/');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: 'tusk', document: '/__tusk/openapi.json', docs: '/docs' });
    expect(res.body.controls).toEqual(expected);
    expect(expected.some((c) => c.method === 'PUT')).toBe(true);
    expect(expected.some((c) => c.method === 'DELETE')).toBe(true);
    expect(expected.every((c) => c.summary !== '')).toBe(true);
  });

  it('links only the GET controls without parameters in its HTML page; a control without a summary has an empty cell', async () => {
    const { control } = await server();
    const page = (await control('/', { accept: 'text/html' })).text;
    expect(page).toContain('<td><code>POST</code></td><td><code>/__tusk/reset</code></td>');
    expect(page).not.toContain('<a href="/__tusk/reset">');
    const document = {
      document: () => ({ paths: { '/__tusk/x': { get: { operationId: 'x' } } } }) as unknown as OpenApiDocument,
    } as ControlDocument;
    const route = indexRoute({ document } as unknown as ControlDeps);
    const res = await route({ req: { header: () => undefined }, json: (v: unknown) => v } as unknown as Parameters<
      typeof route
    >[0]);
    expect((res as unknown as { controls: unknown }).controls).toEqual([
      { method: 'GET', path: '/__tusk/x', summary: '' },
    ]);
  });
});

describe('the error that explains a bad control body', () => {
  const error = (keyword: string, instancePath: string): ErrorObject => ({
    keyword,
    instancePath,
    schemaPath: '',
    params: {},
  });

  it('leaves out the oneOf and anyOf summaries', () => {
    const required = error('required', '');
    expect(tellingErrors([error('anyOf', ''), required])).toEqual([required]);
    expect(tellingErrors([error('oneOf', ''), required])).toEqual([required]);
    expect(reportedError([error('anyOf', ''), required])).toBe(required);
  });

  it('leaves out a type mismatch where another error at or under its place says more, and keeps those that stand alone', () => {
    const typeA = error('type', '/a');
    const typeA2 = error('type', '/a');
    const enumB = error('enum', '/b');
    expect(tellingErrors([typeA, typeA2, enumB])).toEqual([typeA, typeA2, enumB]);
    const typeRules = error('type', '/rules');
    const minRules = error('minItems', '/rules');
    expect(tellingErrors([typeRules, minRules])).toEqual([minRules]);
    const typeTop = error('type', '/x');
    const deeper = error('required', '/x/y');
    expect(tellingErrors([typeTop, deeper])).toEqual([deeper]);
    const elsewhere = error('required', '/z');
    expect(tellingErrors([typeTop, elsewhere])).toEqual([typeTop, elsewhere]);
    expect(tellingErrors([typeTop, error('type', '/x/y')])).toEqual([typeTop, error('type', '/x/y')]);
  });

  it('reports the first error when every one is a summary', () => {
    const only = error('oneOf', '');
    expect(reportedError([only])).toBe(only);
  });
});

describe("the control document's request bodies", () => {
  /** A control document reading `paths` instead of the file. */
  const documentOf = (paths: Record<string, unknown>) =>
    new (class extends ControlDocument {
      override document(): OpenApiDocument {
        return { paths } as unknown as OpenApiDocument;
      }
    })();

  it('names the schema of an operation and whether its body is required', () => {
    const doc = new ControlDocument();
    expect(doc.requestBody('moveClock')).toEqual({ schema: 'ClockMove', required: true });
    expect(doc.requestBody('setFaults').schema).toBeTruthy();
  });

  it('throws, naming the operation, when it declares no JSON body of a named schema', () => {
    const doc = documentOf({
      '/none': { get: { operationId: 'none' } },
      '/empty': { post: { operationId: 'empty', requestBody: {} } },
      '/csv': {
        post: { operationId: 'csv', requestBody: { content: { 'text/csv': { schema: { type: 'string' } } } } },
      },
      '/bare': { post: { operationId: 'bare', requestBody: { content: { 'application/json': {} } } } },
      '/inline': {
        post: {
          operationId: 'inline',
          requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
      '/elsewhere': {
        post: {
          operationId: 'elsewhere',
          requestBody: { content: { 'application/json': { schema: { $ref: 'other.yaml#/X' } } } },
        },
      },
      '/nulls': { parameters: null, post: null },
    });
    for (const id of ['none', 'empty', 'csv', 'bare', 'inline', 'elsewhere', 'missing'])
      expect(() => doc.requestBody(id), id).toThrow(`the control document declares no JSON request body for ${id}`);
  });

  it('reads an optional body as not required', () => {
    const doc = documentOf({
      '/opt': {
        post: {
          operationId: 'opt',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Opt' } } } },
        },
      },
    });
    expect(doc.requestBody('opt')).toEqual({ schema: 'Opt', required: false });
  });
});

describe('GET /__tusk/runtime', () => {
  it("tells the process's resident memory in MiB", async () => {
    const { control } = await server();
    const res = await control('/runtime');
    expect(res.status).toBe(200);
    const rss = process.memoryUsage.rss() / 2 ** 20;
    expect(res.body.rss_mb).toBeGreaterThan(rss / 2);
    expect(res.body.rss_mb).toBeLessThan(rss * 2);
  });
});
