// The Prefer header step on small documents made for each case: the parser, the response chosen
// for `code` and `example`, the media type chosen by Accept, the bodies left out, the errors, and the
// fetch Response made of it. test/http/prefer-interfaces.test.ts uses it through the real documents.
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../src/openapi/documents.js';
import { readOperations, type OperationInfo } from '../../src/openapi/operations.js';
import {
  parsePrefer,
  preferStep,
  preferredResponse,
  toResponse,
  type DocumentedResponse,
} from '../../src/http/prefer.js';

/** A document of one operation `op` (GET /x unless told) with these responses. */
function operation(responses: Record<string, unknown>, method = 'get'): { doc: OpenApiDocument; op: OperationInfo } {
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/x': { [method]: { operationId: 'op', responses } } },
  };
  return { doc, op: readOperations('instance', doc)[0]! };
}

const json = (example: unknown) => ({ description: 'd', content: { 'application/json': { example } } });

const notFound = (detail: string) => ({
  status: 404,
  headers: {},
  mediaType: 'application/json',
  body: {
    error: `The server cannot find the requested content: ${detail}`,
    type: 'https://stoplight.io/prism/errors#NOT_FOUND',
    title: 'The server cannot find the requested content',
    status: 404,
    detail,
  },
});

describe('parsePrefer', () => {
  it('trims names and values and lower-cases names, not values', () => {
    expect([...parsePrefer('  Code = 404 ,EXAMPLE=  Cpu  ')]).toEqual([
      ['code', '404'],
      ['example', 'Cpu'],
    ]);
  });

  it('drops a pair of surrounding quotes, and only a pair', () => {
    expect(parsePrefer('example="cpu"').get('example')).toBe('cpu');
    expect(parsePrefer('example=""').get('example')).toBe('');
    expect(parsePrefer('example=cpu"').get('example')).toBe('cpu"');
    expect(parsePrefer('example="cpu').get('example')).toBe('"cpu');
    expect(parsePrefer('example=c"p"u').get('example')).toBe('c"p"u');
    expect(parsePrefer('example="').get('example')).toBe('"');
  });

  it('does not split at a comma or semicolon inside quotes', () => {
    expect([...parsePrefer('example="a, b; c", code=404')]).toEqual([
      ['example', 'a, b; c'],
      ['code', '404'],
    ]);
    expect([...parsePrefer('example="a;b"; q=1')]).toEqual([['example', 'a;b']]);
  });

  it('skips empty preferences and preferences without a name', () => {
    expect([...parsePrefer(', =404, ,code=500,')]).toEqual([['code', '500']]);
    expect(parsePrefer('').size).toBe(0);
    expect(parsePrefer('=x').size).toBe(0);
  });

  it('keeps the first of a repeated name, whatever its case', () => {
    expect([...parsePrefer('CODE=404, code=500, Code=200')]).toEqual([['code', '404']]);
  });
});

