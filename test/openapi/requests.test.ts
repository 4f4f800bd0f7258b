// src/openapi/requests.ts: how an operation's parameters and body are read and validated, and how
// a failed check becomes the 400 that names the field and the rule. The conventions under test are
// those of the documents' descriptions (openapi/CONVENTIONS.md): form scalars are read by the
// schema's type, array and object fields (and fields with a JSON `encoding`) are JSON text, every
// body is an object nested at most MAX_BODY_DEPTH levels, and an integration body is validated
// against the branch whose `x-system` names the system.
//
// Every OperationValidator is built inside its test, from a small document made for the purpose
// (each branch of the reading rules in one place) or from the real documents.
import type { ValidateFunction } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { SchemaSet } from '../../src/openapi/ajv.js';
import { loadDocuments, type OpenApiDocument } from '../../src/openapi/documents.js';
import { readOperations } from '../../src/openapi/operations.js';
import { OperationValidator, deeperThan, type RawBody } from '../../src/openapi/requests.js';
import { ApiError } from '../../src/core/errors.js';
import { MAX_BODY_DEPTH } from '../../src/core/limits.js';

const ok = { '200': { description: 'ok' } };

/** A document with one operation of each shape the reading rules care about. */
function testDocument(): OpenApiDocument {
  return {
    openapi: '3.1.0',
    info: { title: 'requests.ts test', version: '1' },
    paths: {
      '/things/{id}': {
        post: {
          operationId: 'postThing',
          parameters: [
            { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
            { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 10 } },
            { name: 'ratio', in: 'query', schema: { type: 'number' } },
            { name: 'flag', in: 'query', schema: { type: 'boolean' } },
            { name: 'ids', in: 'query', schema: { type: 'array', items: { type: 'integer' } } },
            { name: 'q', in: 'query', required: true, schema: { type: 'string', minLength: 2 } },
            // Header parameters are not the pipeline's to check (it reads path and query only).
            { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string' } },
          ],
          requestBody: {
            required: true,
            content: {
              // The form media comes first and allows anything: the JSON schema is the one that counts.
              'application/x-www-form-urlencoded': {
                schema: { type: 'object' },
                encoding: { meta: { contentType: 'application/json' }, note: { contentType: 'text/plain' } },
              },
              'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
            },
          },
          responses: ok,
        },
      },
      '/search': {
        get: {
          operationId: 'search',
          parameters: [{ name: 'term', in: 'query', schema: { type: 'string' } }],
          responses: ok,
        },
      },
      '/plain/{id}': {
        delete: {
          operationId: 'deletePlain',
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          responses: ok,
        },
      },
      '/choice': {
        post: {
          operationId: 'postChoice',
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Choice' } } } },
          responses: ok,
        },
      },
      '/integrations': {
        post: {
          operationId: 'postIntegration',
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  anyOf: [
                    { $ref: '#/components/schemas/SystemA' },
                    // An inline branch: its validator is found by its place in the anyOf.
                    {
                      'x-system': 'b',
                      type: 'object',
                      additionalProperties: false,
                      required: ['url'],
                      properties: { url: { type: 'string', format: 'uri' } },
                    },
                    { type: 'object', properties: { unnamed: { type: 'string' } } },
                  ],
                },
              },
            },
          },
          responses: ok,
        },
      },
      '/sinks': {
        post: {
          operationId: 'postSink',
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  oneOf: [
                    {
                      'x-system': 'c',
                      type: 'object',
                      additionalProperties: false,
                      required: ['host'],
                      properties: { host: { type: 'string' } },
                    },
                    {
                      'x-system': 'd',
                      type: 'object',
                      additionalProperties: false,
                      required: ['port'],
                      properties: { port: { type: 'integer' } },
                    },
                  ],
                },
              },
            },
          },
          responses: ok,
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          unevaluatedProperties: false,
          minProperties: 1,
          properties: {
            name: { type: 'string' },
            count: { type: 'integer', maximum: 1000 },
            weight: { type: 'number' },
            on: { type: 'boolean' },
            list: { type: 'array', items: { type: 'integer' } },
            obj: { type: 'object' },
            meta: {},
            note: {},
            maybe: { type: ['integer', 'null'] },
            three: { const: 3 },
            yes: { const: true },
            size: { $ref: '#/components/schemas/Size' },
            // Untyped (read as a string) here, an integer in allOf: the typed declaration wins.
            mixed: {},
            // An integer here, a boolean in anyOf: the first typed declaration stays.
            first: { type: 'integer' },
            inner: {
              type: 'object',
              properties: { a: { type: 'string' }, b: { type: 'string' } },
              anyOf: [{ required: ['a'] }, { required: ['b'] }],
            },
            pair: {
              type: 'object',
              required: ['x', 'y'],
              properties: { x: { type: 'integer' }, y: { type: 'integer' } },
            },
            // Exactly one of p and q: not "at least one", so no list of alternatives.
            either: { type: 'object', oneOf: [{ required: ['p'] }, { required: ['q'] }] },
          },
          allOf: [{ properties: { fromAllOf: { type: 'integer' }, mixed: { type: 'integer' } } }],
          // (`first` as a boolean in a branch of its own, so an integer still passes the anyOf.)
          anyOf: [{ properties: { fromAnyOf: { type: 'boolean' } } }, { properties: { first: { type: 'boolean' } } }],
          oneOf: [{ properties: { fromOneOf: { type: 'number' } } }],
          if: { required: ['name'] },
          then: { properties: { fromThen: { type: 'integer' } } },
          else: { properties: { fromElse: { type: 'integer' } } },
        },
        Size: { type: 'integer' },
        Choice: {
          type: 'object',
          additionalProperties: false,
          properties: { role: { type: 'string' }, tags: { type: 'string' } },
          anyOf: [{ required: ['role'] }, { required: ['tags'] }],
        },
        SystemA: {
          'x-system': 'a',
          type: 'object',
          additionalProperties: false,
          required: ['key'],
          properties: { key: { type: 'string', minLength: 4 } },
        },
      },
    },
  };
}

