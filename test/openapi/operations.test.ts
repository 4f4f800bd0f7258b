// src/openapi/operations.ts: local $ref resolution, the operation table read from a document, and the
// response declared for a status. readOperations memoizes per document object, so every test reads
// a fresh document in its own body.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocuments, type OpenApiDocument } from '../../src/openapi/documents.js';
import { declaredResponse, readOperations, resolveLocal, type OperationInfo } from '../../src/openapi/operations.js';

const THINGS = '#/paths/~1things~1{id}';

/** A small document reaching the branches the project's own documents do not all show. */
const sampleDoc = (): OpenApiDocument => ({
  openapi: '3.1.0',
  info: { title: 'sample', version: '1' },
  paths: {
    '/things/{id}': {
      parameters: [
        { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        { $ref: '#/components/parameters/Limit' },
      ],
      get: {
        operationId: 'getThing',
        parameters: [
          // Overrides the path-level `id` (same name and location), at its place.
          { name: 'id', in: 'path', required: true, schema: { $ref: '#/components/schemas/Id' } },
          // Same name as the path-level `limit` but another location: both are kept.
          { name: 'limit', in: 'header', schema: { type: 'string' } },
          // Same location as `limit` but another name: added.
          { name: 'offset', in: 'query', required: false, schema: { type: 'integer', minimum: 0 } },
        ],
        responses: {
          '200': {
            description: 'the thing',
            headers: {
              'X~Rate/Limit': { required: true, schema: { type: 'integer' } },
              'X-Optional': { $ref: '#/components/headers/Optional' },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': { description: 'no such thing' },
          '4XX': { $ref: '#/components/responses/Error' },
          default: { description: 'anything else' },
        },
      },
      post: {
        operationId: 'postThing',
        requestBody: {
          required: true,
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/Thing' } },
            'application/x-www-form-urlencoded': {
              schema: { type: 'object' },
              encoding: {
                tags: { contentType: 'application/json; charset=utf-8' },
                note: { contentType: 'text/plain' },
                file: {},
              },
            },
            'application/vnd.a~b+json': { schema: { type: 'string' } },
            'text/plain': {},
          },
        },
        responses: { '201': { description: 'created' } },
      },
      put: {
        operationId: 'putThing',
        requestBody: { $ref: '#/components/requestBodies/OptionalThing' },
        responses: { '200': { $ref: '#/components/responses/Ok' } },
      },
    },
    '/plain': {
      delete: { operationId: 'deletePlain' },
    },
  },
  components: {
    schemas: {
      Id: { type: 'string', pattern: '^[a-z]+$' },
      Thing: { type: 'object', properties: { id: { $ref: '#/components/schemas/Id' } } },
    },
    parameters: {
      Limit: { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 100 } },
    },
    headers: {
      Optional: { schema: { type: 'string' } },
    },
    requestBodies: {
      OptionalThing: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } },
    },
    responses: {
      Error: { description: 'error', content: { 'application/json': { schema: { type: 'object' } } } },
      Ok: { description: 'ok', headers: { 'X-Req': { required: true, schema: { type: 'string' } } } },
    },
  },
});

