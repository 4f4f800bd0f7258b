// createApiApp (src/http/app.ts) on a small hand-written document: every app is built inside the
// test that uses it, so the build-time checks (operations routed once, all of them, at their own
// method and path), the fusing of pipeline and handler, the method guard (405 with Allow), the
// not-found and error answers and the response hook are each exercised where they can fail.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import {
  createApiApp,
  errorResponse,
  ignoredFieldsHeader,
  type ApiAppOptions,
  type ResponseInfo,
} from '../../src/http/app.js';
import { ApiError } from '../../src/core/errors.js';
import { ConnectionReset } from '../../src/http/fault-step.js';
import { Faults } from '../../src/domain/fault-rules.js';
import type { PipelineEnv } from '../../src/http/pipeline.js';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { MemoRouter } from '../../src/http/router.js';
import { SchemaSet } from '../../src/openapi/ajv.js';
import type { InterfaceName, OpenApiDocument } from '../../src/openapi/documents.js';
import { readOperations } from '../../src/openapi/operations.js';
import { readBody } from '../control/setup.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const ERROR = {
  description: 'An error',
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
};
const OK = { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } };

/**
 * Things at /api/things and /api/things/{id} (GET, PUT, DELETE), a literal /api/things/special
 * (GET only) beside the template and listed after it, and a path with a dot.
 */
function thingsDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'things', version: '1' },
    paths: {
      '/api/things': {
        get: {
          operationId: 'listThings',
          parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1 } }],
          responses: { '200': OK, '500': ERROR },
        },
        post: {
          operationId: 'createThing',
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['name'],
                  properties: { name: { type: 'string' } },
                  additionalProperties: false,
                },
              },
            },
          },
          responses: { '201': OK },
        },
      },
      '/api/things/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        get: { operationId: 'getThing', responses: { '200': OK } },
        put: { operationId: 'updateThing', responses: { '200': OK } },
        delete: { operationId: 'deleteThing', responses: { '204': { description: 'gone' } } },
      },
      '/api/things/special': {
        get: { operationId: 'getSpecial', responses: { '200': OK } },
      },
      '/api/export.csv': {
        get: {
          operationId: 'exportThings',
          responses: { '200': { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } } },
        },
      },
    },
    components: {
      schemas: { Error: { type: 'object', required: ['error'], properties: { error: { type: 'string' } } } },
    },
  };
}

type Options = ApiAppOptions<string>;
type Mount = Options['mount'];

/** Answers with the operation and what the pipeline put in the context. */
const echo =
  (op: string, status: 200 | 201 = 200) =>
  (c: Context<PipelineEnv<string>>) =>
    c.json({ op, principal: c.get('principal'), input: c.get('input') }, status);

/** Every operation of thingsDocument() at its place; the literal path before the template, as the apps do. */
const mountThings: Mount = (app, route) => {
  app.get('/api/things', route('listThings'), echo('listThings'));
  app.post('/api/things', route('createThing'), echo('createThing', 201));
  app.get('/api/things/special', route('getSpecial'), echo('getSpecial'));
  app.get('/api/things/:id', route('getThing'), echo('getThing'));
  app.put('/api/things/:id', route('updateThing'), echo('updateThing'));
  app.delete('/api/things/:id', route('deleteThing'), (c) => c.body(null, 204));
  app.get('/api/export.csv', route('exportThings'), (c) => c.text('id,name\n'));
};

const GOOD_KEY = 'good-key';
const AUTH = 'Basic ' + Buffer.from(`:${GOOD_KEY}`).toString('base64');

function build(overrides: Partial<Options> = {}, doc = thingsDocument(), api: InterfaceName = 'customer') {
  return createApiApp<string>({
    api,
    doc,
    schemas: new SchemaSet({ [api]: doc }, { precompiled: false }),
    authenticate: {
      keyField: 'password',
      resolve: (key) => (key === GOOD_KEY ? { principal: 'alice', credentialId: 'alice-1' } : undefined),
    },
    limiter: () => new RateLimiter({ limit: 1000, windowMs: 60_000, clock: { now: () => 0 } }),
    mount: mountThings,
    ...overrides,
  });
}

