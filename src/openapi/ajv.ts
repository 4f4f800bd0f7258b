// One JSON Schema (2020-12) validator factory for the OpenAPI 3.1 documents, used by the server's
// request validation and by the contract harness's response checks. A whole bundled document is
// added under a URN, so any schema in it is compiled by JSON pointer and its internal
// `#/components/...` references resolve without copying.
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { InterfaceName, OpenApiDocument } from './documents.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

export const documentUri = (name: InterfaceName) => `urn:tusk:${name}`;

/** Escapes one JSON pointer segment. */
export const pointerSegment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
export const pointer = (...segments: string[]) => '#/' + segments.map(pointerSegment).join('/');

export class SchemaSet {
  readonly ajv: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();

  constructor(readonly documents: Partial<Record<InterfaceName, OpenApiDocument>>) {
    this.ajv = new Ajv2020({
      strict: false, // the documents carry OpenAPI keywords (example, x-*) that are not JSON Schema
      allErrors: false,
      discriminator: true,
      validateFormats: true,
      verbose: false,
    });
    addFormats(this.ajv);
    for (const [name, doc] of Object.entries(documents)) {
      if (doc) this.ajv.addSchema({ ...withoutDiscriminatorMappings(doc), $id: documentUri(name as InterfaceName) } as object);
    }
  }

  /** A validator for the schema at `ref` (a JSON pointer fragment like `#/paths/...`) of a document. Compiled once. */
  validator(name: InterfaceName, ref: string): ValidateFunction {
    const key = documentUri(name) + ref;
    let fn = this.cache.get(key);
    if (!fn) {
      fn = this.ajv.compile({ $ref: key });
      this.cache.set(key, fn);
    }
    return fn;
  }
}

/**
 * A copy of the document without `discriminator.mapping`: the documents keep the mappings for
 * code generators, Ajv's discriminator reads the `const` of each oneOf branch and refuses mappings.
 */
function withoutDiscriminatorMappings<T>(node: T): T {
  if (Array.isArray(node)) return node.map(withoutDiscriminatorMappings) as T;
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'discriminator' && v && typeof v === 'object' && 'mapping' in v) {
      const { mapping: _mapping, ...rest } = v as Record<string, unknown>;
      out[k] = rest;
    } else out[k] = withoutDiscriminatorMappings(v);
  }
  return out as T;
}

/** The field an ajv error is about, as a dotted path (`recipients.1`), or undefined for the whole value. */
export function errorField(err: ErrorObject): string | undefined {
  const base = err.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required' && typeof params.missingProperty === 'string') base.push(params.missingProperty);
  if (err.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') base.push(params.additionalProperty);
  if (err.keyword === 'dependentRequired' && typeof params.missingProperty === 'string') base.push(params.missingProperty);
  if (err.keyword === 'discriminator' && typeof params.tag === 'string') base.push(params.tag);
  return base.length ? base.join('.') : undefined;
}

/** A sentence naming the field and the rule it broke. */
export function describeError(err: ErrorObject, where?: string): string {
  const field = errorField(err);
  const params = err.params as Record<string, unknown>;
  let rule: string;
  switch (err.keyword) {
    case 'required':
      rule = 'is required';
      break;
    case 'additionalProperties':
      rule = 'is not an accepted field here';
      break;
    case 'enum':
      rule = `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
      break;
    case 'const':
      rule = `must be ${JSON.stringify(params.allowedValue)}`;
      break;
    case 'format':
      rule = `must be a valid ${String(params.format)}`;
      break;
    case 'pattern':
      rule = `must match the form ${String(params.pattern)}`;
      break;
    case 'discriminator':
      // params.error is 'tag' (missing or not a string) or 'mapping' (a value no branch has).
      rule = params.error === 'mapping' ? `${JSON.stringify(params.tagValue)} is not one of the accepted values` : 'is required and must be a string';
      break;
    default:
      rule = err.message ?? err.keyword;
  }
  const subject = [where, field].filter(Boolean).join(' ');
  return subject ? `${subject}: ${rule}` : rule;
}
