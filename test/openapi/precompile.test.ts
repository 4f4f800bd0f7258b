// src/openapi/precompile.ts: which schemas of a document `npm run build` precompiles, and the code
// and manifest it writes, which a SchemaSet then takes instead of compiling.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  SchemaSet,
  describeError,
  documentHash,
  pointer,
  precompiledFiles,
  type PrecompiledManifest,
} from '../../src/openapi/ajv.js';
import { PROJECT_ROOT, loadDocument, type OpenApiDocument } from '../../src/openapi/documents.js';
import { precompiledRefs, writePrecompiledValidators } from '../../src/openapi/precompile.js';

const requireHere = createRequire(import.meta.url);
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
// Under the project, as dist/openapi is: the generated code requires Ajv's runtime (ajv/dist/runtime/...).
const tempDir = () => {
  mkdirSync(join(PROJECT_ROOT, 'dist'), { recursive: true });
  const dir = mkdtempSync(join(PROJECT_ROOT, 'dist', 'precompile-test-'));
  dirs.push(dir);
  return dir;
};

const thing = pointer('paths', '/things/{id}');
const getThing = `${thing}/get`;
const putThing = `${thing}/put`;

/** A document with what the request pipeline and the harness validate: parameters, bodies, per-system bodies, responses. */
const doc = (): OpenApiDocument => ({
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/things/{id}': {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', pattern: '^t-' } }],
      get: {
        operationId: 'getThing',
        parameters: [
          { name: 'verbose', in: 'query', schema: { type: 'boolean' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' } },
        ],
        responses: {
          '200': {
            description: 'ok',
            headers: {
              'X-Rate': { schema: { type: 'integer' } },
              // A header described by content rather than a schema: no schema for Ajv at its ref.
              'X-Note': { content: { 'text/plain': { schema: { type: 'string' } } } },
            },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '204': { description: 'none' },
          '404': { description: 'no schema', content: { 'text/plain': {} } },
        },
      },
      put: {
        operationId: 'putThing',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: { anyOf: [{ $ref: '#/components/schemas/Slack' }, { type: 'object', 'x-system': 'mail' }] },
            },
          },
        },
        responses: {
          '200': {
            description: 'ok',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
        },
      },
    },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        required: ['id'],
        properties: { id: { type: 'string' }, size: { type: 'integer', minimum: 1 } },
        additionalProperties: false,
      },
      Slack: {
        type: 'object',
        'x-system': 'slack',
        required: ['channel'],
        properties: { channel: { type: 'string' } },
      },
      'A/B~C': { type: 'string', format: 'email' },
    },
  },
});

const schemasOf = {
  thing: pointer('components', 'schemas', 'Thing'),
  slack: pointer('components', 'schemas', 'Slack'),
  odd: pointer('components', 'schemas', 'A/B~C'),
};
const rate = `${getThing}/responses/200/headers/X-Rate/schema`;
const note = `${getThing}/responses/200/headers/X-Note/schema`;

describe('precompiledRefs', () => {
  it('lists the parameter, body and per-system schemas, every response body and header, and every component schema', () => {
    const refs = precompiledRefs('instance', doc());
    expect([...refs].sort()).toEqual(
      [
        `${thing}/parameters/0/schema`, // path parameter of the path item
        `${getThing}/parameters/0/schema`, // query parameter (not the header parameter)
        `${getThing}/responses/200/content/application~1json/schema`,
        rate,
        note,
        `${putThing}/requestBody/content/application~1json/schema`,
        `${putThing}/requestBody/content/application~1json/schema/anyOf/1`, // the inline branch of system mail
        `${putThing}/responses/200/content/application~1json/schema`,
        schemasOf.thing,
        schemasOf.slack, // also the branch of system slack
        schemasOf.odd,
      ].sort(),
    );
    expect(new Set(refs).size).toBe(refs.length);
  });

  it('needs no components', () => {
    const { components: _components, ...noComponents } = doc();
    const refs = precompiledRefs('instance', { ...noComponents, paths: {} });
    expect(refs).toEqual([]);
  });
});

