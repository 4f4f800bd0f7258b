// Request validation compiled once at start-up from a bundled document: for each operation, the
// validators of its path and query parameters and of its body, and the form-field reading rules
// (form values are strings; the schema says which are numbers, booleans or JSON text).
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { InterfaceName, OpenApiDocument } from './documents.js';
import { errorField, ruleOf, type SchemaSet } from './ajv.js';
import { resolveLocal, type OperationInfo } from './operations.js';
import { ApiError } from '../http/errors.js';
import { MAX_BODY_DEPTH } from '../http/limits.js';

type FieldKind = 'integer' | 'number' | 'boolean' | 'json' | 'string';

export type RawBody =
  | { kind: 'none' }
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; fields: [string, string][] };

export interface ValidatedRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether a JSON value nests objects and arrays deeper than `max` levels (walked without recursion). */
export function deeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth > max) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

function validationError(errors: ErrorObject[] | null | undefined, where: string, prefix?: string): ApiError {
  // Prefer the most specific error: ajv reports the failing branch of a discriminated oneOf first.
  const err = errors?.[0];
  if (!err) return new ApiError(400, `${where}: invalid`, { rule: 'invalid' });
  const field = [prefix, errorField(err)].filter(Boolean).join('.') || where;
  // "One of these fields is required" (anyOf of required): name them all, not only the first branch's.
  const alternatives = err.keyword === 'required' && errors!.some((e) => e.keyword === 'anyOf' && e.instancePath === err.instancePath)
    ? errors!.filter((e) => e.keyword === 'required' && e.instancePath === err.instancePath).map((e) => String(e.params.missingProperty))
    : [];
  if (alternatives.length > 1) {
    const at = [prefix, errorField({ ...err, keyword: 'x', params: {} })].filter(Boolean).join('.');
    return new ApiError(400, `${at ? `${at}: ` : ''}${alternatives.join(' or ')}: at least one of them is required`, { field, rule: 'required' });
  }
  // The message starts with the field the body names (`body` for the body as a whole).
  return new ApiError(400, `${field}: ${ruleOf(err)}`, { field, rule: err.keyword });
}

/** Collects the JSON type of every property a body schema may have, through $ref, allOf, anyOf, oneOf, if/then. */
function propertyKinds(doc: OpenApiDocument, schema: unknown, into = new Map<string, FieldKind>(), depth = 0): Map<string, FieldKind> {
  if (!schema || typeof schema !== 'object' || depth > 16) return into;
  const s = resolveLocal(doc, schema, '#').node;
  for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    const p = resolveLocal(doc, prop, '#').node;
    const types = ([] as unknown[]).concat(p.type ?? (p.const !== undefined ? typeof p.const : []));
    let kind: FieldKind = 'string';
    if (types.includes('array') || types.includes('object')) kind = 'json';
    else if (types.includes('integer')) kind = 'integer';
    else if (types.includes('number')) kind = 'number';
    else if (types.includes('boolean')) kind = 'boolean';
    if (!into.has(name) || into.get(name) === 'string') into.set(name, kind);
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const sub of (s[key] ?? []) as unknown[]) propertyKinds(doc, sub, into, depth + 1);
  }
  for (const key of ['then', 'else']) if (s[key]) propertyKinds(doc, s[key], into, depth + 1);
  return into;
}

/** Reads a scalar string by the kind the schema gives it; a value that does not read stays a string, so validation names it. */
function readScalar(value: string, kind: FieldKind): unknown {
  switch (kind) {
    case 'integer':
    case 'number':
      return /^-?(\d+)(\.\d+)?([eE][+-]?\d+)?$/.test(value.trim()) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'json':
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    default:
      return value;
  }
}

function kindOf(schema: Record<string, unknown>): FieldKind {
  const types = ([] as unknown[]).concat(schema.type ?? []);
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  if (types.includes('boolean')) return 'boolean';
  if (types.includes('array') || types.includes('object')) return 'json';
  return 'string';
}

export class OperationValidator {
  private readonly paramValidators: { name: string; in: string; required: boolean; kind: FieldKind; validate: ValidateFunction }[];
  private readonly bodyValidator?: ValidateFunction;
  private readonly formKinds = new Map<string, FieldKind>();
  /** Per-system body validators (integration bodies: the anyOf branch whose x-system names the system). */
  readonly systemBodies = new Map<string, ValidateFunction>();
  readonly acceptsBody: boolean;
  /** Whether the operation declares path parameters / query parameters (the pipeline reads only those). */
  readonly hasPathParameters: boolean;
  readonly hasQueryParameters: boolean;