/** A validator of one operation of a document, built now. */
function validatorOf(
  doc: OpenApiDocument,
  operationId: string,
  api: 'customer' | 'instance' = 'customer',
  schemas?: SchemaSet,
): OperationValidator {
  const op = readOperations(api, doc).find((o) => o.operationId === operationId);
  if (!op) throw new Error(`no operation ${operationId}`);
  return new OperationValidator(op, doc, schemas ?? new SchemaSet({ [api]: doc }, { precompiled: false }));
}

/** The ApiError a call throws, as the status and body the client gets. */
function refusal(call: () => unknown): { status: number; error: string; field?: string; rule?: string } {
  try {
    call();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, ...err.body };
    throw err;
  }
  throw new Error('expected a refusal, the call passed');
}

const form = (fields: Record<string, string>): RawBody => ({ kind: 'form', fields: Object.entries(fields) });
const json = (value: unknown): RawBody => ({ kind: 'json', value });
/** A value nested `levels` deep: [[...[0]...]] (arrays) or {a:{a:...}} (objects). */
const nested = (levels: number, kind: 'array' | 'object' = 'array'): unknown => {
  let v: unknown = 0;
  for (let i = 0; i < levels; i++) v = kind === 'array' ? [v] : { a: v };
  return v;
};

describe('deeperThan', () => {
  it('counts objects and arrays as levels, scalars not', () => {
    expect(deeperThan(nested(3), 3)).toBe(false);
    expect(deeperThan(nested(4), 3)).toBe(true);
    expect(deeperThan(nested(3, 'object'), 3)).toBe(false);
    expect(deeperThan(nested(4, 'object'), 3)).toBe(true);
    expect(deeperThan('text', 0)).toBe(false);
    expect(deeperThan(null, 0)).toBe(false);
    expect(deeperThan({}, 0)).toBe(true);
  });

  it('finds the deep branch among shallow siblings, in arrays and in objects', () => {
    expect(deeperThan({ a: 1, b: [1, 2], c: { d: nested(2) } }, 3)).toBe(true);
    expect(deeperThan({ a: 1, b: [1, 2], c: { d: nested(1) } }, 3)).toBe(false);
    expect(deeperThan([1, 'x', null, [nested(3, 'object')]], 4)).toBe(true);
    expect(deeperThan([1, 'x', null, [nested(2, 'object')]], 4)).toBe(false);
  });

  it('walks a body nested far deeper than the call stack allows', () => {
    expect(deeperThan(nested(200_000), MAX_BODY_DEPTH)).toBe(true);
  });
});

