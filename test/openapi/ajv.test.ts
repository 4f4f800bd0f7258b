// src/openapi/ajv.ts: the validators compiled from the documents, the precompiled ones a SchemaSet
// takes instead (only when their manifest matches the document), and how an Ajv error becomes the
// field and rule of a 400.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_DIR, loadDocuments, type OpenApiDocument } from '../../src/openapi/documents.js';
import {
  SchemaSet,
  createAjv,
  describeError,
  documentHash,
  documentUri,
  errorField,
  pointer,
  precompiledFiles,
  type PrecompiledManifest,
} from '../../src/openapi/ajv.js';

const error = (keyword: string, instancePath: string, params: Record<string, unknown>, message?: string): ErrorObject =>
  ({ keyword, instancePath, schemaPath: '#', params, ...(message !== undefined ? { message } : {}) }) as ErrorObject;

describe('errorField', () => {
  it('is the instance path as a dotted path, JSON pointer escapes undone', () => {
    expect(errorField(error('type', '/recipients/1', { type: 'string' }))).toBe('recipients.1');
    expect(errorField(error('type', '/a~1b/c~0d', { type: 'string' }))).toBe('a/b.c~d');
    expect(errorField(error('type', '', { type: 'object' }))).toBeUndefined();
  });

  it('adds the property a required, additionalProperties, dependentRequired or discriminator error names', () => {
    expect(errorField(error('required', '/options', { missingProperty: 'url' }))).toBe('options.url');
    expect(errorField(error('additionalProperties', '', { additionalProperty: 'extra' }))).toBe('extra');
    expect(
      errorField(error('dependentRequired', '', { property: 'a', missingProperty: 'b', deps: 'b', depsCount: 1 })),
    ).toBe('b');
    expect(errorField(error('discriminator', '', { error: 'tag', tag: 'type', tagValue: 7 }))).toBe('type');
    // Other keywords' params are not fields.
    expect(
      errorField(
        error('enum', '/type', { allowedValues: ['a'], missingProperty: 'no', additionalProperty: 'no', tag: 'no' }),
      ),
    ).toBe('type');
    // Only a string names a field.
    expect(errorField(error('required', '', { missingProperty: 3 }))).toBeUndefined();
    expect(errorField(error('additionalProperties', '/a', { additionalProperty: 3 }))).toBe('a');
    expect(errorField(error('dependentRequired', '/a', { property: 'b' }))).toBe('a');
    expect(errorField(error('discriminator', '/a', { error: 'tag' }))).toBe('a');
  });
});

describe('describeError', () => {
  it('names the field and the rule it broke, after `where`', () => {
    expect(describeError(error('required', '', { missingProperty: 'type' }), 'body')).toBe('body type: is required');
    expect(describeError(error('additionalProperties', '', { additionalProperty: 'x' }))).toBe(
      'x: is not an accepted field here',
    );
    expect(describeError(error('enum', '/type', { allowedValues: ['cpu', 'disk'] }))).toBe(
      'type: must be one of "cpu", "disk"',
    );
    expect(describeError(error('const', '/action', { allowedValue: 'pit' }))).toBe('action: must be "pit"');
    expect(describeError(error('format', '/email', { format: 'email' }))).toBe('email: must be a valid email');
    expect(describeError(error('pattern', '/url', { pattern: '^a$' }))).toBe('url: must match the form ^a$');
    expect(describeError(error('discriminator', '', { error: 'mapping', tag: 'type', tagValue: 'gpu' }))).toBe(
      'type: "gpu" is not one of the accepted values',
    );
    expect(describeError(error('discriminator', '', { error: 'tag', tag: 'type', tagValue: 7 }))).toBe(
      'type: is required and must be a string',
    );
    expect(describeError(error('maximum', '/n', { limit: 3 }, 'must be <= 3'))).toBe('n: must be <= 3');
    expect(describeError(error('not', '', {}))).toBe('not');
  });
});