  constructor(
    readonly op: OperationInfo,
    doc: OpenApiDocument,
    schemas: SchemaSet,
  ) {
    const api: InterfaceName = op.api;
    this.paramValidators = op.parameters
      .filter((p) => p.in === 'path' || p.in === 'query')
      .map((p) => ({ name: p.name, in: p.in, required: p.required, kind: kindOf(p.schema), validate: schemas.validator(api, p.schemaRef) }));
    this.hasPathParameters = this.paramValidators.some((p) => p.in === 'path');
    this.hasQueryParameters = this.paramValidators.some((p) => p.in === 'query');
    const media = op.body?.media.find((m) => m.mediaType === 'application/json') ?? op.body?.media[0];
    this.acceptsBody = Boolean(media?.schemaRef);
    if (media?.schemaRef && media.schema) {
      this.bodyValidator = schemas.validator(api, media.schemaRef);
      propertyKinds(doc, media.schema, this.formKinds);
      const form = op.body?.media.find((m) => m.mediaType === 'application/x-www-form-urlencoded');
      for (const f of form?.jsonFields ?? []) this.formKinds.set(f, 'json');
      const branches = (media.schema.anyOf ?? media.schema.oneOf ?? []) as unknown[];
      branches.forEach((b, i) => {
        const { node, ref } = resolveLocal(doc, b, `${media.schemaRef}/${media.schema!.anyOf ? 'anyOf' : 'oneOf'}/${i}`);
        if (typeof node['x-system'] === 'string') this.systemBodies.set(node['x-system'], schemas.validator(api, ref));
      });
    }
  }

  /** Validates path parameters (strings from the router) and the query string; throws a 400 ApiError. */
  parameters(pathParams: Record<string, string>, query: URLSearchParams): Pick<ValidatedRequest, 'params' | 'query'> {
    const params: Record<string, unknown> = {};
    const q: Record<string, unknown> = {};
    for (const p of this.paramValidators) {
      const raw = p.in === 'path' ? pathParams[p.name] : (query.getAll(p.name).at(-1) ?? undefined);
      if (raw === undefined) {
        if (p.required) throw new ApiError(400, `${p.name}: is required (${p.in} parameter)`, { field: p.name, rule: 'required' });
        continue;
      }
      // Path parameters arrive decoded by the router: decoding again would read %2531 as 1.
      const value = readScalar(raw, p.kind);
      if (!p.validate(value)) throw validationError(p.validate.errors, p.name, p.name);
      (p.in === 'path' ? params : q)[p.name] = value;
    }
    return { params, query: q };
  }

  /** Turns the raw body into the value the schema describes, and validates it; throws a 400 ApiError. */
  body(raw: RawBody, system?: string): unknown {
    if (!this.bodyValidator) return undefined;
    let value: unknown;
    if (raw.kind === 'json') value = raw.value;
    else if (raw.kind === 'none') value = {};
    else {
      // fromEntries defines every field as a member (an assignment would take `__proto__` as the
      // prototype and drop it unseen), so an unknown field is always a 400; a repeated field: the last counts.
      value = Object.fromEntries(raw.fields.map(([k, v]) => [k, readScalar(v, this.formKinds.get(k) ?? 'string')]));
    }
    if (deeperThan(value, MAX_BODY_DEPTH)) {
      throw new ApiError(400, `body: nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`, { field: 'body', rule: 'maxDepth' });
    }
    if (this.systemBodies.size > 0 && !system) {
      // An integration body whose system the path does not name (update by id): the union of all
      // systems would name a field of an unrelated system; the handler validates it against the
      // stored integration's system with systemBody().
      if (!isObject(value)) throw new ApiError(400, 'body: must be a JSON object', { field: 'body', rule: 'type' });
      return value;
    }
    // Every body is an object (each has a form encoding, which can only carry fields). Checked here
    // because Ajv's discriminator skips non-objects (a string body would pass a oneOf) and throws on null.
    if (!isObject(value)) throw new ApiError(400, 'body: must be a JSON object', { field: 'body', rule: 'type' });
    const validate = (system && this.systemBodies.get(system)) || this.bodyValidator;
    if (!validate(value)) throw validationError(validate.errors, 'body');
    return value;
  }

  /** Validates a body against one system's schema (integration updates, where the system comes from the stored record). */
  systemBody(system: string, value: unknown): unknown {
    const validate = this.systemBodies.get(system);
    if (!validate) throw new ApiError(400, `type: ${system} is not an accepted system`, { field: 'type', rule: 'enum' });
    if (!isObject(value)) throw new ApiError(400, 'body: must be a JSON object', { field: 'body', rule: 'type' });
    if (!validate(value)) throw validationError(validate.errors, 'body');
    return value;
  }
}