describe('OperationValidator: parameters', () => {
  it('reads path and query parameters by their schema types', () => {
    const v = validatorOf(testDocument(), 'postThing');
    const query = new URLSearchParams({ limit: '7', ratio: '0.25', flag: 'false', ids: '[1,2]', q: 'pg' });
    expect(v.parameters({ id: '12' }, query)).toEqual({
      params: { id: 12 },
      query: { limit: 7, ratio: 0.25, flag: false, ids: [1, 2], q: 'pg' },
    });
  });

  it('reads only path and query parameters, and says which of them the operation has', () => {
    const thing = validatorOf(testDocument(), 'postThing');
    // X-Trace is a required header parameter: not the pipeline's to check.
    expect(thing.parameters({ id: '1' }, new URLSearchParams('q=ab'))).toEqual({
      params: { id: 1 },
      query: { q: 'ab' },
    });
    expect([thing.hasPathParameters, thing.hasQueryParameters]).toEqual([true, true]);
    const search = validatorOf(testDocument(), 'search');
    expect([search.hasPathParameters, search.hasQueryParameters]).toEqual([false, true]);
    const plain = validatorOf(testDocument(), 'deletePlain');
    expect([plain.hasPathParameters, plain.hasQueryParameters]).toEqual([true, false]);
  });

  it('takes the last of a repeated query parameter and leaves out the absent optional ones', () => {
    const v = validatorOf(testDocument(), 'postThing');
    expect(v.parameters({ id: '3' }, new URLSearchParams('q=first&limit=2&q=second')).query).toEqual({
      q: 'second',
      limit: 2,
    });
  });

  it('refuses a missing required parameter, naming it and where it goes', () => {
    const v = validatorOf(testDocument(), 'postThing');
    expect(refusal(() => v.parameters({ id: '3' }, new URLSearchParams()))).toEqual({
      status: 400,
      error: 'q: is required (query parameter)',
      field: 'q',
      rule: 'required',
    });
    expect(refusal(() => v.parameters({}, new URLSearchParams('q=ab')))).toEqual({
      status: 400,
      error: 'id: is required (path parameter)',
      field: 'id',
      rule: 'required',
    });
  });

  it('refuses a parameter its schema rejects, naming the parameter and the rule', () => {
    const v = validatorOf(testDocument(), 'postThing');
    expect(refusal(() => v.parameters({ id: '0' }, new URLSearchParams('q=ab')))).toMatchObject({
      status: 400,
      field: 'id',
      rule: 'minimum',
    });
    expect(refusal(() => v.parameters({ id: '1' }, new URLSearchParams('q=ab&limit=11')))).toMatchObject({
      status: 400,
      field: 'limit',
      rule: 'maximum',
    });
    // A value that does not read as its type stays a string, and the schema names the type.
    const notANumber = refusal(() => v.parameters({ id: 'abc' }, new URLSearchParams('q=ab')));
    expect(notANumber).toMatchObject({ status: 400, field: 'id', rule: 'type' });
    expect(notANumber.error).toMatch(/^id: /);
    expect(refusal(() => v.parameters({ id: '1' }, new URLSearchParams('q=ab&flag=yes')))).toMatchObject({
      field: 'flag',
      rule: 'type',
    });
    expect(refusal(() => v.parameters({ id: '1' }, new URLSearchParams('q=ab&ids=[1,')))).toMatchObject({
      field: 'ids',
      rule: 'type',
    });
    expect(refusal(() => v.parameters({ id: '1' }, new URLSearchParams('q=a')))).toMatchObject({
      field: 'q',
      rule: 'minLength',
    });
  });
});