describe('SchemaSet', () => {
  let docs: Record<'customer' | 'instance', OpenApiDocument>;
  beforeAll(async () => {
    docs = await loadDocuments();
  });
  const createAlarm = pointer('components', 'schemas', 'CreateAlarm');
  const cases: [unknown, boolean][] = [
    [{ type: 'cpu', value_threshold: 80, time_threshold: 300 }, true],
    [{ type: 'notice' }, true],
    [{ type: 'gpu' }, false],
    [{ value_threshold: 80 }, false],
    [{ type: 'cpu', value_threshold: 101, time_threshold: 300 }, false],
    // The schema names no other field, but takes them (the request-body convention ignores them before validation).
    [{ type: 'notice', extra: 1 }, true],
    [{ type: 'cpu', value_threshold: 80, time_threshold: 0 }, false],
  ];

  it('compiles the documents with Ajv when asked not to use the precompiled validators, and both agree', () => {
    const compiled = new SchemaSet(docs, { precompiled: false });
    const precompiled = new SchemaSet(docs);
    for (const [value, valid] of cases) {
      const a = compiled.validator('instance', createAlarm);
      const b = precompiled.validator('instance', createAlarm);
      expect(a(value), JSON.stringify(value)).toBe(valid);
      expect(b(value), JSON.stringify(value)).toBe(valid);
      expect(
        a.errors?.map((e) => describeError(e)),
        JSON.stringify(value),
      ).toEqual(b.errors?.map((e) => describeError(e)));
    }
  });

  it('reads the discriminator without its mapping (which Ajv refuses) and names the tag', () => {
    const v = new SchemaSet(docs, { precompiled: false }).validator('instance', createAlarm);
    expect(v({ type: 'gpu' })).toBe(false);
    expect(v.errors!.map((e) => describeError(e))).toEqual(['type: "gpu" is not one of the accepted values']);
    // The document itself keeps its mappings (for code generators).
    expect(JSON.stringify(docs.instance)).toContain('"mapping"');
  });

  it('compiles each schema once', () => {
    const set = new SchemaSet(docs, { precompiled: false });
    expect(set.validator('instance', createAlarm)).toBe(set.validator('instance', createAlarm));
    expect(set.ajv).toBe(set.ajv);
  });

  it('names documents by URN', () => {
    expect(documentUri('customer')).toBe('urn:tusk:customer');
    expect(pointer('paths', '/api/alarms/{id}')).toBe('#/paths/~1api~1alarms~1{id}');
    expect(pointer('a~b')).toBe('#/a~0b');
  });
});

describe('createAjv', () => {
  const small = (schemas: Record<string, unknown>): OpenApiDocument => ({
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {},
    components: { schemas },
  });

  it('adds each document given under its URN, and skips one given as undefined', () => {
    const ajv = createAjv({ instance: small({ N: { type: 'integer' } }), customer: undefined });
    expect(ajv.getSchema(documentUri('instance'))).toBeTypeOf('function');
    expect(ajv.getSchema(documentUri('customer'))).toBeUndefined();
  });

  it('drops only the mapping of a discriminator: a property named mapping and data named discriminator stay', () => {
    const doc = small({
      Settings: { type: 'object', properties: { mapping: { type: 'string' } } },
      Tagged: { const: { discriminator: 'cpu' } },
      Alarm: {
        type: 'object',
        required: ['kind'],
        discriminator: { propertyName: 'kind', mapping: { a: '#/components/schemas/A' } },
        oneOf: [{ $ref: '#/components/schemas/A' }],
      },
      A: { type: 'object', properties: { kind: { const: 'a' } } },
    });
    const ajv = createAjv({ instance: doc });
    const v = (name: string) => ajv.getSchema(documentUri('instance') + pointer('components', 'schemas', name))!;
    expect(v('Settings')({ mapping: 'x' })).toBe(true);
    expect(v('Settings')({ mapping: 5 })).toBe(false);
    expect(v('Tagged')({ discriminator: 'cpu' })).toBe(true);
    expect(v('Tagged')({ discriminator: 'gpu' })).toBe(false);
    expect(v('Alarm')({ kind: 'a' })).toBe(true);
    expect(v('Alarm')({ kind: 'b' })).toBe(false);
    // The document given keeps its mapping.
    expect((doc.components!.schemas!.Alarm as { discriminator: object }).discriminator).toHaveProperty('mapping');
  });
});