type App = { fetch: (req: Request) => Response | Promise<Response> };

async function send(
  app: App,
  method: string,
  path: string,
  init: { auth?: boolean; body?: unknown; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...init.headers };
  if (init.auth !== false) headers.authorization = AUTH;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await app.fetch(
    new Request(`http://tusk${path}`, {
      method,
      headers,
      ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    }),
  );
  return { status: res.status, body: await readBody(res), headers: res.headers };
}

describe('createApiApp: building', () => {
  it('routes each operation as one route (pipeline and handler fused) on a MemoRouter', () => {
    const app = build();
    expect(app.router).toBeInstanceOf(MemoRouter);
    expect(app.router.name).toBe('MemoRouter(TrieRouter)');
    expect(app.routes.map((r) => `${r.method} ${r.path}`)).toStrictEqual([
      'GET /api/things',
      'POST /api/things',
      'GET /api/things/special',
      'GET /api/things/:id',
      'PUT /api/things/:id',
      'DELETE /api/things/:id',
      'GET /api/export.csv',
    ]);
  });

  it('refuses an operation the document does not have', () => {
    expect(() =>
      build({
        mount: (app, route) => {
          mountThings(app, route, new Map());
          app.get('/api/nope', route('nope'), (c) => c.text('no'));
        },
      }),
    ).toThrow(new Error('route(): the customer document has no operation nope'));
    expect(() => build({ mount: (_app, route) => void route('listthings') }, thingsDocument(), 'instance')).toThrow(
      new Error('route(): the instance document has no operation listthings'),
    );
  });

  it('refuses an operation routed twice', () => {
    expect(() =>
      build({
        mount: (app, route) => {
          mountThings(app, route, new Map());
          app.get('/api/things2', route('listThings'), (c) => c.text('again'));
        },
      }),
    ).toThrow(new Error('route(): listThings is routed twice'));
  });

  it('refuses an app that leaves operations without a handler, naming them all', () => {
    expect(() =>
      build({
        mount: (app, route) => {
          app.get('/api/things', route('listThings'), echo('listThings'));
          app.post('/api/things', route('createThing'), echo('createThing', 201));
          app.get('/api/things/:id', route('getThing'), echo('getThing'));
          app.put('/api/things/:id', route('updateThing'), echo('updateThing'));
          app.get('/api/export.csv', route('exportThings'), (c) => c.text(''));
        },
      }),
    ).toThrow(new Error('the customer app routes no handler for: deleteThing, getSpecial'));
    expect(() => build({ mount: () => undefined }, thingsDocument(), 'instance')).toThrow(
      new Error(
        'the instance app routes no handler for: listThings, createThing, getThing, updateThing, deleteThing, getSpecial, exportThings',
      ),
    );
  });

  it('refuses operations routed at another path or method than the document says, naming them all', () => {
    expect(() =>
      build({
        mount: (app, route) => {
          app.get('/api/things', route('listThings'), echo('listThings'));
          app.post('/api/things', route('createThing'), echo('createThing', 201));
          app.get('/api/things/special', route('getSpecial'), echo('getSpecial'));
          app.get('/api/thing/:id', route('getThing'), echo('getThing'));
          app.post('/api/things/:id', route('updateThing'), echo('updateThing'));
          app.delete('/api/things/:id', route('deleteThing'), (c) => c.body(null, 204));
          app.get('/api/export.csv', route('exportThings'), (c) => c.text(''));
        },
      }),
    ).toThrow(
      new Error(
        'the customer app routes these operations elsewhere than the document says: getThing (GET /api/things/{id}), updateThing (PUT /api/things/{id})',
      ),
    );
    // app.all does not count as the operation's method
    const only = { ...thingsDocument(), paths: { '/api/export.csv': thingsDocument().paths['/api/export.csv']! } };
    expect(() =>
      build(
        { mount: (app, route) => void app.all('/api/export.csv', route('exportThings'), (c) => c.text('')) },
        only,
        'instance',
      ),
    ).toThrow(
      new Error(
        'the instance app routes these operations elsewhere than the document says: exportThings (GET /api/export.csv)',
      ),
    );
    const app = build(
      { mount: (app, route) => void app.get('/api/export.csv', route('exportThings'), (c) => c.text('csv')) },
      only,
      'instance',
    );
    expect(app.routes.map((r) => `${r.method} ${r.path}`)).toStrictEqual(['GET /api/export.csv']);
  });

  it('mounts the extensions first, with the interface name, and keeps their routes as they are', async () => {
    const seen: string[] = [];
    const app = build(
      {
        extensions: [
          (app, api) => {
            seen.push(api);
            app.get(
              '/ext/mw',
              async (c, next) => {
                await next();
                c.res.headers.set('x-mw', 'ran');
              },
              (c) => c.text(`handled for ${api}`),
            );
          },
        ],
      },
      thingsDocument(),
      'instance',
    );
    expect(seen).toStrictEqual(['instance']);
    expect(app.routes.map((r) => `${r.method} ${r.path}`).slice(0, 3)).toStrictEqual([
      'GET /ext/mw',
      'GET /ext/mw',
      'GET /api/things',
    ]);
    const res = await send(app, 'GET', '/ext/mw', { auth: false });
    expect(res).toMatchObject({ status: 200, body: 'handled for instance' });
    expect(res.headers.get('x-mw')).toBe('ran');
  });

  it('fuses a pipeline only with the next route of its method and path that is not a pipeline', async () => {
    const doc: OpenApiDocument = {
      openapi: '3.1.0',
      info: { title: 'ab', version: '1' },
      paths: {
        '/a': { get: { operationId: 'getA', responses: { '200': OK } } },
        '/b': { get: { operationId: 'getB', responses: { '200': OK } } },
      },
    };
    const app = build(
      {
        mount: (app, route) => {
          app.get('/a', route('getA')); // no handler of its own: the ALL route below answers
          app.all('/a', (c) => c.text(`all ${c.req.method} ${c.get('principal') ?? 'nobody'}`));
          app.get('/b', route('getB')); // no handler at all: not found after the pipeline
          app.get('/c', (c) => c.text('c'));
        },
      },
      doc,
    );
    expect(app.routes.map((r) => `${r.method} ${r.path}`)).toStrictEqual(['GET /a', 'ALL /a', 'GET /b', 'GET /c']);
    expect(await send(app, 'GET', '/a')).toMatchObject({ status: 200, body: 'all GET alice' });
    expect(await send(app, 'GET', '/a', { auth: false })).toMatchObject({ status: 401 });
    expect(await send(app, 'DELETE', '/a', { auth: false })).toMatchObject({ status: 200, body: 'all DELETE nobody' });
    expect(await send(app, 'GET', '/b', { auth: false })).toMatchObject({ status: 401 });
    expect(await send(app, 'GET', '/b')).toMatchObject({
      status: 404,
      body: { error: 'Not found: GET /b is not a resource of the customer interface' },
    });
    // HEAD is answered where GET is: not found, not a 405
    expect((await send(app, 'HEAD', '/b')).status).toBe(404);
    expect(await send(app, 'GET', '/c', { auth: false })).toMatchObject({ status: 200, body: 'c' });
  });
});