describe('OperationValidator: reading form bodies by the schema', () => {
  // The fields a form body reads as a given type (Thing's `unevaluatedProperties: false` accepts each).
  const read = (fields: Record<string, string>) => validatorOf(testDocument(), 'postThing').body(form(fields));

  it('reads integers, numbers and booleans by the types of the properties', () => {
    expect(read({ count: '42', weight: '2.5', on: 'true', name: 'n' })).toEqual({
      count: 42,
      weight: 2.5,
      on: true,
      name: 'n',
    });
    expect(read({ on: 'false' })).toEqual({ on: false });
    expect(read({ count: '-3' })).toEqual({ count: -3 });
  });

  it('reads a number in every JSON form, and trims the spaces around it', () => {
    expect(read({ weight: '1.25' })).toEqual({ weight: 1.25 });
    expect(read({ weight: '-0.5' })).toEqual({ weight: -0.5 });
    expect(read({ weight: '1e3' })).toEqual({ weight: 1000 });
    expect(read({ weight: '2E-2' })).toEqual({ weight: 0.02 });
    expect(read({ weight: '5e+1' })).toEqual({ weight: 50 });
    expect(read({ weight: '1e10' })).toEqual({ weight: 1e10 });
    expect(read({ weight: ' 12 ' })).toEqual({ weight: 12 });
  });

  it('leaves a value that does not read as its type a string, so the schema names the field', () => {
    for (const text of ['12a', 'a12', '1.', '.5', '1e', '0x10', '', 'Infinity']) {
      expect(
        refusal(() => read({ weight: text })),
        text,
      ).toMatchObject({ status: 400, field: 'weight', rule: 'type' });
    }
    expect(refusal(() => read({ on: 'yes' }))).toMatchObject({ field: 'on', rule: 'type' });
    expect(refusal(() => read({ on: 'TRUE' }))).toMatchObject({ field: 'on', rule: 'type' });
    expect(refusal(() => read({ list: '[1,' }))).toMatchObject({ field: 'list', rule: 'type' });
  });

  it('reads array and object fields, and fields with a JSON encoding, as JSON text', () => {
    expect(read({ list: '[1,2]', obj: '{"k":"v"}', meta: '{"n":1}' })).toEqual({
      list: [1, 2],
      obj: { k: 'v' },
      meta: { n: 1 },
    });
    // Without a JSON encoding an untyped field stays the text it is, and so does one whose
    // encoding is not JSON.
    expect(read({ note: '{"n":1}' })).toEqual({ note: '{"n":1}' });
  });

  it('reads a property typed through $ref, a list of types or a const', () => {
    expect(read({ size: '9', maybe: '4', three: '3', yes: 'true' })).toEqual({
      size: 9,
      maybe: 4,
      three: 3,
      yes: true,
    });
  });

  it('reads the properties of allOf, anyOf, oneOf, then and else branches', () => {
    expect(read({ name: 'n', fromAllOf: '1', fromAnyOf: 'true', fromOneOf: '0.5', fromThen: '2' })).toEqual({
      name: 'n',
      fromAllOf: 1,
      fromAnyOf: true,
      fromOneOf: 0.5,
      fromThen: 2,
    });
    expect(read({ fromElse: '3' })).toEqual({ fromElse: 3 });
  });

  it('prefers a typed declaration of a property to a string one, and keeps the first typed one', () => {
    expect(read({ mixed: '5', first: '6' })).toEqual({ mixed: 5, first: 6 });
  });

  it('reads kinds through a schema that refers to itself, without end', () => {
    const doc = testDocument();
    const schemas = doc.components!.schemas as Record<string, Record<string, unknown>>;
    // Validation follows a `then` only when its `if` holds (never here); the reading of kinds
    // follows every branch, and must stop.
    (schemas.Thing!.allOf as unknown[]).push({
      if: { required: ['never'] },
      then: { $ref: '#/components/schemas/Thing' },
    });
    expect(validatorOf(doc, 'postThing').body(form({ fromAllOf: '8', count: '2' }))).toEqual({
      fromAllOf: 8,
      count: 2,
    });
  });

  it('validates the form body against the JSON schema of the operation', () => {
    expect(refusal(() => read({ count: '1001' }))).toMatchObject({ status: 400, field: 'count', rule: 'maximum' });
    // A field the schema does not name is ignored (the request-body convention), or refused in strict mode.
    const v = validatorOf(testDocument(), 'postThing');
    expect(v.read(form({ count: '2', unknown: 'x' }))).toEqual({ value: { count: 2 }, ignored: ['unknown'] });
    expect(refusal(() => read({ unknown: 'x' }))).toMatchObject({ status: 400, field: 'body', rule: 'minProperties' });
    expect(refusal(() => v.body(form({ count: '2', unknown: 'x' }), undefined, { strict: true }))).toEqual({
      status: 400,
      error: 'unknown: is not an accepted field here',
      field: 'unknown',
      rule: 'additionalProperties',
    });
  });

  it('defines every form field as a member, __proto__ too, so an unknown one is ignored (or refused in strict mode)', () => {
    const choice = validatorOf(testDocument(), 'postChoice');
    const read = choice.read(form({ role: 'r', ['__proto__']: '{"tags":"t"}' }));
    expect(read.ignored).toEqual(['__proto__']);
    expect(Object.keys(read.value as object)).toEqual(['role']);
    expect(Object.getPrototypeOf(read.value)).toBe(Object.prototype);
    expect(
      refusal(() => choice.body(form({ role: 'r', ['__proto__']: '{"tags":"t"}' }), undefined, { strict: true })),
    ).toEqual({
      status: 400,
      error: '__proto__: is not an accepted field here',
      field: '__proto__',
      rule: 'additionalProperties',
    });
  });
});

