// The request pipeline (src/http/pipeline.ts) step by step, on a small Hono app built in each test:
// authentication and its two 401 messages, reading the body (64 KiB limit with and without
// Content-Length, bodies the client aborts), parsing it by Content-Type (JSON, urlencoded,
// multipart, none), the query string, the system an integration body is validated against, and
// the 429 of the rate limit.
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  authenticate,
  composeSteps,
  operationSteps,
  parseBody,
  payloadTooLarge,
  rateLimit,
  readLimitedBody,
  strictFieldsOf,
  validateRequest,
  type AuthenticateOptions,
  type PipelineEnv,
} from '../../src/http/pipeline.js';
import { errorResponse } from '../../src/http/app.js';
import { basicCredentials, keyOfHeader } from '../../src/core/basic-auth.js';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { MAX_BODY_BYTES } from '../../src/core/limits.js';
import { VirtualClock } from '../../src/domain/clock.js';
import type { OperationValidator, RawBody } from '../../src/openapi/requests.js';

const b64 = (s: string) => Buffer.from(s).toString('base64');
const basic = (key: string) => `Basic ${b64(`:${key}`)}`;

const TOO_LARGE = {
  error: 'Payload too large: a request body may have at most 65536 bytes (64 KiB)',
  field: 'body',
  rule: 'maxBytes',
};
const ABORTED = {
  error: 'body: the request body could not be read (the client aborted it)',
  field: 'body',
  rule: 'aborted',
};
const REQUIRED = 'Unauthorized: HTTP Basic credentials with an API key are required';
const WRONG = 'Unauthorized: the API key is wrong or missing';
const WWW_AUTHENTICATE = 'Basic realm="tusk", charset="UTF-8"';

interface Setup {
  keyField?: AuthenticateOptions<string>['keyField'];
  /** Keys that resolve; undefined: every non-empty key resolves (to itself). */
  keys?: string[];
  limit?: number;
  windowMs?: number;
  clock?: VirtualClock;
  systems?: string[];
  /** What the fake validator's parameters() returns as params (default: the path parameters). */
  params?: Record<string, unknown>;
  acceptsBody?: boolean;
}

/**
 * One operation (POST/GET /things/:name) through the whole pipeline, with a fake validator that
 * hands back what it was given; the handler answers what the pipeline left in the context.
 */
function build(setup: Setup = {}) {
  const clock = setup.clock ?? new VirtualClock();
  const limiter = new RateLimiter({ limit: setup.limit ?? 1000, windowMs: setup.windowMs ?? 1000, clock });
  const resolved: string[] = [];
  const validator = {
    hasPathParameters: true,
    hasQueryParameters: true,
    systemBodies: new Map((setup.systems ?? []).map((s) => [s, () => true])),
    parameters: (path: Record<string, string>, query: URLSearchParams) => ({
      params: setup.params ?? path,
      query: Object.fromEntries(query),
    }),
    acceptsBody: setup.acceptsBody ?? true,
    read: (raw: RawBody, system?: string, options: { strict?: boolean } = {}) => ({
      value: { raw, system: system ?? null, ...(options.strict ? { strict: true } : {}) },
      ignored: [],
    }),
  } as unknown as OperationValidator;
  const steps = operationSteps<string>('op', {
    authenticate: authenticate<string>({
      keyField: setup.keyField ?? 'password',
      resolve: (key) => {
        resolved.push(key);
        if (setup.keys && !setup.keys.includes(key)) return undefined;
        return { principal: `principal of ${key}`, credentialId: `cred:${key}` };
      },
    }),
    parse: parseBody<string>({ acceptsBody: setup.acceptsBody ?? true }),
    validate: validateRequest<string>({ validator }),
    rateLimit: rateLimit<string>({ limiter: () => limiter }),
  });
  const app = new Hono<PipelineEnv<string>>();
  const handler = composeSteps<PipelineEnv<string>>(steps);
  const answer = (c: Context<PipelineEnv<string>>) =>
    c.json({
      principal: c.get('principal'),
      credentialId: c.get('credentialId'),
      operationId: c.get('operationId'),
      rawBody: c.get('rawBody'),
      input: c.get('input'),
    });
  app.post('/things/:name', handler, answer);
  app.get('/things/:name', handler, answer);
  app.onError((err, c) => errorResponse(c, err));
  const send = async (
    init: {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: RequestInit['body'];
      auth?: string | null;
    } = {},
  ) => {
    const headers: Record<string, string> = {
      ...(init.auth === null ? {} : { authorization: init.auth ?? basic('k1') }),
      ...init.headers,
    };
    const req = new Request(`http://tusk${init.path ?? '/things/one'}`, {
      method: init.method ?? 'POST',
      headers,
      ...(init.body !== undefined && init.body !== null ? { body: init.body, duplex: 'half' } : {}),
    } as RequestInit);
    const res = await app.fetch(req);
    const text = await res.text();
    return {
      status: res.status,
      headers: Object.fromEntries(res.headers),
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read as the tests need them
      json: text ? (JSON.parse(text) as any) : undefined,
    };
  };
  return { send, resolved, clock, limiter };
}

