// src/openapi/ajv.ts: the validators compiled from the documents (also without the precompiled
// code npm run build writes), and how an Ajv error becomes the field and rule of a 400.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocuments, type OpenApiDocument } from '../../src/openapi/documents.js';
import { SchemaSet, describeError, documentUri, errorField, pointer } from '../../src/openapi/ajv.js';

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
    expect(errorField(error('dependentRequired', '', { property: 'a', missingProperty: 'b', deps: 'b', depsCount: 1 }))).toBe('b');
    expect(errorField(error('discriminator', '', { error: 'tag', tag: 'type', tagValue: 7 }))).toBe('type');
    // Other keywords' params are not fields.
    expect(errorField(error('enum', '/type', { allowedValues: ['a'], missingProperty: 'no' }))).toBe('type');
    expect(errorField(error('required', '', { missingProperty: 3 }))).toBeUndefined();
  });
});

describe('describeError', () => {
  it('names the field and the rule it broke, after `where`', () => {
    expect(describeError(error('required', '', { missingProperty: 'type' }), 'body')).toBe('body type: is required');
    expect(describeError(error('additionalProperties', '', { additionalProperty: 'x' }))).toBe('x: is not an accepted field here');
    expect(describeError(error('enum', '/type', { allowedValues: ['cpu', 'disk'] }))).toBe('type: must be one of "cpu", "disk"');
    expect(describeError(error('const', '/action', { allowedValue: 'pit' }))).toBe('action: must be "pit"');
    expect(describeError(error('format', '/email', { format: 'email' }))).toBe('email: must be a valid email');
    expect(describeError(error('pattern', '/url', { pattern: '^a$' }))).toBe('url: must match the form ^a$');
    expect(describeError(error('discriminator', '', { error: 'mapping', tag: 'type', tagValue: 'gpu' }))).toBe('type: "gpu" is not one of the accepted values');
    expect(describeError(error('discriminator', '', { error: 'tag', tag: 'type', tagValue: 7 }))).toBe('type: is required and must be a string');
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
    [{ type: 'notice', extra: 1 }, false],
  ];

  it('compiles the documents with Ajv when asked not to use the precompiled validators, and both agree', () => {
    const compiled = new SchemaSet(docs, { precompiled: false });
    const precompiled = new SchemaSet(docs);
    for (const [value, valid] of cases) {
      const a = compiled.validator('instance', createAlarm);
      const b = precompiled.validator('instance', createAlarm);
      expect(a(value), JSON.stringify(value)).toBe(valid);
      expect(b(value), JSON.stringify(value)).toBe(valid);
      expect(a.errors?.map((e) => describeError(e)), JSON.stringify(value)).toEqual(b.errors?.map((e) => describeError(e)));
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