describe('preferredResponse: which response', () => {
  it('asks for nothing without code or example (other preferences, an empty example)', () => {
    const { doc, op } = operation({ '200': json({ a: 1 }) });
    for (const prefer of [undefined, '', 'return=minimal, dynamic=true', 'example=']) {
      expect(preferredResponse(doc, op, { prefer, method: 'GET' })).toBeUndefined();
    }
  });

  it('code: the exact status, with its declared headers and example', () => {
    const { doc, op } = operation({
      '200': json({ ok: true }),
      '429': {
        description: 'd',
        headers: { 'Retry-After': { schema: { type: 'integer', example: 7 } } },
        content: { 'application/json': { example: { error: 'slow' } } },
      },
    });
    expect(preferredResponse(doc, op, { prefer: 'code=429', method: 'GET' })).toStrictEqual({
      status: 429,
      headers: { 'Retry-After': '7', 'Preference-Applied': 'code=429' },
      mediaType: 'application/json',
      body: { error: 'slow' },
    });
  });

  it("code: else its range, else default; a code nothing covers is Prism's 404", () => {
    const { doc, op } = operation({ '200': json('ok'), '4XX': json('range') });
    expect(preferredResponse(doc, op, { prefer: 'code=409', method: 'GET' })).toMatchObject({
      status: 409,
      body: 'range',
    });
    expect(preferredResponse(doc, op, { prefer: 'code=503', method: 'GET' })).toStrictEqual(
      notFound('Requested status code 503 is not defined in the document.'),
    );
    const withDefault = operation({ '200': json('ok'), default: json('fallback') });
    expect(preferredResponse(withDefault.doc, withDefault.op, { prefer: 'code=503', method: 'GET' })).toMatchObject({
      status: 503,
      body: 'fallback',
    });
  });

  it("code that is not three digits is Prism's 422, with the exact problem", () => {
    const { doc, op } = operation({ '200': json('ok'), '404': json('nf') });
    for (const code of ['x404', '4040', '40', '', '5XX']) {
      const detail = `Prefer: code must be a three-digit status, got "${code}"`;
      expect(preferredResponse(doc, op, { prefer: `code=${code}`, method: 'GET' })).toStrictEqual({
        status: 422,
        headers: {},
        mediaType: 'application/json',
        body: {
          error: `Invalid request: ${detail}`,
          type: 'https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY',
          title: 'Invalid request',
          status: 422,
          detail,
        },
      });
    }
  });

  it('example alone: of the lowest 2XX response (sorted as text), whatever the order in the document', () => {
    const { doc, op } = operation({
      '404': json('nf'),
      '201': json('created'),
      '200': json('ok'),
      '2XX': json('range'),
    });
    expect(preferredResponse(doc, op, { prefer: 'example=default', method: 'GET' })).toStrictEqual({
      status: 200,
      headers: { 'Preference-Applied': 'example=default' },
      mediaType: 'application/json',
      body: 'ok',
    });
  });

  it('example alone: a single 201 is answered as 201, a 2XX range as 200', () => {
    const created = operation({ '400': json('bad'), '201': json('created') });
    expect(preferredResponse(created.doc, created.op, { prefer: 'example=default', method: 'GET' })).toMatchObject({
      status: 201,
      body: 'created',
    });
    const range = operation({ '404': json('nf'), '2XX': json('range') });
    expect(preferredResponse(range.doc, range.op, { prefer: 'example=default', method: 'GET' })).toMatchObject({
      status: 200,
      body: 'range',
    });
  });

  it('example alone: without a 2XX, default (as 200), else the first response (a range as its hundred)', () => {
    const withDefault = operation({ '404': json('nf'), default: json('fallback') });
    expect(
      preferredResponse(withDefault.doc, withDefault.op, { prefer: 'example=default', method: 'GET' }),
    ).toMatchObject({ status: 200, body: 'fallback' });
    const first = operation({ '404': json('nf'), '500': json('err') });
    expect(preferredResponse(first.doc, first.op, { prefer: 'example=default', method: 'GET' })).toMatchObject({
      status: 404,
      body: 'nf',
    });
    const range = operation({ '4XX': json('client') });
    expect(preferredResponse(range.doc, range.op, { prefer: 'example=default', method: 'GET' })).toMatchObject({
      status: 400,
      body: 'client',
    });
  });

  it('example alone: an extension key of the responses is not a 2XX response', () => {
    const { doc, op } = operation({ '404': json('nf'), 'x-200': { description: 'not a response' } });
    expect(preferredResponse(doc, op, { prefer: 'example=default', method: 'GET' })).toMatchObject({
      status: 404,
      body: 'nf',
    });
  });

  it("example alone on an operation without responses is Prism's 404 naming the operation", () => {
    const { doc, op } = operation({});
    expect(preferredResponse(doc, op, { prefer: 'example=cpu', method: 'GET' })).toStrictEqual(
      notFound('No response is defined for op.'),
    );
  });

  it("example by name from the examples map, of code's response when both are given", () => {
    const media = {
      'application/json': { examples: { cpu: { value: { type: 'cpu' } }, disk: { value: { type: 'disk' } } } },
    };
    const { doc, op } = operation({
      '200': { description: 'd', content: media },
      '404': { description: 'd', content: { 'application/json': { examples: { gone: { value: 'gone' } } } } },
    });
    expect(preferredResponse(doc, op, { prefer: 'example=disk', method: 'GET' })).toStrictEqual({
      status: 200,
      headers: { 'Preference-Applied': 'example=disk' },
      mediaType: 'application/json',
      body: { type: 'disk' },
    });
    expect(preferredResponse(doc, op, { prefer: 'code=404, example=gone', method: 'GET' })).toStrictEqual({
      status: 404,
      headers: { 'Preference-Applied': 'code=404, example=gone' },
      mediaType: 'application/json',
      body: 'gone',
    });
    expect(preferredResponse(doc, op, { prefer: 'code=404, example=cpu', method: 'GET' })).toStrictEqual(
      notFound('Response for contentType: application/json and exampleKey: cpu does not exist.'),
    );
  });

  it('code alone: the first example, else a value built from the schema', () => {
    const { doc, op } = operation({
      '200': {
        description: 'd',
        content: { 'application/json': { examples: { one: { value: 1 }, two: { value: 2 } } } },
      },
      '201': {
        description: 'd',
        content: {
          'application/json': { schema: { type: 'object', properties: { n: { type: 'integer', minimum: 3 } } } },
        },
      },
    });
    expect(preferredResponse(doc, op, { prefer: 'code=200', method: 'GET' })).toMatchObject({ status: 200, body: 1 });
    expect(preferredResponse(doc, op, { prefer: 'code=201', method: 'GET' })).toMatchObject({
      status: 201,
      body: { n: 3 },
    });
  });
});