/** A body stream that sends `chunks` then fails, as a connection the client drops does. */
function failingStream(chunks: Uint8Array[] = []): ReadableStream<Uint8Array> {
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else controller.error(new Error('socket hang up'));
    },
  });
}

describe('basicCredentials', () => {
  it('reads user and password of a Basic header, tolerating case, several spaces before and whitespace after the token', () => {
    expect(basicCredentials(`Basic ${b64('me:secret')}`)).toEqual({ user: 'me', password: 'secret' });
    expect(basicCredentials(`basic ${b64(':k:with:colons')}`)).toEqual({ user: '', password: 'k:with:colons' });
    expect(basicCredentials(`Basic   ${b64(':key')}`)).toEqual({ user: '', password: 'key' });
    expect(basicCredentials(`Basic ${b64(':key')}  `)).toEqual({ user: '', password: 'key' });
    expect(basicCredentials(`Basic ${b64(':key')}\t`)).toEqual({ user: '', password: 'key' });
  });

  it('is undefined for a missing, empty or malformed header, or one without a colon', () => {
    expect(basicCredentials(undefined)).toBeUndefined();
    expect(basicCredentials('')).toBeUndefined();
    expect(basicCredentials('Basic')).toBeUndefined();
    expect(basicCredentials('Basic ')).toBeUndefined();
    expect(basicCredentials(`Basic${b64(':key')}`)).toBeUndefined();
    expect(basicCredentials(`Bearer ${b64(':key')}`)).toBeUndefined();
    // The scheme must open the header, and nothing but whitespace may follow the token.
    expect(basicCredentials(`XBasic ${b64(':key')}`)).toBeUndefined();
    expect(basicCredentials(`Token Basic ${b64(':key')}`)).toBeUndefined();
    expect(basicCredentials(`Basic ${b64(':key')} extra`)).toBeUndefined();
    expect(basicCredentials(`Basic ${b64(':key')}!`)).toBeUndefined();
    expect(basicCredentials(`Basic ${b64('no-colon')}`)).toBeUndefined();
  });
});

describe('keyOfHeader (src/core/basic-auth.ts: the one reader of the key, for the interfaces and the controls)', () => {
  it('reads the password, else the user unless the reader takes the password only; empty for none', () => {
    expect(keyOfHeader(`Basic ${b64(':key')}`)).toBe('key');
    expect(keyOfHeader(`Basic ${b64('user:pw')}`)).toBe('pw');
    expect(keyOfHeader(`Basic ${b64('key:')}`)).toBe('key');
    expect(keyOfHeader(`Basic ${b64('key:')}`, 'password')).toBe('');
    expect(keyOfHeader(`Basic ${b64(':key')}`, 'password')).toBe('key');
    for (const header of [undefined, null, '', 'Bearer x', `Basic ${b64('no-colon')}`])
      expect(keyOfHeader(header)).toBe('');
  });
});

