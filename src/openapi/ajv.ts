// One JSON Schema (2020-12) validator factory for the OpenAPI 3.1 documents, used by the server's
// request validation and by the contract harness's response checks. A whole bundled document is
// added under a URN, so any schema in it is compiled by JSON pointer and its internal
// `#/components/...` references resolve without copying.
//
// Compiling is the slow part of start-up (about half a second for both documents), so
// `npm run build` also compiles every schema the server and the harness use into standalone code
// (dist/openapi/<name>.validators.cjs, see precompile.ts), stamped with a hash of the document: a
// SchemaSet takes those validators when the stamp matches the document it is given, and compiles
// anything else (a stale or missing file, a schema not in it) with Ajv on first use.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Ajv2020, ErrorObject, Options, ValidateFunction } from 'ajv/dist/2020.js';
import { BUNDLE_DIR, type InterfaceName, type OpenApiDocument } from './documents.js';

const requireHere = createRequire(import.meta.url);

/** Ajv and ajv-formats, loaded on first use (with precompiled validators, start-up needs neither). */
export function ajvModules(): { Ajv: typeof Ajv2020; addFormats: (ajv: Ajv2020) => Ajv2020 } {
  const { Ajv2020: Ajv } = requireHere('ajv/dist/2020.js') as { Ajv2020: typeof Ajv2020 };
  // ajv-formats is CommonJS with its function as the default export.
  const formats = requireHere('ajv-formats') as { default?: unknown };
  return { Ajv, addFormats: (formats.default ?? formats) as (ajv: Ajv2020) => Ajv2020 };
}

export const documentUri = (name: InterfaceName) => `urn:tusk:${name}`;

/** Escapes one JSON pointer segment. */
export const pointerSegment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
export const pointer = (...segments: string[]) => '#/' + segments.map(pointerSegment).join('/');

/** The Ajv options of every validator, compiled now or by `npm run build`. */
export const AJV_OPTIONS: Options = {
  strict: false, // the documents carry OpenAPI keywords (example, x-*) that are not JSON Schema
  allErrors: false,
  discriminator: true,
  validateFormats: true,
  verbose: false,
};

/** An Ajv instance holding the documents, each under its URN. */
export function createAjv(documents: Partial<Record<InterfaceName, OpenApiDocument>>, options: Options = {}): Ajv2020 {
  const { Ajv, addFormats } = ajvModules();
  const ajv = new Ajv({ ...AJV_OPTIONS, ...options });
  addFormats(ajv);
  for (const [name, doc] of Object.entries(documents)) {
    if (doc) ajv.addSchema({ ...withoutDiscriminatorMappings(doc), $id: documentUri(name as InterfaceName) } as object);
  }
  return ajv;
}

/** The stamp of a document's precompiled validators. */
export const documentHash = (doc: OpenApiDocument) => createHash('sha256').update(JSON.stringify(doc)).digest('hex');

/** Where `npm run build` writes a document's precompiled validators: code and manifest. */
export const precompiledFiles = (name: InterfaceName, dir = BUNDLE_DIR) => ({
  code: join(dir, `${name}.validators.cjs`),
  manifest: join(dir, `${name}.validators.json`),
});

/** What precompile.ts writes beside the code: the document's hash and the export of each schema ref. */
export interface PrecompiledManifest {
  hash: string;
  exports: Record<string, string>;
}

/** The precompiled validators of a document by ref, when the files exist and were made from this document. */
function loadPrecompiled(
  name: InterfaceName,
  doc: OpenApiDocument,
  dir?: string,
): Map<string, ValidateFunction> | undefined {
  const files = precompiledFiles(name, dir);
  if (!existsSync(files.manifest) || !existsSync(files.code)) return undefined;
  try {
    const manifest = JSON.parse(readFileSync(files.manifest, 'utf8')) as PrecompiledManifest;
    if (manifest.hash !== documentHash(doc)) return undefined;
    const code = requireHere(files.code) as Record<string, ValidateFunction>;
    const out = new Map<string, ValidateFunction>();
    for (const [ref, exported] of Object.entries(manifest.exports)) {
      const fn = code[exported];
      if (typeof fn === 'function') out.set(ref, fn);
    }
    return out;
  } catch {
    return undefined; // unreadable: compile instead
  }
}

export class SchemaSet {
  private compiler?: Ajv2020;
  private everyErrorCompiler?: Ajv2020;
  private readonly cache = new Map<string, ValidateFunction>();
  private readonly everyErrorCache = new Map<string, ValidateFunction>();

  constructor(
    readonly documents: Partial<Record<InterfaceName, OpenApiDocument>>,
    /** `precompiled: false` compiles everything with Ajv; `precompiledDir` is where the files are (default dist/openapi). */
    options: { precompiled?: boolean; precompiledDir?: string } = {},
  ) {
    if (options.precompiled === false) return;
    for (const [name, doc] of Object.entries(documents)) {
      const fns = doc && loadPrecompiled(name as InterfaceName, doc, options.precompiledDir);
      for (const [ref, fn] of fns ?? []) this.cache.set(documentUri(name as InterfaceName) + ref, fn);
    }
  }