describe('preferredResponse: no body', () => {
  it('a response without content has no media type and no body', () => {
    const { doc, op } = operation({ '200': json('ok'), '202': { description: 'accepted' } });
    expect(preferredResponse(doc, op, { prefer: 'code=202', method: 'GET' })).toStrictEqual({
      status: 202,
      headers: { 'Preference-Applied': 'code=202' },
    });
  });

  it('204 and 304 have no body even when the document gives them content, nor has HEAD', () => {
    const { doc, op } = operation({ '200': json('ok'), '204': json('nothing'), '304': json('same') });
    expect(preferredResponse(doc, op, { prefer: 'code=204', method: 'GET' })).toStrictEqual({
      status: 204,
      headers: { 'Preference-Applied': 'code=204' },
    });
    expect(preferredResponse(doc, op, { prefer: 'code=304', method: 'GET' })).toStrictEqual({
      status: 304,
      headers: { 'Preference-Applied': 'code=304' },
    });
    expect(preferredResponse(doc, op, { prefer: 'code=200', method: 'HEAD' })).toStrictEqual({
      status: 200,
      headers: { 'Preference-Applied': 'code=200' },
    });
    expect(preferredResponse(doc, op, { prefer: 'code=200', method: 'GET' })).toStrictEqual({
      status: 200,
      headers: { 'Preference-Applied': 'code=200' },
      mediaType: 'application/json',
      body: 'ok',
    });
  });
});