describe('authentication', () => {
  it('a resolved key: the principal and the credential id reach the handler, with the operation id', async () => {
    const { send, resolved } = build({ keys: ['k1'] });
    const res = await send({ method: 'GET' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ principal: 'principal of k1', credentialId: 'cred:k1', operationId: 'op' });
    expect(resolved).toEqual(['k1']);
  });

  it('no Authorization header, or an empty one: 401 asking for Basic credentials, no key is resolved', async () => {
    // Every non-empty key would resolve: only the absence of a key refuses these.
    const { send, resolved } = build();
    for (const auth of [null, '']) {
      const res = await send({ method: 'GET', auth });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: REQUIRED });
      expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    }
    expect(resolved).toEqual([]);
  });

  it('a header that is not Basic credentials: 401 asking for Basic credentials, no key is resolved', async () => {
    const { send, resolved } = build();
    for (const auth of ['Bearer k1', 'Basic !!!', `Basic ${b64('k1')}`, `Token ${basic('k1')}`]) {
      const res = await send({ method: 'GET', auth });
      expect(res.status, auth).toBe(401);
      expect(res.json, auth).toEqual({ error: REQUIRED });
      expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    }
    expect(resolved).toEqual([]);
  });

  it('Basic credentials with a wrong key: 401 saying the key is wrong', async () => {
    const { send, resolved } = build({ keys: ['k1'] });
    const res = await send({ method: 'GET', auth: basic('k2') });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: WRONG });
    expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    expect(resolved).toEqual(['k2']);
  });

  it('keyField password: an empty password is no key, even with a user name (nothing is resolved); the 401 says where the key goes', async () => {
    const { send, resolved } = build({ keyField: 'password' });
    const res = await send({ method: 'GET', auth: `Basic ${b64('k1:')}` });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({
      error:
        'Unauthorized: the API key goes in the password field of HTTP Basic, with an empty user name (curl -u :KEY); this interface does not read the user field',
    });
    expect(res.headers['www-authenticate']).toBe(WWW_AUTHENTICATE);
    expect(resolved).toEqual([]);
    // The password is read even when a user is given.
    const ok = await send({ method: 'GET', auth: `Basic ${b64('user:k1')}` });
    expect(ok.status).toBe(200);
    expect(resolved).toEqual(['k1']);
  });

  it('keyField password-or-user: the password, else the user; neither is 401', async () => {
    const { send, resolved } = build({ keyField: 'password-or-user' });
    expect((await send({ method: 'GET', auth: `Basic ${b64('k1:')}` })).json).toMatchObject({
      credentialId: 'cred:k1',
    });
    expect((await send({ method: 'GET', auth: `Basic ${b64('user:k2')}` })).json).toMatchObject({
      credentialId: 'cred:k2',
    });
    const none = await send({ method: 'GET', auth: `Basic ${b64(':')}` });
    expect(none.status).toBe(401);
    expect(none.json).toEqual({ error: WRONG });
    expect(resolved).toEqual(['k1', 'k2']);
  });

  it('a wrong key with a user name as well is the wrong-key 401 on both interfaces; the hint is for a key in the user field alone', async () => {
    const customer = build({ keyField: 'password', keys: ['k1'] });
    const wrongPassword = await customer.send({ method: 'GET', auth: `Basic ${b64('user:k2')}` });
    expect(wrongPassword.json).toEqual({ error: WRONG });
    // The instance interface reads the user field: a wrong key there is just wrong.
    const instance = build({ keyField: 'password-or-user', keys: ['k1'] });
    const wrongUser = await instance.send({ method: 'GET', auth: `Basic ${b64('k2:')}` });
    expect(wrongUser.status).toBe(401);
    expect(wrongUser.json).toEqual({ error: WRONG });
  });

  it('the decoded key of a header is remembered, but resolved again on every request (a revoked key is refused at once)', async () => {
    const keys = ['k1'];
    const { send, resolved } = build({ keys });
    expect((await send({ method: 'GET' })).status).toBe(200);
    keys.pop();
    const res = await send({ method: 'GET' });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: WRONG });
    expect(resolved).toEqual(['k1', 'k1']);
  });

  it('is checked before the body is read: no key and a body over 64 KiB is 401', async () => {
    const { send } = build();
    const res = await send({ auth: null, body: new Uint8Array(MAX_BODY_BYTES + 1) });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: REQUIRED });
  });
});

