// The finishing step (src/http/finish.ts) on a small hand-written document, through createApiApp:
// the account's time in Date and Tusk-Now on every answer to an account whose clock is a second or
// more off real time (successes and errors alike, never before authentication, never within a
// second of real time), Tusk-Ignored-Fields beside it, and a handler that answers nothing.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApiApp, type ApiAppOptions } from '../../src/http/app.js';
import { ApiError } from '../../src/core/errors.js';
import { VirtualClock, type Clock } from '../../src/domain/clock.js';
import { NOW_HEADER } from '../../src/http/finish.js';
import { NO_CONTENT, operationsOf } from '../../src/http/operation.js';
import type { PipelineEnv } from '../../src/http/pipeline.js';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { SchemaSet } from '../../src/openapi/ajv.js';
import type { OpenApiDocument } from '../../src/openapi/documents.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const JSON_OK = { description: 'OK', content: { 'application/json': { schema: { type: 'object' } } } };

const DOC: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'notes', version: '1' },
  paths: {
    '/api/notes': {
      get: { operationId: 'listNotes', responses: { '200': JSON_OK } },
      post: {
        operationId: 'createNote',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { type: 'object', properties: { text: { type: 'string' } }, additionalProperties: false },
            },
          },
        },
        responses: { '200': JSON_OK },
      },
      delete: { operationId: 'clearNotes', responses: { '204': { description: 'gone' } } },
    },
    '/api/notes/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { operationId: 'getNote', responses: { '200': JSON_OK, '404': JSON_OK } },
      put: { operationId: 'forgetful', responses: { '200': JSON_OK } },
    },
  },
};

/** Every operation answers a JSON object with 200 (as the generated `operations` would say). */
type Ops = Record<string, { responses: { 200: { content: { 'application/json': object } } } }>;

const KEY = 'Basic ' + Buffer.from(':k').toString('base64');

/** The app of DOC for the principal 'alice', whose account runs on `clock` (none: no principalClock). */
function build(clock: Clock | undefined) {
  const options: ApiAppOptions<string> = {
    api: 'customer',
    doc: DOC,
    schemas: new SchemaSet({ customer: DOC }, { precompiled: false }),
    authenticate: {
      keyField: 'password',
      resolve: (key) => (key === 'k' ? { principal: 'alice', credentialId: 'alice' } : undefined),
    },
    limiter: () => new RateLimiter({ limit: 1000, windowMs: 60_000, clock: { now: () => 0 } }),
    mount: (app, route) => {
      const op = operationsOf<Ops, PipelineEnv<string>>(route);
      app.get('/api/notes', ...op('listNotes', () => ({ notes: [] })));
      app.post('/api/notes', ...op('createNote', () => ({ created: true })));
      app.delete('/api/notes', ...op('clearNotes', () => NO_CONTENT));
      app.get(
        '/api/notes/:id',
        ...op('getNote', () => {
          throw new ApiError(404, 'Not found: no such note');
        }),
      );
      // A handler that forgot its return.
      app.put('/api/notes/:id', ...op('forgetful', () => undefined as never));
    },
    ...(clock ? { principalClock: (principal: string) => (principal === 'alice' ? clock : new VirtualClock()) } : {}),
  };
  return createApiApp<string>(options);
}

const send = (app: ReturnType<typeof build>, method: string, path: string, init: RequestInit = {}) =>
  app.fetch(new Request(`http://tusk${path}`, { method, ...init, headers: { authorization: KEY, ...init.headers } }));

/** A clock pinned `ahead` ms from now. */
function pinned(ahead: number): { clock: VirtualClock; at: Date } {
  const clock = new VirtualClock();
  const at = new Date(Date.now() + ahead);
  clock.pin(at.getTime());
  return { clock, at };
}

describe("the finishing step: the account's time", () => {
  it('is told in Date and in Tusk-Now (ms) on answers to an account whose clock runs an hour ahead', async () => {
    const { clock, at } = pinned(3_600_000 + 123);
    const app = build(clock);
    expect(NOW_HEADER).toBe('Tusk-Now');
    for (const [method, path, status] of [
      ['GET', '/api/notes', 200],
      ['DELETE', '/api/notes', 204],
      ['GET', '/api/notes/7', 404],
      ['GET', '/api/notes/x', 400],
    ] as const) {
      const res = await send(app, method, path);
      expect(res.status, path).toBe(status);
      expect(res.headers.get('tusk-now'), `${method} ${path}`).toBe(at.toISOString());
      expect(res.headers.get('date'), `${method} ${path}`).toBe(at.toUTCString());
    }
    // The clock moves on: so does the time told (the last one told is not kept beyond its ms).
    const later = new Date(at.getTime() + 61_001);
    clock.pin(later.getTime());
    const res = await send(app, 'GET', '/api/notes');
    expect([res.headers.get('tusk-now'), res.headers.get('date')]).toEqual([later.toISOString(), later.toUTCString()]);
  });

  it('is told behind the clock too, and beside Tusk-Ignored-Fields', async () => {
    const { clock, at } = pinned(-2 * 86_400_000);
    const res = await send(build(clock), 'POST', '/api/notes', {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'hi', colour: 'red' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('tusk-ignored-fields')).toBe('colour');
    expect(res.headers.get('tusk-now')).toBe(at.toISOString());
    expect(res.headers.get('date')).toBe(at.toUTCString());
  });

  it('is not told within a second of real time, before authentication, or without an account clock', async () => {
    const near = build(pinned(400).clock);
    const quiet = [
      await send(near, 'GET', '/api/notes'),
      await send(near, 'GET', '/api/notes/7'),
      await send(build(pinned(3_600_000).clock), 'GET', '/api/notes', { headers: { authorization: '' } }),
      await send(build(undefined), 'GET', '/api/notes'),
    ];
    expect(quiet.map((r) => r.status)).toEqual([200, 404, 401, 200]);
    for (const res of quiet) {
      expect(res.headers.get('tusk-now')).toBeNull();
      // In-process, nothing else writes Date: none is set.
      expect(res.headers.get('date')).toBeNull();
    }
  });
});

describe('the finishing step: a handler that answers nothing', () => {
  it('is a 500 with the documented body, logged naming the operation', async () => {
    const log = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const res = await send(build(undefined), 'PUT', '/api/notes/1');
    expect(res.status).toBe(500);
    expect(await res.json()).toStrictEqual({ error: 'Internal server error, try again later' });
    expect(log).toHaveBeenCalledWith('tusk: unexpected error', new Error('the handler of forgetful returned nothing'));
  });
});
