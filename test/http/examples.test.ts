// The responses made from the document: the declared response of a status, its media types and
// examples, header values, and a value sampled from a schema without examples of its own.
// Every document is built inside its test, so each test sees the code it covers.
import { describe, expect, it } from 'vitest';
import { INTERFACES, loadDocuments, type OpenApiDocument } from '../../src/openapi/documents.js';
import { readOperations, type OperationInfo } from '../../src/openapi/operations.js';
import {
  exampleHeaders,
  mediaExamples,
  mediaOf,
  responseKeyFor,
  responseObject,
  sampleSchema,
} from '../../src/http/examples.js';

type Node = Record<string, unknown>;

/** A document with one operation (GET /things) and the given responses and component schemas. */
function docWith(
  responses: Node | undefined,
  components: Record<string, Record<string, unknown>> = {},
): OpenApiDocument {
  const op: Node = { operationId: 'getThings' };
  if (responses !== undefined) op.responses = responses;
  return {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: { '/things': { get: op } },
    components,
  };
}

function opOf(doc: OpenApiDocument): OperationInfo {
  return readOperations('customer', doc)[0]!;
}

/** A bare document for sampling schemas, with component schemas. */
function schemaDoc(schemas: Record<string, unknown> = {}): OpenApiDocument {
  return { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas } };
}

describe('responseKeyFor', () => {
  it('chooses the exact status first', () => {
    const op = opOf(
      docWith({ '404': { description: 'x' }, '4XX': { description: 'x' }, default: { description: 'x' } }),
    );
    expect(responseKeyFor(op, 404)).toBe('404');
  });

  it('chooses the range of the status when the exact code is not declared', () => {
    const op = opOf(
      docWith({ '200': { description: 'x' }, '4XX': { description: 'x' }, default: { description: 'x' } }),
    );
    expect(responseKeyFor(op, 409)).toBe('4XX');
    expect(responseKeyFor(op, 500)).toBe('default');
  });

  it('chooses default when neither the code nor its range is declared', () => {
    const op = opOf(docWith({ '200': { description: 'x' }, default: { description: 'x' } }));
    expect(responseKeyFor(op, 503)).toBe('default');
    expect(responseKeyFor(op, 200)).toBe('200');
  });

  it('chooses nothing when no key fits', () => {
    const op = opOf(docWith({ '200': { description: 'x' }, '5XX': { description: 'x' } }));
    expect(responseKeyFor(op, 404)).toBeUndefined();
    expect(responseKeyFor(op, 502)).toBe('5XX');
  });
});