describe('createApiApp: the request pipeline of every routed operation', () => {
  it('authenticates, validates and hands the validated input to the handler', async () => {
    const app = build();
    expect(await send(app, 'GET', '/api/things?limit=3')).toStrictEqual({
      status: 200,
      body: { op: 'listThings', principal: 'alice', input: { params: {}, query: { limit: 3 } } },
      headers: expect.any(Headers),
    });
    expect((await send(app, 'GET', '/api/things/7')).body).toStrictEqual({
      op: 'getThing',
      principal: 'alice',
      input: { params: { id: 7 }, query: {} },
    });
    expect((await send(app, 'GET', '/api/things/special')).body).toMatchObject({ op: 'getSpecial' });
    expect(await send(app, 'GET', '/api/export.csv')).toMatchObject({ status: 200, body: 'id,name\n' });
    const created = await send(app, 'POST', '/api/things', { body: { name: 'x' } });
    expect(created).toMatchObject({ status: 201, body: { op: 'createThing', input: { body: { name: 'x' } } } });
  });

  it('answers 401 without a key and 400 for an invalid request, before the handler', async () => {
    const app = build();
    const noKey = await send(app, 'GET', '/api/things', { auth: false });
    expect(noKey.status).toBe(401);
    expect(noKey.body).toStrictEqual({ error: 'Unauthorized: HTTP Basic credentials with an API key are required' });
    const wrongKey = await send(app, 'GET', '/api/things', {
      auth: false,
      headers: { authorization: 'Basic ' + Buffer.from(':wrong').toString('base64') },
    });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.body).toStrictEqual({ error: 'Unauthorized: the API key is wrong or missing' });
    expect(wrongKey.headers.get('www-authenticate')).toBe('Basic realm="tusk", charset="UTF-8"');
    expect(await send(app, 'GET', '/api/things?limit=0')).toMatchObject({
      status: 400,
      body: { error: 'limit: must be >= 1', field: 'limit', rule: 'minimum' },
    });
    expect(await send(app, 'GET', '/api/things/abc')).toMatchObject({
      status: 400,
      body: { field: 'id', rule: 'type' },
    });
    // A field the schema does not name is ignored and named in Tusk-Ignored-Fields; with Tusk-Strict-Fields it is a 400.
    const ignored = await send(app, 'POST', '/api/things', { body: { name: 'x', extra: 1 } });
    expect(ignored).toMatchObject({ status: 201, body: { input: { body: { name: 'x' } } } });
    expect(ignored.headers.get('tusk-ignored-fields')).toBe('extra');
    const strict = await send(app, 'POST', '/api/things', {
      body: { name: 'x', extra: 1 },
      headers: { 'tusk-strict-fields': 'true' },
    });
    expect(strict).toMatchObject({ status: 400, body: { field: 'extra', rule: 'additionalProperties' } });
    expect(
      await send(app, 'POST', '/api/things', { body: { name: 'x' }, headers: { 'tusk-strict-fields': 'maybe' } }),
    ).toMatchObject({
      status: 400,
      body: { field: 'Tusk-Strict-Fields', rule: 'enum' },
    });
  });

  it('injects faults first when the simulation gives them, and not otherwise', async () => {
    const doc = thingsDocument();
    const faults = new Faults(readOperations('customer', doc), 1, [
      { operation: 'listThings', error: { status: 500 } },
    ]);
    const app = build({ simulation: { faults: () => faults } }, doc);
    const hit = await send(app, 'GET', '/api/things', { auth: false });
    expect(hit.status).toBe(500);
    expect(hit.body).toStrictEqual({
      error: 'Injected fault: HTTP 500 for listThings (fault rule 1, see /__tusk/faults)',
    });
    expect(hit.headers.get('tusk-fault')).toBe('error');
    expect((await send(app, 'GET', '/api/things/1')).status).toBe(200);
    for (const simulation of [undefined, { prefer: true }]) {
      const plain = build(simulation ? { simulation } : {}, doc);
      expect((await send(plain, 'GET', '/api/things', { auth: false })).status).toBe(401);
      expect((await send(plain, 'GET', '/api/things')).status).toBe(200);
    }
  });

  it('answers the Prefer header last when the simulation asks for it, and ignores it otherwise', async () => {
    const app = build({ simulation: { prefer: true } });
    const preferred = await send(app, 'GET', '/api/things', { headers: { prefer: 'code=500' } });
    expect(preferred.status).toBe(500);
    expect(preferred.headers.get('preference-applied')).toBe('code=500');
    expect((await send(app, 'GET', '/api/things', { auth: false, headers: { prefer: 'code=500' } })).status).toBe(401);
    for (const simulation of [undefined, { prefer: false }, { faults: () => undefined }]) {
      const plain = build(simulation ? { simulation } : {});
      const res = await send(plain, 'GET', '/api/things', { headers: { prefer: 'code=500' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('preference-applied')).toBeNull();
    }
  });
});

describe('createApiApp: not found and the method guard', () => {
  it('answers an unknown path with the documented 404 body', async () => {
    const app = build();
    expect(await send(app, 'GET', '/api/nothing', { auth: false })).toMatchObject({
      status: 404,
      body: { error: 'Not found: GET /api/nothing is not a resource of the customer interface' },
    });
    const instance = build({}, thingsDocument(), 'instance');
    expect((await send(instance, 'POST', '/x/api/things?limit=1', { auth: false })).body).toStrictEqual({
      error: 'Not found: POST /x/api/things is not a resource of the instance interface',
    });
  });

  it('answers a method the path does not support with 405 and Allow (methods sorted)', async () => {
    const app = build();
    const res = await send(app, 'PATCH', '/api/things/7', { auth: false });
    expect(res.status).toBe(405);
    expect(res.body).toStrictEqual({
      error: 'Method PATCH is not allowed for /api/things/7; allowed: DELETE, GET, PUT',
    });
    expect(res.headers.get('allow')).toBe('DELETE, GET, PUT');
    const list = await send(app, 'DELETE', '/api/things', { auth: false });
    expect(list).toMatchObject({
      status: 405,
      body: { error: 'Method DELETE is not allowed for /api/things; allowed: GET, POST' },
    });
    expect(list.headers.get('allow')).toBe('GET, POST');
    // a path with a dot in it
    const csv = await send(app, 'POST', '/api/export.csv', { auth: false });
    expect(csv).toMatchObject({
      status: 405,
      body: { error: 'Method POST is not allowed for /api/export.csv; allowed: GET' },
    });
    expect((await send(app, 'POST', '/api/exportxcsv', { auth: false })).status).toBe(404);
    // templates match whole paths only
    expect((await send(app, 'DELETE', '/x/api/things', { auth: false })).status).toBe(404);
    expect((await send(app, 'DELETE', '/api/things/7/more', { auth: false })).status).toBe(404);
    expect((await send(app, 'DELETE', '/api/thingsx', { auth: false })).status).toBe(404);
  });

  it('a literal path is never taken by a sibling template for a method only the template has', async () => {
    const app = build();
    for (const method of ['PUT', 'DELETE']) {
      const res = await send(app, method, '/api/things/special', { auth: false });
      expect(res.status, method).toBe(405);
      expect(res.body, method).toStrictEqual({
        error: `Method ${method} is not allowed for /api/things/special; allowed: GET`,
      });
      expect(res.headers.get('allow'), method).toBe('GET');
    }
    expect((await send(app, 'PUT', '/api/things/8')).body).toMatchObject({
      op: 'updateThing',
      input: { params: { id: 8 } },
    });
    expect((await send(app, 'DELETE', '/api/things/8')).status).toBe(204);
    expect((await send(app, 'HEAD', '/api/things/special')).status).toBe(200);
  });
});

describe('createApiApp: errors', () => {
  const throwing = (make: () => unknown) =>
    build({
      extensions: [
        (app) => {
          app.get('/ext/throw', () => {
            throw make();
          });
        },
      ],
    });

  it('answers an HTTPException with its status and message, or HTTP <status> without a message', async () => {
    expect(
      await send(
        throwing(() => new HTTPException(418, { message: 'I am a teapot' })),
        'GET',
        '/ext/throw',
      ),
    ).toMatchObject({
      status: 418,
      body: { error: 'I am a teapot' },
    });
    const bare = await send(
      throwing(() => new HTTPException(403)),
      'GET',
      '/ext/throw',
    );
    expect(bare.status).toBe(403);
    expect(bare.body).toStrictEqual({ error: 'HTTP 403' });
  });

  it('answers an ApiError with its body and headers', async () => {
    const res = await send(
      throwing(() => new ApiError(429, 'slow down', { rule: 'rate' }, { 'Retry-After': '3' })),
      'GET',
      '/ext/throw',
    );
    expect(res.status).toBe(429);
    expect(res.body).toStrictEqual({ error: 'slow down', rule: 'rate' });
    expect(res.headers.get('retry-after')).toBe('3');
  });

  it('answers an unexpected error with 500 and the documented body, and logs it', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const boom = new Error('boom');
    const res = await send(
      throwing(() => boom),
      'GET',
      '/ext/throw',
    );
    expect(res.status).toBe(500);
    expect(res.body).toStrictEqual({ error: 'Internal server error, try again later' });
    expect(log).toHaveBeenCalledTimes(1);
    expect(log).toHaveBeenCalledWith('tusk: unexpected error', boom);
  });

  it('lets an injected connection reset leave the app', async () => {
    const app = throwing(() => new ConnectionReset());
    await expect(Promise.resolve().then(() => app.fetch(new Request('http://tusk/ext/throw')))).rejects.toBeInstanceOf(
      ConnectionReset,
    );
    expect(() => errorResponse({} as never, new ConnectionReset())).toThrow(ConnectionReset);
  });
});