describe('writePrecompiledValidators', () => {
  it('writes code exporting a validator per schema Ajv can reach, and a manifest stamped with the hash', async () => {
    const d = doc();
    const dir = join(tempDir(), 'dist', 'openapi'); // made as needed
    const n = await writePrecompiledValidators('instance', d, dir);
    const files = precompiledFiles('instance', dir);
    const text = readFileSync(files.manifest, 'utf8');
    expect(text.endsWith('}\n')).toBe(true);
    const manifest = JSON.parse(text) as PrecompiledManifest;
    expect(manifest.hash).toBe(documentHash(d));
    // Every ref but the header without a schema.
    expect(Object.keys(manifest.exports).sort()).toEqual(
      precompiledRefs('instance', d)
        .filter((r) => r !== note)
        .sort(),
    );
    expect(n).toBe(Object.keys(manifest.exports).length);
    expect(readFileSync(files.code, 'utf8')).toMatch(/^\/\/ Generated by npm run build .* Do not edit\.\n/);
    const code = requireHere(files.code) as Record<string, (v: unknown) => boolean>;
    const exported = Object.values(manifest.exports);
    expect(new Set(exported).size).toBe(exported.length);
    for (const name of exported) expect(code[name], name).toBeTypeOf('function');
    // Each export validates its own schema.
    const v = (ref: string) => code[manifest.exports[ref]!]!;
    expect(v(rate)(3)).toBe(true);
    expect(v(rate)('3')).toBe(false);
    expect(v(schemasOf.odd)('a@b.example')).toBe(true);
    expect(v(schemasOf.odd)('not an email')).toBe(false);
    expect(v(`${thing}/parameters/0/schema`)('t-1')).toBe(true);
    expect(v(`${thing}/parameters/0/schema`)('x-1')).toBe(false);
  });

  it('gives a SchemaSet the validators it writes, which validate as Ajv does', async () => {
    const d = doc();
    const dir = tempDir();
    await writePrecompiledValidators('instance', d, dir);
    const code = requireHere(precompiledFiles('instance', dir).code) as Record<string, unknown>;
    const { exports } = JSON.parse(
      readFileSync(precompiledFiles('instance', dir).manifest, 'utf8'),
    ) as PrecompiledManifest;
    const precompiled = new SchemaSet({ instance: d }, { precompiledDir: dir });
    const compiled = new SchemaSet({ instance: d }, { precompiled: false });
    const body = `${putThing}/requestBody/content/application~1json/schema`;
    expect(precompiled.validator('instance', schemasOf.thing)).toBe(code[exports[schemasOf.thing]!]);
    expect(precompiled.validator('instance', body)).toBe(code[exports[body]!]);
    const cases: [string, unknown][] = [
      [schemasOf.thing, { id: 'a', size: 2 }],
      [schemasOf.thing, { id: 'a', size: 0 }],
      [schemasOf.thing, { size: 2 }],
      [schemasOf.thing, { id: 'a', extra: 1 }],
      [body, { channel: '#ops' }],
      [body, 'text'],
    ];
    for (const [ref, value] of cases) {
      const a = compiled.validator('instance', ref);
      const b = precompiled.validator('instance', ref);
      expect(b(value), JSON.stringify(value)).toBe(a(value));
      expect(
        b.errors?.map((e) => describeError(e)),
        JSON.stringify(value),
      ).toEqual(a.errors?.map((e) => describeError(e)));
    }
  });

  it('precompiles the bundled instance document', async () => {
    const d = await loadDocument('instance');
    const dir = tempDir();
    const n = await writePrecompiledValidators('instance', d, dir);
    expect(n).toBeGreaterThan(Object.keys(d.components?.schemas ?? {}).length);
    expect(existsSync(precompiledFiles('instance', dir).code)).toBe(true);
    const set = new SchemaSet({ instance: d }, { precompiledDir: dir });
    const createAlarm = pointer('components', 'schemas', 'CreateAlarm');
    const { exports } = JSON.parse(
      readFileSync(precompiledFiles('instance', dir).manifest, 'utf8'),
    ) as PrecompiledManifest;
    const v = set.validator('instance', createAlarm);
    expect(v).toBe(
      (requireHere(precompiledFiles('instance', dir).code) as Record<string, unknown>)[exports[createAlarm]!],
    );
    expect(v({ type: 'notice' })).toBe(true);
    expect(v({ type: 'gpu' })).toBe(false);
  });
});