describe('OperationValidator: bodies', () => {
  it('says whether the operation takes a body', () => {
    expect(validatorOf(testDocument(), 'postThing').acceptsBody).toBe(true);
    expect(validatorOf(testDocument(), 'search').acceptsBody).toBe(false);
    expect(validatorOf(testDocument(), 'search').body(json({ any: 1 }))).toBeUndefined();
  });

  it('validates a missing body as an empty object', () => {
    expect(refusal(() => validatorOf(testDocument(), 'postThing').body({ kind: 'none' }))).toEqual({
      status: 400,
      error: 'body: must NOT have fewer than 1 properties',
      field: 'body',
      rule: 'minProperties',
    });
  });

  it('refuses a JSON body that is not an object', () => {
    const v = validatorOf(testDocument(), 'postThing');
    for (const value of [[], [{ count: 1 }], 'text', 7, true, null]) {
      expect(
        refusal(() => v.body(json(value))),
        JSON.stringify(value),
      ).toEqual({
        status: 400,
        error: 'body: must be a JSON object',
        field: 'body',
        rule: 'type',
      });
    }
  });

  it(`refuses a body nested deeper than ${MAX_BODY_DEPTH} levels, and takes one nested exactly that deep`, () => {
    const v = validatorOf(testDocument(), 'postThing');
    // The body object is the first level.
    expect(v.body(json({ meta: nested(MAX_BODY_DEPTH - 1) }))).toEqual({ meta: nested(MAX_BODY_DEPTH - 1) });
    expect(refusal(() => v.body(json({ meta: nested(MAX_BODY_DEPTH) })))).toEqual({
      status: 400,
      error: `body: nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`,
      field: 'body',
      rule: 'maxDepth',
    });
    expect(refusal(() => v.body(form({ meta: JSON.stringify(nested(MAX_BODY_DEPTH)) })))).toMatchObject({
      rule: 'maxDepth',
    });
  });

  it('names the field of a nested error by its path, and the body for an error of the whole', () => {
    const v = validatorOf(testDocument(), 'postThing');
    expect(refusal(() => v.body(json({ list: [1, 'two'] })))).toEqual({
      status: 400,
      error: 'list.1: must be integer',
      field: 'list.1',
      rule: 'type',
    });
    expect(refusal(() => v.body(json({ pair: { x: 1 } })))).toEqual({
      status: 400,
      error: 'pair.y: is required',
      field: 'pair.y',
      rule: 'required',
    });
  });

  it('names every alternative when at least one of them is required', () => {
    const choice = validatorOf(testDocument(), 'postChoice');
    expect(refusal(() => choice.body(json({})))).toEqual({
      status: 400,
      error: 'role or tags: at least one of them is required',
      field: 'role',
      rule: 'required',
    });
    expect(choice.body(json({ tags: 'a' }))).toEqual({ tags: 'a' });
    // Nested: the alternatives are named after the object that needs them.
    const thing = validatorOf(testDocument(), 'postThing');
    expect(refusal(() => thing.body(json({ inner: {} })))).toEqual({
      status: 400,
      error: 'inner: a or b: at least one of them is required',
      field: 'inner.a',
      rule: 'required',
    });
  });

  it('names one required field alone when no alternative is offered', () => {
    const thing = validatorOf(testDocument(), 'postThing');
    expect(refusal(() => thing.body(json({ pair: {} })))).toEqual({
      status: 400,
      error: 'pair.x: is required',
      field: 'pair.x',
      rule: 'required',
    });
    expect(refusal(() => thing.body(json({ either: {} })))).toEqual({
      status: 400,
      error: 'either.p: is required',
      field: 'either.p',
      rule: 'required',
    });
  });

  it('says the body is invalid when a validator fails without saying why', () => {
    const doc = testDocument();
    const silent = Object.assign(() => false, { errors: null }) as unknown as ValidateFunction;
    const schemas = { validator: () => silent } as unknown as SchemaSet;
    const v = validatorOf(doc, 'postChoice', 'customer', schemas);
    expect(refusal(() => v.body(json({ role: 'x' })))).toEqual({
      status: 400,
      error: 'body: invalid',
      rule: 'invalid',
    });
  });
});