describe('responseObject', () => {
  it('returns the declared response, following $refs', () => {
    const notFound = { description: 'not found', content: { 'application/json': { example: { a: 1 } } } };
    const doc = docWith(
      { '200': { description: 'ok' }, '404': { $ref: '#/components/responses/NotFound' } },
      { responses: { NotFound: notFound } },
    );
    const op = opOf(doc);
    expect(responseObject(doc, op, '200')).toStrictEqual({ description: 'ok' });
    expect(responseObject(doc, op, '404')).toBe(notFound);
  });

  it('returns undefined for a key not declared', () => {
    const doc = docWith({ '200': { description: 'ok' } });
    expect(responseObject(doc, opOf(doc), '500')).toBeUndefined();
  });

  it('returns undefined when the operation declares no responses at all', () => {
    const doc = docWith(undefined);
    expect(responseObject(doc, opOf(doc), '200')).toBeUndefined();
  });

  it('names the response in the error when it cannot be resolved', () => {
    const doc = docWith({ '200': { description: 'ok' } });
    const op = { ...opOf(doc), raw: { responses: { '404': null } } };
    expect(() => responseObject(doc, op, '404')).toThrow(/^unresolvable \$ref #\/paths\/x\/404$/);
  });
});

describe('mediaOf', () => {
  it('lists the media types in document order, $refs followed', () => {
    const xml = { example: '<a/>' };
    const doc = schemaDoc();
    doc.components!.media = { Xml: xml };
    const response = {
      content: { 'application/json': { example: 1 }, 'application/xml': { $ref: '#/components/media/Xml' } },
    };
    expect(mediaOf(doc, response)).toStrictEqual([
      ['application/json', { example: 1 }],
      ['application/xml', xml],
    ]);
  });

  it('lists nothing for a response without content', () => {
    expect(mediaOf(schemaDoc(), { description: 'none' })).toStrictEqual([]);
  });

  it('names the media in the error when it cannot be resolved', () => {
    expect(() => mediaOf(schemaDoc(), { content: { 'application/json': null } })).toThrow(
      /^unresolvable \$ref #\/media$/,
    );
  });
});

describe('mediaExamples', () => {
  it('reads `example` as default, then the named examples in order, $refs followed', () => {
    const doc = schemaDoc({ Thing: { type: 'object', examples: [{ from: 'schema' }] } });
    doc.components!.examples = { Big: { summary: 'big', value: { size: 'big' } } };
    const media = {
      schema: { $ref: '#/components/schemas/Thing' },
      example: { from: 'media' },
      examples: { small: { value: { size: 'small' } }, big: { $ref: '#/components/examples/Big' } },
    };
    expect(mediaExamples(doc, media)).toStrictEqual([
      { key: 'default', value: { from: 'media' } },
      { key: 'small', value: { size: 'small' } },
      { key: 'big', value: { size: 'big' } },
    ]);
  });

  it('reads an `example` that is present even when its value is null', () => {
    expect(mediaExamples(schemaDoc(), { example: null })).toStrictEqual([{ key: 'default', value: null }]);
  });

  it("falls back to the first of the schema's `examples` under the key default", () => {
    const doc = schemaDoc({ Thing: { type: 'object', examples: [{ n: 1 }, { n: 2 }] } });
    const media = { schema: { $ref: '#/components/schemas/Thing' }, examples: { other: { value: { n: 3 } } } };
    expect(mediaExamples(doc, media)).toStrictEqual([
      { key: 'default', value: { n: 1 } },
      { key: 'other', value: { n: 3 } },
    ]);
  });

  it('takes no default from a schema whose `examples` is empty or missing', () => {
    const doc = schemaDoc();
    expect(mediaExamples(doc, { schema: { type: 'string', examples: [] } })).toStrictEqual([]);
    expect(mediaExamples(doc, { schema: { type: 'string' } })).toStrictEqual([]);
    expect(mediaExamples(doc, { schema: { type: 'string' }, examples: { a: { value: 'x' } } })).toStrictEqual([
      { key: 'a', value: 'x' },
    ]);
  });

  it('reads a media object without schema or examples as having none', () => {
    expect(mediaExamples(schemaDoc(), {})).toStrictEqual([]);
  });

  it('names the schema and the example in the error when they cannot be resolved', () => {
    expect(() => mediaExamples(schemaDoc(), { schema: null })).toThrow(/^unresolvable \$ref #\/schema$/);
    expect(() => mediaExamples(schemaDoc(), { examples: { a: null } })).toThrow(/^unresolvable \$ref #\/example$/);
  });
});

describe('sampleSchema: examples, default, const, enum', () => {
  it('takes the example of the schema, even a falsy one', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'string', example: 'ex', examples: ['exs'], default: 'd' })).toBe('ex');
    expect(sampleSchema(doc, { type: 'integer', example: 0, default: 5 })).toBe(0);
  });

  it('else the first of its examples', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'string', examples: ['first', 'second'], default: 'd' })).toBe('first');
    expect(sampleSchema(doc, { type: 'string', examples: [], default: 'd' })).toBe('d');
    expect(sampleSchema(doc, { type: 'string', examples: 'not a list' })).toBe('');
  });

  it('else the default, even a falsy one', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'integer', default: 7, const: 8, enum: [9] })).toBe(7);
    expect(sampleSchema(doc, { type: 'boolean', default: false })).toBe(false);
  });

  it('else the const', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'string', const: 'fixed', enum: ['a'] })).toBe('fixed');
    expect(sampleSchema(doc, { type: 'string', const: null })).toBeNull();
  });

  it('else the first value of the enum', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'string', enum: ['red', 'green'] })).toBe('red');
    expect(sampleSchema(doc, { type: 'string', enum: [] })).toBe('');
    expect(sampleSchema(doc, { type: 'integer', enum: 'nope' })).toBe(0);
  });
});