  /** The Ajv instance holding the documents (made on first use: precompiled validators need none). */
  get ajv(): Ajv2020 {
    return (this.compiler ??= createAjv(this.documents));
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

  /**
   * The schema at `ref` compiled to report every error, not only the first (Ajv's allErrors), for
   * the reports that list every departure of a value (the proxy, the suite's response check). Slower
   * than `validator`: ask it only for a value `validator` refused. Compiled on first use.
   */
  everyError(name: InterfaceName, ref: string): ValidateFunction {
    const key = documentUri(name) + ref;
    let fn = this.everyErrorCache.get(key);
    if (!fn) {
      this.everyErrorCompiler ??= createAjv(this.documents, { allErrors: true });
      fn = this.everyErrorCompiler.compile({ $ref: key });
      this.everyErrorCache.set(key, fn);
    }
    return fn;
  }

  /** Every departure of a value from the schema at `ref` (none: it conforms), as `reportErrors` words them. */
  departuresOf(name: InterfaceName, ref: string, value: unknown, where: string, fieldPrefix?: string): ErrorReport[] {
    const validate = this.everyError(name, ref);
    return validate(value) ? [] : reportErrors(validate.errors ?? [], where, fieldPrefix);
  }
}

/** One departure of a value from its schema: the field (dotted), the rule (the schema keyword) and a sentence. */
export interface ErrorReport {
  field: string;
  rule: string;
  message: string;
}

/**
 * The errors of an allErrors validation, one report each, naming the field and the rule. An `if`
 * error only repeats its `then` branch's and is left out. Where an anyOf or a oneOf failed (one
 * without a discriminator; a discriminated oneOf reports its branch's errors as its own), its
 * branches are alternatives, not rules the value had to keep: the combination is one report,
 * worded as the stand-in words it where each alternative only requires a field ("a or b: at least
 * one of them is required"). A field is written after `fieldPrefix` when one is given
 * (`body.name`); `where` names the value when no field applies (`body: must be array`).
 */
export function reportErrors(errors: ErrorObject[], where: string, fieldPrefix?: string): ErrorReport[] {
  const combinations = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const branchesOf = (c: ErrorObject) => errors.filter((e) => e.schemaPath.startsWith(c.schemaPath + '/'));
  const out = new Map<string, ErrorReport>();
  const add = (f: string | undefined, rule: string, sentence: string) => {
    const field = f === undefined ? (fieldPrefix ?? where) : fieldPrefix ? `${fieldPrefix}.${f}` : f;
    const message =
      f === undefined ? `${where}: ${sentence}` : `${[fieldPrefix, f].filter(Boolean).join(' ')}: ${sentence}`;
    out.set(`${field} ${rule} ${message}`, { field, rule, message });
  };
  for (const e of errors) {
    if (e.keyword === 'if' || combinations.some((c) => c !== e && e.schemaPath.startsWith(c.schemaPath + '/')))
      continue;
    const branches = e.keyword === 'anyOf' ? branchesOf(e) : [];
    if (branches.length > 1 && branches.every((b) => b.keyword === 'required' && b.instancePath === e.instancePath)) {
      add(
        errorField(e),
        'required',
        `${branches.map((b) => String(b.params.missingProperty)).join(' or ')}: at least one of them is required`,
      );
    } else add(errorField(e), e.keyword, ruleOf(e));
  }
  return [...out.values()];
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
  const base = err.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = err.params as Record<string, unknown>;
  if (err.keyword === 'required' && typeof params.missingProperty === 'string') base.push(params.missingProperty);
  if (err.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string')
    base.push(params.additionalProperty);
  if (err.keyword === 'unevaluatedProperties' && typeof params.unevaluatedProperty === 'string')
    base.push(params.unevaluatedProperty);
  if (err.keyword === 'dependentRequired' && typeof params.missingProperty === 'string')
    base.push(params.missingProperty);
  if (err.keyword === 'discriminator' && typeof params.tag === 'string') base.push(params.tag);
  return base.length ? base.join('.') : undefined;
}

/** A sentence naming the field and the rule it broke. */
export function describeError(err: ErrorObject, where?: string): string {
  const subject = [where, errorField(err)].filter(Boolean).join(' ');
  return subject ? `${subject}: ${ruleOf(err)}` : ruleOf(err);
}

/** The rule an ajv error says was broken, in words (`is required`, `must be one of "a", "b"`). */
export function ruleOf(err: ErrorObject): string {
  const params = err.params as Record<string, unknown>;
  switch (err.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
    case 'unevaluatedProperties':
      return 'is not an accepted field here';
    case 'enum':
      return `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'const':
      return `must be ${JSON.stringify(params.allowedValue)}`;
    case 'format':
      return `must be a valid ${String(params.format)}`;
    case 'pattern':
      return `must match the form ${String(params.pattern)}`;
    case 'discriminator':
      // params.error is 'tag' (missing or not a string) or 'mapping' (a value no branch has).
      return params.error === 'mapping'
        ? `${JSON.stringify(params.tagValue)} is not one of the accepted values`
        : 'is required and must be a string';
    default:
      return err.message ?? err.keyword;
  }
}