describe('precompiled validators', () => {
  // A small document and a hand-written precompiled pair whose validator is recognisably not the one
  // Ajv compiles from the document: it accepts anything.
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {},
    components: { schemas: { Count: { type: 'integer' }, Name: { type: 'string' }, Flag: { type: 'boolean' } } },
  };
  const count = pointer('components', 'schemas', 'Count');
  const name = pointer('components', 'schemas', 'Name');
  const flag = pointer('components', 'schemas', 'Flag');
  const CODE = "exports.v0 = function acceptsAnything() { return true; };\nexports.v1 = 'not a function';\n";
  const requireHere = createRequire(import.meta.url);
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  /** Writes the pair for the instance document into a new folder; returns the folder. */
  function writePair({
    hash = documentHash(doc),
    code = true,
    manifest = true,
  }: { hash?: string; code?: boolean; manifest?: boolean } = {}): string {
    const dir = mkdtempSync(join(tmpdir(), 'tusk-precompiled-'));
    dirs.push(dir);
    const files = precompiledFiles('instance', dir);
    const m: PrecompiledManifest = { hash, exports: { [count]: 'v0', [name]: 'v1', [flag]: 'v9' } };
    if (manifest) writeFileSync(files.manifest, JSON.stringify(m));
    if (code) writeFileSync(files.code, CODE);
    return dir;
  }
  /** Whether the set's Count validator is Ajv's (rejects a string) rather than the precompiled one. */
  const compiledCount = (set: SchemaSet) => set.validator('instance', count)('seven') === false;

  it('names the code and manifest files of a document, in dist/openapi by default', () => {
    expect(precompiledFiles('instance', '/x')).toEqual({
      code: join('/x', 'instance.validators.cjs'),
      manifest: join('/x', 'instance.validators.json'),
    });
    expect(precompiledFiles('customer')).toEqual({
      code: join(BUNDLE_DIR, 'customer.validators.cjs'),
      manifest: join(BUNDLE_DIR, 'customer.validators.json'),
    });
  });

  it('stamps a document with the sha-256 of its JSON', () => {
    expect(documentHash(doc)).toMatch(/^[0-9a-f]{64}$/);
    expect(documentHash(structuredClone(doc))).toBe(documentHash(doc));
    expect(documentHash({ ...doc, info: { title: 't', version: '2' } })).not.toBe(documentHash(doc));
  });

  it("takes the functions the code exports when the manifest carries the document's hash", () => {
    const dir = writePair();
    const set = new SchemaSet({ instance: doc }, { precompiledDir: dir });
    const code = requireHere(precompiledFiles('instance', dir).code) as Record<string, unknown>;
    expect(set.validator('instance', count)).toBe(code.v0);
    expect(compiledCount(set)).toBe(false);
    // An export that is not a function, or is missing, is compiled with Ajv instead.
    const n = set.validator('instance', name);
    expect(n).toBeTypeOf('function');
    expect(n('x')).toBe(true);
    expect(n(3)).toBe(false);
    expect(set.validator('instance', flag)(1)).toBe(false);
    // The validators are the document's: another document's URN is compiled.
    expect(new SchemaSet({ customer: doc }, { precompiledDir: dir }).validator('customer', count)('seven')).toBe(false);
  });

  it('compiles with Ajv when the manifest was made from another document', () => {
    const dir = writePair({ hash: documentHash({ ...doc, info: { title: 't', version: '2' } }) });
    expect(compiledCount(new SchemaSet({ instance: doc }, { precompiledDir: dir }))).toBe(true);
  });

  it('compiles with Ajv when asked to, even with matching files', () => {
    const dir = writePair();
    expect(compiledCount(new SchemaSet({ instance: doc }, { precompiledDir: dir, precompiled: false }))).toBe(true);
    expect(compiledCount(new SchemaSet({ instance: doc }, { precompiledDir: dir, precompiled: true }))).toBe(false);
  });

  it('compiles with Ajv when a file is missing or the manifest unreadable', () => {
    expect(compiledCount(new SchemaSet({ instance: doc }, { precompiledDir: writePair({ manifest: false }) }))).toBe(
      true,
    );
    expect(compiledCount(new SchemaSet({ instance: doc }, { precompiledDir: writePair({ code: false }) }))).toBe(true);
    // Only the code file itself counts, not another file `require` would resolve its name to.
    const dir = writePair({ code: false });
    writeFileSync(precompiledFiles('instance', dir).code + '.js', CODE);
    expect(compiledCount(new SchemaSet({ instance: doc }, { precompiledDir: dir }))).toBe(true);
    const broken = writePair();
    writeFileSync(precompiledFiles('instance', broken).manifest, '{ not json');
    expect(compiledCount(new SchemaSet({ instance: doc }, { precompiledDir: broken }))).toBe(true);
  });
});