describe('sampleSchema: composition', () => {
  it('samples the first branch of oneOf, else of anyOf', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { oneOf: [{ type: 'integer', minimum: 4 }, { type: 'string' }] })).toBe(4);
    expect(sampleSchema(doc, { anyOf: [{ type: 'boolean' }, { type: 'string' }] })).toBe(true);
    expect(sampleSchema(doc, { oneOf: [{ example: 'one' }], anyOf: [{ example: 'any' }] })).toBe('one');
    expect(sampleSchema(doc, { oneOf: [], anyOf: [{ example: 'any' }] })).toBe('any');
    expect(sampleSchema(doc, { oneOf: [], type: 'string' })).toBe('');
  });

  it('merges the object samples of allOf, leaving out the others', () => {
    const doc = schemaDoc({ Base: { type: 'object', properties: { id: { type: 'integer', minimum: 1 } } } });
    const schema = {
      allOf: [
        { $ref: '#/components/schemas/Base' },
        { properties: { name: { type: 'string', example: 'n' }, id: { example: 2 } } },
        { type: 'string', example: 'ab' },
        { type: 'null' },
        { type: 'integer' },
        true,
      ],
    };
    expect(sampleSchema(doc, schema)).toStrictEqual({ id: 2, name: 'n' });
    expect(sampleSchema(doc, { allOf: [] })).toStrictEqual({});
  });

  it('samples allOf before the type of the schema', () => {
    expect(sampleSchema(schemaDoc(), { type: 'string', allOf: [{ example: { a: 1 } }] })).toStrictEqual({ a: 1 });
  });

  it('follows $refs through aliases', () => {
    const doc = schemaDoc({ Name: { type: 'string', example: 'Ada' }, Alias: { $ref: '#/components/schemas/Name' } });
    expect(sampleSchema(doc, { $ref: '#/components/schemas/Alias' })).toBe('Ada');
  });
});

describe('sampleSchema: types', () => {
  it('samples an object from its properties, leaving out those without a value', () => {
    const doc = schemaDoc();
    const schema = {
      type: 'object',
      properties: {
        s: { type: 'string' },
        n: { type: 'number' },
        i: { type: 'integer', minimum: -3 },
        b: { type: 'boolean' },
        z: { type: 'null' },
        a: { type: 'array', items: { type: 'string', example: 'x' } },
        o: { type: 'object', properties: { deep: { example: 1 } } },
        anything: true,
        untyped: {},
      },
    };
    expect(sampleSchema(doc, schema)).toStrictEqual({ s: '', n: 0, i: -3, b: true, z: null, a: ['x'], o: { deep: 1 } });
  });

  it('samples an object without properties as empty, and properties without a type as an object', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'object' })).toStrictEqual({});
    expect(sampleSchema(doc, { properties: { a: { example: 'A' } } })).toStrictEqual({ a: 'A' });
    expect(sampleSchema(doc, { type: 'object', properties: { a: true } })).toStrictEqual({});
  });

  it('samples an array as one item, or none when the item has no value', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'array', items: { type: 'integer' } })).toStrictEqual([0]);
    expect(sampleSchema(doc, { type: 'array', items: { type: 'null' } })).toStrictEqual([null]);
    expect(sampleSchema(doc, { type: 'array' })).toStrictEqual([]);
    expect(sampleSchema(doc, { type: 'array', items: {} })).toStrictEqual([]);
  });

  it('samples scalars: empty string, the minimum or 0, true, null', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'string', format: 'date-time' })).toBe('');
    expect(sampleSchema(doc, { type: 'integer' })).toBe(0);
    expect(sampleSchema(doc, { type: 'number' })).toBe(0);
    expect(sampleSchema(doc, { type: 'number', minimum: 2.5 })).toBe(2.5);
    expect(sampleSchema(doc, { type: 'integer', minimum: 10 })).toBe(10);
    expect(sampleSchema(doc, { type: 'integer', minimum: '10' })).toBe(0);
    expect(sampleSchema(doc, { type: 'boolean' })).toBe(true);
    expect(sampleSchema(doc, { type: 'null' })).toBeNull();
  });

  it('reads a list of types by its first type that is not null', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: ['null', 'string'] })).toBe('');
    expect(sampleSchema(doc, { type: ['null', 'integer', 'string'] })).toBe(0);
    expect(sampleSchema(doc, { type: ['null'] })).toBeUndefined();
  });

  it('has no value for a schema without type, an unknown type, true or undefined', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, {})).toBeUndefined();
    expect(sampleSchema(doc, { type: 'file' })).toBeUndefined();
    expect(sampleSchema(doc, true)).toBeUndefined();
    expect(sampleSchema(doc, undefined)).toBeUndefined();
  });

  it('names the schema in the error when it cannot be resolved', () => {
    expect(() => sampleSchema(schemaDoc(), null)).toThrow(/^unresolvable \$ref #\/schema$/);
  });
});