describe('reading the body', () => {
  it('over 64 KiB by its Content-Length: 413 before anything is read', async () => {
    const { send } = build();
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 1024 * 1024) return controller.close();
        sent += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x61));
      },
    });
    const res = await send({
      headers: { 'content-length': String(MAX_BODY_BYTES + 1), 'content-type': 'application/json' },
      body: stream,
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(TOO_LARGE);
    expect(res.headers['content-type']).toBe('application/json');
    // Nothing read beyond what the stream queued on its own.
    expect(sent).toBeLessThanOrEqual(16 * 1024);
  });

  it('with a Content-Length within the limit but more bytes than the limit: 413', async () => {
    const { send } = build();
    const res = await send({ headers: { 'content-length': '10' }, body: new Uint8Array(MAX_BODY_BYTES + 1) });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(TOO_LARGE);
  });

  it('with a Content-Length of exactly 64 KiB and as many bytes: read whole', async () => {
    const { send } = build();
    const body = new TextEncoder().encode('a='.padEnd(MAX_BODY_BYTES, 'x'));
    const res = await send({ headers: { 'content-length': String(MAX_BODY_BYTES) }, body });
    expect(res.status).toBe(200);
    expect(res.json.rawBody.fields[0][1]).toHaveLength(MAX_BODY_BYTES - 2);
  });

  it('the 413 names the limit in bytes and in KiB, or in MiB from 1 MiB on', () => {
    expect(payloadTooLarge().message).toBe(TOO_LARGE.error);
    expect(payloadTooLarge(2048).message).toBe('Payload too large: a request body may have at most 2048 bytes (2 KiB)');
    expect(payloadTooLarge(1024 * 1024).message).toBe(
      'Payload too large: a request body may have at most 1048576 bytes (1 MiB)',
    );
    expect(payloadTooLarge(3 * 1024 * 1024).message).toBe(
      'Payload too large: a request body may have at most 3145728 bytes (3 MiB)',
    );
  });

  it('without Content-Length: exactly 64 KiB is read, one byte more is 413', async () => {
    const { send } = build();
    const at = await send({ body: new TextEncoder().encode('a='.padEnd(MAX_BODY_BYTES, 'x')) });
    expect(at.status).toBe(200);
    expect(at.json.rawBody.kind).toBe('form');
    expect(at.json.rawBody.fields[0][1]).toHaveLength(MAX_BODY_BYTES - 2);
    const over = await send({ body: new TextEncoder().encode('a='.padEnd(MAX_BODY_BYTES + 1, 'x')) });
    expect(over.status).toBe(413);
    expect(over.json).toEqual(TOO_LARGE);
  });

  it('without Content-Length, in chunks: the sum of the chunks counts, and reading stops at the limit', async () => {
    const { send } = build();
    let sent = 0;
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= 1024 * 1024) return controller.close();
        sent += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x61));
      },
      cancel() {
        cancelled = true;
      },
    });
    const res = await send({ headers: { 'content-type': 'application/json' }, body: stream });
    expect(res.status).toBe(413);
    expect(res.json).toEqual(TOO_LARGE);
    expect(sent).toBeLessThan(1024 * 1024);
    await new Promise((r) => setTimeout(r, 0));
    expect(cancelled).toBe(true);
  });

  it('chunks that add up to exactly 64 KiB are read whole', async () => {
    const { send } = build();
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= MAX_BODY_BYTES) return controller.close();
        sent += 16 * 1024;
        controller.enqueue(
          new TextEncoder().encode(sent === 16 * 1024 ? 'a='.padEnd(16 * 1024, 'y') : 'y'.repeat(16 * 1024)),
        );
      },
    });
    const res = await send({ body: stream });
    expect(res.status).toBe(200);
    expect(res.json.rawBody.fields).toEqual([['a', 'y'.repeat(MAX_BODY_BYTES - 2)]]);
  });

  it('a body the client aborts, with a Content-Length: 400 naming the body', async () => {
    const { send } = build();
    const res = await send({
      headers: { 'content-length': '100', 'content-type': 'application/json' },
      body: failingStream([new TextEncoder().encode('{"a":')]),
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(ABORTED);
  });

  it('a body the client aborts, without Content-Length: 400 naming the body', async () => {
    const { send } = build();
    const res = await send({
      headers: { 'content-type': 'application/json' },
      body: failingStream([new TextEncoder().encode('{"a":')]),
    });
    expect(res.status).toBe(400);
    expect(res.json).toEqual(ABORTED);
    const first = await send({ body: failingStream() });
    expect(first.status).toBe(400);
    expect(first.json).toEqual(ABORTED);
  });

  it('readLimitedBody: no body is no bytes; a declared length is read whole; a failing read is the aborted 400', async () => {
    expect(await readLimitedBody(new Request('http://tusk/', { method: 'POST' }))).toEqual(new Uint8Array(0));
    const whole = await readLimitedBody(
      new Request('http://tusk/', { method: 'POST', headers: { 'content-length': '3' }, body: 'abc' }),
    );
    expect(Buffer.from(whole).toString()).toBe('abc');
    const streamed = await readLimitedBody(new Request('http://tusk/', { method: 'POST', body: 'abc' }));
    expect(Buffer.from(streamed).toString()).toBe('abc');
    const aborted = {
      headers: new Headers({ 'content-length': '3' }),
      arrayBuffer: () => Promise.reject(new Error('aborted')),
    } as unknown as Request;
    const err = await readLimitedBody(aborted).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, message: ABORTED.error, detail: { field: 'body', rule: 'aborted' } });
    const tooLarge = await readLimitedBody(
      new Request('http://tusk/', { method: 'POST', headers: { 'content-length': '70000' }, body: 'abc' }),
    ).catch((e: unknown) => e);
    expect(tooLarge).toMatchObject({
      status: 413,
      message: TOO_LARGE.error,
      detail: { field: 'body', rule: 'maxBytes' },
    });
  });

  it('an operation that takes no body ignores what is sent, even over 64 KiB', async () => {
    const { send } = build({ acceptsBody: false });
    const res = await send({
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(MAX_BODY_BYTES + 1).fill(0x7b),
    });
    expect(res.status).toBe(200);
    expect(res.json.rawBody).toEqual({ kind: 'none' });
  });
});