const op = (ops: OperationInfo[], operationId: string): OperationInfo => {
  const found = ops.find((o) => o.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  return found;
};

describe('resolveLocal', () => {
  it('returns a node that is not a $ref as it is, with the given pointer', () => {
    const doc = sampleDoc();
    const node = { type: 'string' };
    expect(resolveLocal(doc, node, '#/here')).toEqual({ node, ref: '#/here' });
  });

  it('follows a chain of local $refs, undoing ~1 and ~0 in the pointer', () => {
    const doc = sampleDoc();
    doc.components!.schemas!['a/b~c'] = { $ref: '#/components/schemas/Id' };
    const resolved = resolveLocal(doc, { $ref: '#/components/schemas/a~1b~0c' }, '#/start');
    expect(resolved.node).toBe(doc.components!.schemas!.Id);
    expect(resolved.ref).toBe('#/components/schemas/Id');
  });

  it('stops a $ref loop after 32 hops, naming where', () => {
    const doc = sampleDoc();
    doc.components!.schemas!.Loop = { $ref: '#/components/schemas/Loop' };
    expect(() => resolveLocal(doc, { $ref: '#/components/schemas/Loop' }, '#/start')).toThrow(
      '$ref loop at #/components/schemas/Loop',
    );
  });

  it('refuses a $ref into another file', () => {
    expect(() => resolveLocal(sampleDoc(), { $ref: 'other.yaml#/schemas/X' }, '#/start')).toThrow(
      'only local $refs are expected in a bundled document, got other.yaml#/schemas/X',
    );
  });

  it('names a $ref that leads nowhere, or the pointer of a missing node', () => {
    const doc = sampleDoc();
    expect(() => resolveLocal(doc, { $ref: '#/components/schemas/Missing' }, '#/start')).toThrow(
      'unresolvable $ref #/components/schemas/Missing',
    );
    expect(() => resolveLocal(doc, { $ref: '#/nowhere/at/all' }, '#/start')).toThrow(
      'unresolvable $ref #/nowhere/at/all',
    );
    expect(() => resolveLocal(doc, undefined, '#/paths/~1x/get/parameters/0/schema')).toThrow(
      'unresolvable $ref #/paths/~1x/get/parameters/0/schema',
    );
  });
});

describe('readOperations', () => {
  it('lists every operation of every path with its method, path, Hono route path and raw object', () => {
    const doc = sampleDoc();
    const ops = readOperations('customer', doc);
    expect(ops.map((o) => [o.operationId, o.method, o.path, o.routePath, o.api])).toEqual([
      ['getThing', 'get', '/things/{id}', '/things/:id', 'customer'],
      ['putThing', 'put', '/things/{id}', '/things/:id', 'customer'],
      ['postThing', 'post', '/things/{id}', '/things/:id', 'customer'],
      ['deletePlain', 'delete', '/plain', '/plain', 'customer'],
    ]);
    expect(op(ops, 'getThing').raw).toBe(doc.paths['/things/{id}']!.get);
  });

  it('merges path-level and operation-level parameters, the operation one replacing by name and location', () => {
    const doc = sampleDoc();
    const get = op(readOperations('customer', doc), 'getThing');
    expect(get.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schemaRef: `${THINGS}/get/parameters/0/schema`,
        schema: { type: 'string', pattern: '^[a-z]+$' },
      },
      {
        name: 'limit',
        in: 'query',
        required: false,
        schemaRef: '#/components/parameters/Limit/schema',
        schema: { type: 'integer', maximum: 100 },
      },
      {
        name: 'limit',
        in: 'header',
        required: false,
        schemaRef: `${THINGS}/get/parameters/1/schema`,
        schema: { type: 'string' },
      },
      {
        name: 'offset',
        in: 'query',
        required: false,
        schemaRef: `${THINGS}/get/parameters/2/schema`,
        schema: { type: 'integer', minimum: 0 },
      },
    ]);
    // Path-level parameters alone, for an operation declaring none.
    expect(op(readOperations('customer', doc), 'postThing').parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schemaRef: `${THINGS}/parameters/0/schema`,
        schema: { type: 'string' },
      },
      {
        name: 'limit',
        in: 'query',
        required: false,
        schemaRef: '#/components/parameters/Limit/schema',
        schema: { type: 'integer', maximum: 100 },
      },
    ]);
    expect(op(readOperations('customer', doc), 'deletePlain').parameters).toEqual([]);
  });

  it('names the pointer of a parameter without a schema', () => {
    const doc = sampleDoc();
    doc.paths['/plain']!.delete = { operationId: 'deletePlain', parameters: [{ name: 'q', in: 'query' }] };
    expect(() => readOperations('customer', doc)).toThrow(
      'unresolvable $ref #/paths/~1plain/delete/parameters/0/schema',
    );
  });

  it('reads the request body: required flag, and per media type its schema, pointer and JSON form fields', () => {
    const doc = sampleDoc();
    const ops = readOperations('customer', doc);
    const thing = doc.components!.schemas!.Thing;
    expect(op(ops, 'postThing').body).toEqual({
      required: true,
      media: [
        {
          mediaType: 'application/json',
          schemaRef: `${THINGS}/post/requestBody/content/application~1json/schema`,
          schema: thing,
          jsonFields: [],
        },
        {
          mediaType: 'application/x-www-form-urlencoded',
          schemaRef: `${THINGS}/post/requestBody/content/application~1x-www-form-urlencoded/schema`,
          schema: { type: 'object' },
          jsonFields: ['tags'],
        },
        {
          mediaType: 'application/vnd.a~b+json',
          schemaRef: `${THINGS}/post/requestBody/content/application~1vnd.a~0b+json/schema`,
          schema: { type: 'string' },
          jsonFields: [],
        },
        { mediaType: 'text/plain', jsonFields: [] },
      ],
    });
    const textPlain = op(ops, 'postThing').body!.media[3]!;
    expect('schemaRef' in textPlain).toBe(false);
    expect('schema' in textPlain).toBe(false);
    // A body behind a $ref, without `required`: optional, its pointers under the component.
    expect(op(ops, 'putThing').body).toEqual({
      required: false,
      media: [
        {
          mediaType: 'application/json',
          schemaRef: '#/components/requestBodies/OptionalThing/content/application~1json/schema',
          schema: thing,
          jsonFields: [],
        },
      ],
    });
    expect(op(ops, 'getThing').body).toBeUndefined();
  });

  it('reads the responses by status, with content and headers (required flag and schema pointer)', () => {
    const doc = sampleDoc();
    const ops = readOperations('instance', doc);
    const get = op(ops, 'getThing');
    expect([...get.responses.keys()]).toEqual(['200', '404', '4XX', 'default']);
    expect(get.responses.get('200')).toEqual({
      status: '200',
      content: [
        {
          mediaType: 'application/json',
          schemaRef: `${THINGS}/get/responses/200/content/application~1json/schema`,
          schema: doc.components!.schemas!.Thing,
          jsonFields: [],
        },
      ],
      headers: [
        {
          name: 'X~Rate/Limit',
          required: true,
          schemaRef: `${THINGS}/get/responses/200/headers/X~0Rate~1Limit/schema`,
        },
        { name: 'X-Optional', required: false, schemaRef: '#/components/headers/Optional/schema' },
      ],
    });
    expect(get.responses.get('404')).toEqual({ status: '404', content: [], headers: [] });
    expect(get.responses.get('4XX')).toEqual({
      status: '4XX',
      content: [
        {
          mediaType: 'application/json',
          schemaRef: '#/components/responses/Error/content/application~1json/schema',
          schema: { type: 'object' },
          jsonFields: [],
        },
      ],
      headers: [],
    });
    expect(op(ops, 'putThing').responses.get('200')).toEqual({
      status: '200',
      content: [],
      headers: [{ name: 'X-Req', required: true, schemaRef: '#/components/responses/Ok/headers/X-Req/schema' }],
    });
    expect(op(ops, 'deletePlain').responses.size).toBe(0);
  });

  it('reads a document once: a fresh array each call, holding the same operation objects', () => {
    const doc = sampleDoc();
    const first = readOperations('customer', doc);
    first.pop();
    const second = readOperations('customer', doc);
    expect(second).not.toBe(first);
    expect(second).toHaveLength(4);
    expect(second[0]).toBe(first[0]);
    // Another interface name is another table of the same document.
    const other = readOperations('instance', doc);
    expect(other[0]).not.toBe(first[0]);
    expect(other[0]!.api).toBe('instance');
    expect(readOperations('instance', doc)[0]).toBe(other[0]);
    // Another document object is read again.
    expect(readOperations('customer', sampleDoc())[0]).not.toBe(first[0]);
  });
});