describe('OperationValidator: per-system bodies', () => {
  it('validates an integration body against the branch whose x-system names the system', () => {
    const v = validatorOf(testDocument(), 'postIntegration');
    expect([...v.systemBodies.keys()]).toEqual(['a', 'b']);
    expect(v.body(json({ key: 'abcd' }), 'a')).toEqual({ key: 'abcd' });
    expect(refusal(() => v.body(json({ key: 'abc' }), 'a'))).toMatchObject({
      status: 400,
      field: 'key',
      rule: 'minLength',
    });
    // A field only another system takes: a 400 naming it, unless it carries its zero value (ignored).
    expect(refusal(() => v.body(json({ key: 'abcd' }), 'b'))).toMatchObject({
      status: 400,
      field: 'key',
      rule: 'notApplicable',
    });
    expect(refusal(() => v.body(json({ key: '' }), 'b'))).toMatchObject({
      status: 400,
      field: 'url',
      rule: 'required',
    });
    expect(v.read(json({ key: '', url: 'https://example.com/x' }), 'b')).toEqual({
      value: { url: 'https://example.com/x' },
      ignored: ['key'],
    });
    expect(v.body(json({ url: 'https://example.com/x' }), 'b')).toEqual({ url: 'https://example.com/x' });
    expect(refusal(() => v.body(json({ url: 'not a uri' }), 'b'))).toMatchObject({ field: 'url', rule: 'format' });
  });

  it('finds the branches of a oneOf too', () => {
    const v = validatorOf(testDocument(), 'postSink');
    expect([...v.systemBodies.keys()]).toEqual(['c', 'd']);
    expect(v.body(json({ port: 5432 }), 'd')).toEqual({ port: 5432 });
    expect(refusal(() => v.body(json({ port: 5432 }), 'c'))).toMatchObject({ field: 'port', rule: 'notApplicable' });
    expect(refusal(() => v.body(json({ port: 0 }), 'c'))).toMatchObject({ field: 'host', rule: 'required' });
  });

  it('leaves a body whose system the path does not name to the handler, if it is an object', () => {
    const v = validatorOf(testDocument(), 'postIntegration');
    expect(v.body(json({ anything: 1 }))).toEqual({ anything: 1 });
    expect(refusal(() => v.body(json(['x'])))).toEqual({
      status: 400,
      error: 'body: must be a JSON object',
      field: 'body',
      rule: 'type',
    });
    expect(refusal(() => v.body(json({ meta: nested(MAX_BODY_DEPTH) })))).toMatchObject({ rule: 'maxDepth' });
  });

  it('validates a body against a stored system, and refuses a system no branch names', () => {
    const v = validatorOf(testDocument(), 'postIntegration');
    expect(v.systemBody('a', { key: 'abcd' })).toEqual({ key: 'abcd' });
    expect(refusal(() => v.systemBody('a', { key: 'ab' }))).toMatchObject({
      status: 400,
      field: 'key',
      rule: 'minLength',
    });
    expect(refusal(() => v.systemBody('a', 'text'))).toEqual({
      status: 400,
      error: 'body: must be a JSON object',
      field: 'body',
      rule: 'type',
    });
    expect(refusal(() => v.systemBody('z', { key: 'abcd' }))).toEqual({
      status: 400,
      error: 'type: z is not an accepted system',
      field: 'type',
      rule: 'enum',
    });
  });
});