describe('parsing the body', () => {
  it('JSON with Content-Type application/json (any case, with parameters)', async () => {
    const { send } = build();
    for (const type of ['application/json', 'Application/JSON; charset=utf-8', ' application/json ;charset=UTF-8']) {
      const res = await send({ headers: { 'content-type': type }, body: '{"a":[1,"x"]}' });
      expect(res.status, type).toBe(200);
      expect(res.json.rawBody, type).toEqual({ kind: 'json', value: { a: [1, 'x'] } });
      expect(res.json.input.body.raw, type).toEqual({ kind: 'json', value: { a: [1, 'x'] } });
    }
  });

  it('JSON: an empty or blank body is no body; a JSON null is a value', async () => {
    const { send } = build();
    for (const body of ['', '  \n\t ']) {
      const res = await send({ headers: { 'content-type': 'application/json' }, body });
      expect(res.status).toBe(200);
      expect(res.json.rawBody).toEqual({ kind: 'none' });
    }
    expect((await send({ headers: { 'content-type': 'application/json' }, body: 'null' })).json.rawBody).toEqual({
      kind: 'json',
      value: null,
    });
  });

  it('malformed JSON: 400 naming the body, rule json, with the parser message', async () => {
    const { send } = build();
    for (const text of ['{"a":', '{a:1}', 'nope']) {
      let message = '';
      try {
        JSON.parse(text);
      } catch (err) {
        message = (err as Error).message;
      }
      const res = await send({ headers: { 'content-type': 'application/json' }, body: text });
      expect(res.status, text).toBe(400);
      expect(res.json, text).toEqual({ error: `body: malformed JSON (${message})`, field: 'body', rule: 'json' });
      expect(res.headers['content-type']).toBe('application/json');
    }
  });

  it('a UTF-8 byte order mark before JSON is dropped', async () => {
    const { send } = build();
    const res = await send({
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode('{"é":"ü"}')]),
    });
    expect(res.json.rawBody).toEqual({ kind: 'json', value: { é: 'ü' } });
  });

  it('JSON sent with another Content-Type, or none, is read as form data', async () => {
    const { send } = build();
    const text = await send({ headers: { 'content-type': 'text/plain' }, body: '{"a":1}' });
    expect(text.status).toBe(200);
    expect(text.json.rawBody).toEqual({ kind: 'form', fields: [['{"a":1}', '']] });
    // A Uint8Array body gets no Content-Type from the Request.
    const none = await send({ body: new TextEncoder().encode('{"a":1}') });
    expect(none.json.rawBody).toEqual({ kind: 'form', fields: [['{"a":1}', '']] });
  });

  it('urlencoded form data: fields in order, repeated ones kept, values decoded', async () => {
    const { send } = build();
    const res = await send({
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&b=x+y&a=%C3%A9&c',
    });
    expect(res.status).toBe(200);
    expect(res.json.rawBody).toEqual({
      kind: 'form',
      fields: [
        ['a', '1'],
        ['b', 'x y'],
        ['a', 'é'],
        ['c', ''],
      ],
    });
  });

  it('an empty body as form data, or with no Content-Type, is no body', async () => {
    const { send } = build();
    expect(
      (await send({ headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: '' })).json.rawBody,
    ).toEqual({ kind: 'none' });
    expect((await send({ body: new Uint8Array(0) })).json.rawBody).toEqual({ kind: 'none' });
    expect((await send({})).json.rawBody).toEqual({ kind: 'none' });
    // Whitespace is form data (one field named by it), unlike JSON.
    expect((await send({ body: new TextEncoder().encode(' ') })).json.rawBody).toEqual({
      kind: 'form',
      fields: [[' ', '']],
    });
  });

  it('multipart form data: string fields as sent, a file part as an empty string', async () => {
    const { send } = build();
    const form = new FormData();
    form.append('name', 'ünïcode value');
    form.append('file', new Blob(['file content'], { type: 'text/plain' }), 'f.txt');
    form.append('name', 'second');
    const res = await send({ body: form });
    expect(res.status).toBe(200);
    expect(res.json.rawBody).toEqual({
      kind: 'form',
      fields: [
        ['name', 'ünïcode value'],
        ['file', ''],
        ['name', 'second'],
      ],
    });
  });

  it('multipart form data written by hand, with a Content-Type in another case', async () => {
    const { send } = build();
    const body =
      '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--XyZ\r\nContent-Disposition: form-data; name="b"\r\n\r\nx&y=z\r\n--XyZ--\r\n';
    const res = await send({ headers: { 'content-type': 'Multipart/Form-Data; boundary=XyZ' }, body });
    expect(res.status).toBe(200);
    expect(res.json.rawBody).toEqual({
      kind: 'form',
      fields: [
        ['a', '1'],
        ['b', 'x&y=z'],
      ],
    });
  });

  it('malformed multipart form data, or multipart without a boundary: 400 naming the body, rule multipart', async () => {
    const { send } = build();
    for (const type of ['multipart/form-data; boundary=xyz', 'multipart/form-data']) {
      const res = await send({ headers: { 'content-type': type }, body: 'a=1&b=2' });
      expect(res.status, type).toBe(400);
      expect(res.json, type).toEqual({
        error: 'body: malformed multipart form data',
        field: 'body',
        rule: 'multipart',
      });
      expect(res.headers['content-type']).toBe('application/json');
    }
  });
});