describe('preferredResponse: the media type Accept asks for', () => {
  const content = {
    'application/json': { example: { kind: 'json' } },
    'text/plain': { example: 'plain' },
    'Text/CSV': { example: 'a,b' },
    'audio/mpeg': { example: 'mp3' },
  };
  const pick = (accept: string | undefined) => {
    const { doc, op } = operation({ '200': { description: 'd', content } });
    const r = preferredResponse(doc, op, { prefer: 'code=200', accept, method: 'GET' });
    return [r?.mediaType, r?.body];
  };

  it('the first declared type without Accept, or when nothing matches', () => {
    expect(pick(undefined)).toEqual(['application/json', { kind: 'json' }]);
    expect(pick('')).toEqual(['application/json', { kind: 'json' }]);
    expect(pick('image/png')).toEqual(['application/json', { kind: 'json' }]);
  });

  it('an exact type, whatever the case and the spaces and parameters', () => {
    expect(pick('text/plain')).toEqual(['text/plain', 'plain']);
    expect(pick('application/xml;q=0.9,  TEXT/Plain ;q=0.5')).toEqual(['text/plain', 'plain']);
    expect(pick('text/csv')).toEqual(['Text/CSV', 'a,b']);
  });

  it('the first Accept entry that matches, not the first declared type', () => {
    expect(pick('image/png, audio/mpeg, text/plain')).toEqual(['audio/mpeg', 'mp3']);
  });

  it('a type/* range matches by its type only; */* the first declared type', () => {
    expect(pick('text/*')).toEqual(['text/plain', 'plain']);
    expect(pick('audio/*')).toEqual(['audio/mpeg', 'mp3']);
    expect(pick('*/*, text/plain')).toEqual(['application/json', { kind: 'json' }]);
  });

  it('a type that only starts like a declared one does not match it', () => {
    const { doc, op } = operation({
      '200': {
        description: 'd',
        content: { 'text/plain': { example: 'plain' }, 'application/json': { example: 'json' } },
      },
    });
    expect(
      preferredResponse(doc, op, { prefer: 'code=200', accept: 'application/jsonl', method: 'GET' }),
    ).toMatchObject({
      mediaType: 'text/plain',
      body: 'plain',
    });
    expect(preferredResponse(doc, op, { prefer: 'code=200', accept: 'application/json', method: 'GET' })).toMatchObject(
      {
        mediaType: 'application/json',
        body: 'json',
      },
    );
  });
});

describe('toResponse', () => {
  it('a JSON body is serialised as application/json by default', async () => {
    const res = toResponse({ status: 201, headers: { 'X-A': '1' }, body: { a: 1 } });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-a')).toBe('1');
    expect(await res.text()).toBe('{"a":1}');
  });

  it('a string is sent as is for a text type (with a charset), serialised for a JSON type', async () => {
    const text = toResponse({ status: 200, headers: {}, mediaType: 'text/plain', body: 'hi' });
    expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await text.text()).toBe('hi');
    const jsonText = toResponse({ status: 200, headers: {}, mediaType: 'application/problem+JSON', body: 'hi' });
    expect(jsonText.headers.get('content-type')).toBe('application/problem+JSON');
    expect(await jsonText.text()).toBe('"hi"');
    const object = toResponse({ status: 200, headers: {}, mediaType: 'text/plain', body: { a: 1 } });
    expect(await object.text()).toBe('{"a":1}');
  });

  it('only a text/ type gets a charset', () => {
    const r = toResponse({
      status: 200,
      headers: {},
      mediaType: 'application/json; profile="https://example.com/text/v1"',
      body: 1,
    });
    expect(r.headers.get('content-type')).toBe('application/json; profile="https://example.com/text/v1"');
  });

  it('no body and no content type without a body, and for 204 and 304 even with one', async () => {
    for (const r of [
      { status: 200, headers: { 'Preference-Applied': 'code=200' } },
      { status: 204, headers: {}, mediaType: 'application/json', body: { a: 1 } },
      { status: 304, headers: {}, mediaType: 'application/json', body: { a: 1 } },
    ] as DocumentedResponse[]) {
      const res = toResponse(r);
      expect(res.status).toBe(r.status);
      expect(res.headers.get('content-type')).toBeNull();
      expect(await res.text()).toBe('');
    }
  });
});

describe('preferStep', () => {
  it('answers what Prefer asks for in place of the handler, and passes on otherwise', async () => {
    const { doc, op } = operation({ '200': json({ a: 1 }), '404': json('nf') });
    const app = new Hono().get('/x', preferStep(doc, op), (c) => c.text('handler'));
    const preferred = await app.request('/x', { headers: { prefer: 'code=404' } });
    expect(preferred.status).toBe(404);
    expect(preferred.headers.get('preference-applied')).toBe('code=404');
    expect(await preferred.json()).toBe('nf');
    const text = await app.request('/x', { headers: { prefer: 'code=200', accept: 'text/plain' } });
    expect(await text.json()).toEqual({ a: 1 });
    for (const headers of [{}, { prefer: 'return=minimal' }] as Record<string, string>[]) {
      const res = await app.request('/x', { headers });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('handler');
    }
  });
});