describe('sampleSchema: depth', () => {
  it('stops after 12 levels of nesting, so a recursive schema ends', () => {
    const doc = schemaDoc({ Node: { type: 'object', properties: { child: { $ref: '#/components/schemas/Node' } } } });
    let expected: Node = {};
    for (let level = 0; level < 12; level++) expected = { child: expected };
    expect(sampleSchema(doc, { $ref: '#/components/schemas/Node' })).toStrictEqual(expected);
  });

  it('samples at depth 12 and not at 13', () => {
    const doc = schemaDoc();
    expect(sampleSchema(doc, { type: 'string' }, 12)).toBe('');
    expect(sampleSchema(doc, { type: 'string' }, 13)).toBeUndefined();
  });

  it('counts one level for each property, item, branch and part', () => {
    const doc = schemaDoc();
    const leaf = { type: 'string' };
    expect(sampleSchema(doc, { type: 'object', properties: { a: leaf } }, 11)).toStrictEqual({ a: '' });
    expect(sampleSchema(doc, { type: 'object', properties: { a: leaf } }, 12)).toStrictEqual({});
    expect(sampleSchema(doc, { type: 'array', items: leaf }, 11)).toStrictEqual(['']);
    expect(sampleSchema(doc, { type: 'array', items: leaf }, 12)).toStrictEqual([]);
    expect(sampleSchema(doc, { oneOf: [leaf] }, 11)).toBe('');
    expect(sampleSchema(doc, { oneOf: [leaf] }, 12)).toBeUndefined();
    expect(sampleSchema(doc, { anyOf: [leaf] }, 12)).toBeUndefined();
    const part = { properties: { a: { example: 1 } } };
    expect(sampleSchema(doc, { allOf: [part] }, 10)).toStrictEqual({ a: 1 });
    expect(sampleSchema(doc, { allOf: [part] }, 11)).toStrictEqual({});
    expect(sampleSchema(doc, { allOf: [{ example: { b: 2 } }] }, 12)).toStrictEqual({});
  });
});

describe('exampleHeaders', () => {
  it("gives each header its example, else its schema's sample, as text", () => {
    const doc = schemaDoc({ Count: { type: 'integer', minimum: 1 } });
    doc.components!.headers = { RateLimit: { schema: { type: 'integer' }, example: 100 } };
    const response = {
      headers: {
        'X-Request-Id': { schema: { type: 'string', example: 'from-schema' }, example: 'from-header' },
        'X-Count': { schema: { $ref: '#/components/schemas/Count' } },
        'X-Rate-Limit': { $ref: '#/components/headers/RateLimit' },
        'X-Flag': { schema: { type: 'boolean' } },
        'X-Zero': { example: 0 },
        'X-Empty': { example: '' },
      },
    };
    expect(exampleHeaders(doc, response)).toStrictEqual({
      'X-Request-Id': 'from-header',
      'X-Count': '1',
      'X-Rate-Limit': '100',
      'X-Flag': 'true',
      'X-Zero': '0',
      'X-Empty': '',
    });
  });

  it('leaves out headers whose value is missing, null or not a scalar', () => {
    const doc = schemaDoc();
    const response = {
      headers: {
        'X-None': { description: 'no schema' },
        'X-Untyped': { schema: {} },
        'X-Null': { example: null },
        'X-Null-Type': { schema: { type: 'null' } },
        'X-Object': { example: { a: 1 } },
        'X-List': { schema: { type: 'array', items: { type: 'string' } } },
        'X-Kept': { example: 'kept' },
      },
    };
    expect(exampleHeaders(doc, response)).toStrictEqual({ 'X-Kept': 'kept' });
  });

  it('gives nothing for a response without headers', () => {
    expect(exampleHeaders(schemaDoc(), { description: 'x' })).toStrictEqual({});
  });

  it('names the header in the error when it cannot be resolved', () => {
    expect(() => exampleHeaders(schemaDoc(), { headers: { 'X-A': null } })).toThrow(/^unresolvable \$ref #\/header$/);
  });
});

describe('the project documents', () => {
  it('give every success response with content an example, and every declared code its own key', async () => {
    const docs = await loadDocuments();
    let checked = 0;
    for (const api of INTERFACES) {
      const doc = docs[api];
      for (const op of readOperations(api, doc)) {
        for (const key of op.responses.keys()) {
          if (/^\d{3}$/.test(key)) expect(responseKeyFor(op, Number(key))).toBe(key);
          if (!/^2\d\d$/.test(key)) continue;
          const response = responseObject(doc, op, key)!;
          for (const [type, media] of mediaOf(doc, response)) {
            const examples = mediaExamples(doc, media);
            expect(examples.length, `${op.operationId} ${key} ${type}`).toBeGreaterThan(0);
            checked++;
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});