describe('validation input', () => {
  it('the query string, without the fragment; a repeated parameter keeps its last value', async () => {
    const { send } = build();
    const res = await send({ method: 'GET', path: '/things/one?a=1&b=x%20y&a=2#frag?c=3' });
    expect(res.status).toBe(200);
    expect(res.json.input).toEqual({
      params: { name: 'one' },
      query: { a: '2', b: 'x y' },
      body: { raw: { kind: 'none' }, system: null },
    });
    const plain = await send({ method: 'GET', path: '/things/two?z=9' });
    expect(plain.json.input.query).toEqual({ z: '9' });
    const none = await send({ method: 'GET', path: '/things/three' });
    expect(none.json.input).toEqual({
      params: { name: 'three' },
      query: {},
      body: { raw: { kind: 'none' }, system: null },
    });
    const empty = await send({ method: 'GET', path: '/things/three?#x=1' });
    expect(empty.json.input.query).toEqual({});
  });

  it('an integration body: the string parameter that names a system chooses the schema', async () => {
    const { send } = build({
      systems: ['logs_d', 'metrics_c'],
      params: { id: 7, other: 'not-a-system', system: 'metrics_c' },
    });
    const res = await send({ headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(res.json.input.body).toEqual({ raw: { kind: 'json', value: {} }, system: 'metrics_c' });
  });

  it('no parameter names a system: none is given to the validator', async () => {
    const withSystems = build({ systems: ['logs_d'], params: { other: 'not-a-system', id: 7 } });
    expect(
      (await withSystems.send({ headers: { 'content-type': 'application/json' }, body: '{}' })).json.input.body.system,
    ).toBeNull();
    const without = build({ params: { system: 'logs_d' } });
    expect(
      (await without.send({ headers: { 'content-type': 'application/json' }, body: '{}' })).json.input.body.system,
    ).toBeNull();
  });
});

describe('Tusk-Strict-Fields', () => {
  it('is true or false in any case, around spaces; absent is undefined; anything else a 400 naming the header', () => {
    expect(strictFieldsOf(' TRUE ')).toBe(true);
    expect(strictFieldsOf('False')).toBe(false);
    expect(strictFieldsOf(undefined)).toBeUndefined();
    expect(() => strictFieldsOf('yes')).toThrow(
      expect.objectContaining({
        status: 400,
        message: 'Tusk-Strict-Fields: must be true or false (header outside the contract)',
        detail: { field: 'Tusk-Strict-Fields', rule: 'enum' },
      }),
    );
  });

  it('is read for an operation that takes a body, and ignored by one that takes none', async () => {
    const withBody = await build().send({
      headers: { 'tusk-strict-fields': 'true', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(withBody.json.input.body).toMatchObject({ strict: true });
    expect((await build().send({ headers: { 'tusk-strict-fields': 'maybe' } })).status).toBe(400);
    const without = await build({ acceptsBody: false }).send({
      method: 'GET',
      headers: { 'tusk-strict-fields': 'maybe' },
    });
    expect(without.status).toBe(200);
    expect(without.json.input.body).toBeUndefined();
  });
});

describe('rate limit', () => {
  it('429 with Retry-After and the limit once a key has used its window; other keys go on; the next window admits again', async () => {
    const clock = new VirtualClock();
    clock.pin(1_700_000_000_000);
    const { send } = build({ limit: 2, windowMs: 3000, clock });
    expect((await send({ method: 'GET' })).status).toBe(200);
    clock.advance(500);
    expect((await send({ method: 'GET' })).status).toBe(200);
    const refused = await send({ method: 'GET' });
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: 'Too many requests: limit is 2 per 3 s for this key' });
    expect(refused.headers['retry-after']).toBe('3');
    expect(refused.headers['content-type']).toBe('application/json');
    // Another key has its own window.
    expect((await send({ method: 'GET', auth: basic('k2') })).status).toBe(200);
    clock.advance(1200);
    expect((await send({ method: 'GET' })).headers['retry-after']).toBe('2');
    clock.advance(1300);
    expect((await send({ method: 'GET' })).status).toBe(200);
  });

  it('runs after parsing and validation: a malformed request is not counted, an admitted one is', async () => {
    const clock = new VirtualClock();
    clock.pin(0);
    const { send } = build({ limit: 1, windowMs: 1000, clock });
    expect((await send({ headers: { 'content-type': 'application/json' }, body: '{' })).status).toBe(400);
    expect((await send({ headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(200);
    expect((await send({ headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(429);
  });
});

describe('operationSteps', () => {
  const step = (name: string, log: string[]) =>
    ((_c: unknown, next: () => unknown) => {
      log.push(name);
      return next();
    }) as never;

  it('in order: mark, faults, authenticate, authorize, parse, validate, rate limit, prefer; the optional ones only when given', async () => {
    const log: string[] = [];
    const all = operationSteps<string>('op', {
      faults: step('faults', log),
      authenticate: step('authenticate', log),
      authorize: step('authorize', log),
      parse: step('parse', log),
      validate: step('validate', log),
      rateLimit: step('rateLimit', log),
      prefer: step('prefer', log),
    });
    expect(all).toHaveLength(8);
    const minimal = operationSteps<string>('op', {
      authenticate: step('authenticate', log),
      parse: step('parse', log),
      validate: step('validate', log),
      rateLimit: step('rateLimit', log),
    });
    expect(minimal).toHaveLength(5);
    expect(minimal.every((s) => typeof s === 'function')).toBe(true);

    for (const steps of [all, minimal]) {
      const app = new Hono<PipelineEnv<string>>();
      app.get('/', composeSteps(steps), (c) => c.text(c.get('operationId')));
      const res = await app.fetch(new Request('http://tusk/'));
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('op');
    }
    expect(log).toEqual([
      'faults',
      'authenticate',
      'authorize',
      'parse',
      'validate',
      'rateLimit',
      'prefer',
      'authenticate',
      'parse',
      'validate',
      'rateLimit',
    ]);
  });
});

describe('composeSteps', () => {
  it('refuses a step that calls next() twice (as Hono compose does): the handler runs once, the answer is a 500', async () => {
    let handled = 0;
    const twice: MiddlewareHandler<PipelineEnv<string>> = async (_c, next) => {
      await next();
      await next();
    };
    const app = new Hono<PipelineEnv<string>>();
    app.onError((err, c) => c.text(err.message, 500));
    app.get('/', composeSteps([twice]), (c) => {
      handled++;
      return c.text('ok');
    });
    const res = await app.fetch(new Request('http://tusk/'));
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('next() called multiple times');
    expect(handled).toBe(1);
  });
});