describe('declaredResponse', () => {
  it('is the exact status, then its range like 4XX, then default', () => {
    const get = op(readOperations('customer', sampleDoc()), 'getThing');
    expect(declaredResponse(get, 200)?.status).toBe('200');
    expect(declaredResponse(get, 404)?.status).toBe('404');
    expect(declaredResponse(get, 400)?.status).toBe('4XX');
    expect(declaredResponse(get, 500)?.status).toBe('default');
    expect(declaredResponse(get, 201)?.status).toBe('default');
  });

  it('is undefined when neither the status, its range nor default is declared', () => {
    const post = op(readOperations('customer', sampleDoc()), 'postThing');
    expect(declaredResponse(post, 201)?.status).toBe('201');
    expect(declaredResponse(post, 200)).toBeUndefined();
    expect(declaredResponse(post, 400)).toBeUndefined();
  });
});

describe('readOperations on the project documents', () => {
  let docs: Record<'customer' | 'instance', OpenApiDocument>;
  beforeAll(async () => {
    docs = await loadDocuments();
  });

  it('reads createAlarm: a required body in JSON or form encoding, recipients written as JSON in forms', () => {
    const doc = structuredClone(docs.instance);
    const createAlarm = op(readOperations('instance', doc), 'createAlarm');
    expect(createAlarm.method).toBe('post');
    expect(createAlarm.routePath).toBe('/api/alarms');
    expect(createAlarm.body?.required).toBe(true);
    expect(createAlarm.body?.media.map((m) => [m.mediaType, m.jsonFields])).toEqual([
      ['application/json', []],
      ['application/x-www-form-urlencoded', ['recipients']],
    ]);
    expect(createAlarm.body?.media[0]?.schemaRef).toBe(
      '#/paths/~1api~1alarms/post/requestBody/content/application~1json/schema',
    );
    expect(createAlarm.body?.media[0]?.schema).toHaveProperty('discriminator');
    expect(declaredResponse(createAlarm, 204)?.content).toEqual([]);
    expect(declaredResponse(createAlarm, 400)?.status).toBe('400');
  });

  it('reads every operation of both documents with a unique operationId', () => {
    for (const name of ['customer', 'instance'] as const) {
      const ops = readOperations(name, structuredClone(docs[name]));
      expect(ops.length).toBeGreaterThan(5);
      expect(new Set(ops.map((o) => o.operationId)).size).toBe(ops.length);
      for (const o of ops) {
        expect(o.api).toBe(name);
        for (const p of o.parameters) expect(p.schemaRef).toMatch(/^#\/.+\/schema$/);
      }
    }
  });
});