describe('createApiApp: onResponse', () => {
  it('reports every answer once, with method, path without query and status, and the time taken', async () => {
    const seen: [ResponseInfo, number][] = [];
    const app = build({ onResponse: (r, ms) => seen.push([r, ms]) });
    const now = vi.spyOn(performance, 'now');
    now.mockReturnValueOnce(1000).mockReturnValueOnce(1025);
    await send(app, 'GET', '/api/things?limit=2');
    now.mockReturnValueOnce(2000).mockReturnValueOnce(2007);
    await send(app, 'POST', '/api/things', { body: { name: 'n' } });
    now.mockReturnValueOnce(3000).mockReturnValueOnce(3001);
    await send(app, 'GET', '/nowhere?x=1', { auth: false });
    expect(seen).toStrictEqual([
      [{ method: 'GET', path: '/api/things', status: 200, authorization: AUTH }, 25],
      [{ method: 'POST', path: '/api/things', status: 201, authorization: AUTH }, 7],
      [{ method: 'GET', path: '/nowhere', status: 404, authorization: null }, 1],
    ]);
  });

  it('reports the path / for a URL without one', async () => {
    const seen: ResponseInfo[] = [];
    const app = build({ onResponse: (r) => seen.push(r) });
    const res = await app.fetch({ url: 'http://tusk', method: 'GET', headers: new Headers() } as unknown as Request);
    expect(res.status).toBe(404);
    expect(seen).toStrictEqual([{ method: 'GET', path: '/', status: 404, authorization: null }]);
  });
});

describe('Tusk-Ignored-Fields', () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i + 1}`);

  it('names the ignored fields, comma-separated, up to 20; past 20 the rest are counted', () => {
    expect(ignoredFieldsHeader(['a', 'b-c', 'x:y/z'])).toBe('a, b-c, x:y/z');
    expect(ignoredFieldsHeader(names(20))).toBe(names(20).join(', '));
    expect(ignoredFieldsHeader(names(21))).toBe(`${names(20).join(', ')}, ... and 1 more`);
    expect(ignoredFieldsHeader(names(25))).toBe(`${names(20).join(', ')}, ... and 5 more`);
  });

  it('percent-encodes a name that is not printable ASCII without a comma, whole', () => {
    expect(ignoredFieldsHeader(['a,b', 'two words', 'größe', '!~'])).toBe('a%2Cb, two%20words, gr%C3%B6%C3%9Fe, !~');
    expect(ignoredFieldsHeader(['é', 'x y', 'ok'])).toBe('%C3%A9, x%20y, ok');
    expect(ignoredFieldsHeader(['aé', 'éa'])).toBe('a%C3%A9, %C3%A9a');
  });
});