describe('OperationValidator over the documents', () => {
  let docs: Awaited<ReturnType<typeof loadDocuments>>;
  let schemas: SchemaSet;
  beforeAll(async () => {
    docs = await loadDocuments();
    schemas = new SchemaSet(docs);
  });

  it('reads a createAlarm form body as the conventions say (enabled=true, value_threshold=90, recipients=[1,2])', () => {
    const v = validatorOf(docs.instance, 'createAlarm', 'instance', schemas);
    expect(
      v.body(
        form({ type: 'cpu', enabled: 'false', value_threshold: '90', time_threshold: '600', recipients: '[1,2]' }),
      ),
    ).toEqual({
      type: 'cpu',
      enabled: false,
      value_threshold: 90,
      time_threshold: 600,
      recipients: [1, 2],
    });
  });

  it('reads a recipient`s options from form JSON text (its encoding)', () => {
    const v = validatorOf(docs.instance, 'createRecipient', 'instance', schemas);
    const body = v.body(
      form({ type: 'webhook', value: 'https://hooks.example.com/x', options: '{"k":"v"}' }),
    ) as Record<string, unknown>;
    expect(body.options).toEqual({ k: 'v' });
  });

  it('refuses an update of a team member with neither role nor tags, naming both', () => {
    const v = validatorOf(docs.customer, 'updateTeamMember', 'customer', schemas);
    expect(refusal(() => v.body(json({})))).toMatchObject({
      status: 400,
      error: expect.stringContaining('role or tags'),
      rule: expect.any(String),
    });
  });
});

describe('departures: every way a request departs from the document, as the proxy lists them', () => {
  const doc = testDocument();
  // postThing's path parameter and required query parameter, as a request that conforms sends them.
  const P = { id: '1' };
  const Q = () => new URLSearchParams('q=ab');

  it('names a path parameter that does not read, and conforms with none', () => {
    const v = validatorOf(doc, 'deletePlain');
    expect(v.departures({ id: 'abc' }, new URLSearchParams(), { kind: 'none' })).toEqual([
      expect.objectContaining({ field: 'id', rule: 'type' }),
    ]);
    expect(v.departures({ id: '7' }, new URLSearchParams(), { kind: 'none' })).toEqual([]);
  });

  it('reports the 400 that reading the body gave, and a body that is too deep or no object', () => {
    const v = validatorOf(doc, 'postThing');
    const unreadable = new ApiError(400, 'body: malformed JSON', { field: 'body', rule: 'json' });
    expect(v.departures(P, Q(), unreadable)).toEqual([
      { field: 'body', rule: 'json', message: 'body: malformed JSON' },
    ]);
    expect(v.departures(P, Q(), json([1]))).toEqual([
      { field: 'body', rule: 'type', message: 'body: must be a JSON object' },
    ]);
    expect(v.departures(P, Q(), json({ list: nested(MAX_BODY_DEPTH + 2) }))).toEqual([
      expect.objectContaining({ field: 'body', rule: 'maxDepth' }),
    ]);
  });

  it('reads no body as an empty object, and names the value as the body where no field applies', () => {
    const v = validatorOf(doc, 'postThing');
    expect(v.departures(P, Q(), { kind: 'none' })).toEqual([
      { field: 'body', rule: 'minProperties', message: 'body: must NOT have fewer than 1 properties' },
    ]);
    const both = v.departures(P, Q(), json({ count: 'x', name: 1 }));
    expect(both.map((d) => d.field).sort()).toEqual(['count', 'name']);
  });

  it('lists nothing for an integration body whose system the path does not name, and checks it against the named one', () => {
    const v = validatorOf(doc, 'postIntegration');
    expect(v.departures({}, new URLSearchParams(), json({ unnamed: 5 }))).toEqual([]);
    expect(v.departures({}, new URLSearchParams(), json({ url: 'not a uri' }), 'b')).toEqual([
      expect.objectContaining({ field: 'url', rule: 'format' }),
    ]);
  });
});
