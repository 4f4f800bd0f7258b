// Request validation compiled once at start-up from a bundled document: for each operation, the
// validators of its path and query parameters and of its body, the form-field reading rules
// (form-bodies.ts: form values are strings; the schema says which are numbers, booleans, arrays or
// JSON text), and the request-body convention for fields the schema does not name (body-rules.ts).
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { InterfaceName, OpenApiDocument } from './documents.js';
import { errorField, ruleOf, type ErrorReport, type SchemaSet } from './ajv.js';
import { resolveLocal, type OperationInfo } from './operations.js';
import { BodyRules, type NormalisedBody } from './body-rules.js';
import { ApiError } from '../core/errors.js';
import { MAX_BODY_DEPTH } from '../core/limits.js';

import {
  kindOf,
  propertyKinds,
  readForm,
  readScalar,
  type FieldKind,
  type FormKinds,
  type RawBody,
} from './form-bodies.js';

export { rawBodyOf, readForm, type FieldKind, type FormKinds, type RawBody } from './form-bodies.js';

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
  const alternatives =
    err.keyword === 'required' && errors!.some((e) => e.keyword === 'anyOf' && e.instancePath === err.instancePath)
      ? errors!
          .filter((e) => e.keyword === 'required' && e.instancePath === err.instancePath)
          .map((e) => String(e.params.missingProperty))
      : [];
  if (alternatives.length > 1) {
    const at = [prefix, errorField({ ...err, keyword: 'x', params: {} })].filter(Boolean).join('.');
    return new ApiError(400, `${at ? `${at}: ` : ''}${alternatives.join(' or ')}: at least one of them is required`, {
      field,
      rule: 'required',
    });
  }
  // The message starts with the field the body names (`body` for the body as a whole).
  return new ApiError(400, `${field}: ${ruleOf(err)}`, { field, rule: err.keyword });
}

export class OperationValidator {
  private readonly paramValidators: {
    name: string;
    in: string;
    required: boolean;
    kind: FieldKind;
    validate: ValidateFunction;
  }[];
  private readonly bodyValidator?: ValidateFunction;
  /** The refs of the body schema and of each system's branch, for `departures`. */
  private bodyRef?: string;
  private readonly systemBodyRefs = new Map<string, string>();
  private readonly formKinds: FormKinds = { fields: new Map(), arrayItems: new Map() };
  /** The request-body convention for this body (fields the schema does not name, zero values, ""). */
  readonly rules?: BodyRules;
  /** Per-system body validators (integration bodies: the anyOf branch whose x-system names the system). */
  readonly systemBodies = new Map<string, ValidateFunction>();
  readonly acceptsBody: boolean;
  /** Whether the operation declares path parameters / query parameters (the pipeline reads only those). */
  readonly hasPathParameters: boolean;
  readonly hasQueryParameters: boolean;

  constructor(
    readonly op: OperationInfo,
    doc: OpenApiDocument,
    private readonly schemas: SchemaSet,
  ) {
    const api: InterfaceName = op.api;
    this.paramValidators = op.parameters
      .filter((p) => p.in === 'path' || p.in === 'query')
      .map((p) => ({
        name: p.name,
        in: p.in,
        required: p.required,
        kind: kindOf(p.schema),
        validate: schemas.validator(api, p.schemaRef),
      }));
    this.hasPathParameters = this.paramValidators.some((p) => p.in === 'path');
    this.hasQueryParameters = this.paramValidators.some((p) => p.in === 'query');
    const media = op.body?.media.find((m) => m.mediaType === 'application/json') ?? op.body?.media[0];
    this.acceptsBody = Boolean(media?.schemaRef);
    if (media?.schemaRef && media.schema) {
      this.bodyValidator = schemas.validator(api, media.schemaRef);
      this.bodyRef = media.schemaRef;
      propertyKinds(doc, media.schema, this.formKinds);
      const form = op.body?.media.find((m) => m.mediaType === 'application/x-www-form-urlencoded');
      for (const f of form?.jsonFields ?? [])
        if (!this.formKinds.arrayItems.has(f)) this.formKinds.fields.set(f, 'json');
      this.rules = new BodyRules(doc, media.schemaRef);
      const branches = (media.schema.anyOf ?? media.schema.oneOf ?? []) as unknown[];
      branches.forEach((b, i) => {
        const { node, ref } = resolveLocal(
          doc,
          b,
          `${media.schemaRef}/${media.schema!.anyOf ? 'anyOf' : 'oneOf'}/${i}`,
        );
        if (typeof node['x-system'] === 'string') {
          this.systemBodies.set(node['x-system'], schemas.validator(api, ref));
          this.systemBodyRefs.set(node['x-system'], ref);
        }
      });
    }
  }

  /** Validates path parameters (strings from the router) and the query string; throws a 400 ApiError. */
  parameters(pathParams: Record<string, string>, query: URLSearchParams): Pick<ValidatedRequest, 'params' | 'query'> {
    const params: Record<string, unknown> = {};
    const q: Record<string, unknown> = {};
    for (const p of this.paramValidators) {
      const value = this.parameter(p, pathParams, query);
      if (value !== undefined) (p.in === 'path' ? params : q)[p.name] = value;
    }
    return { params, query: q };
  }

  /** One parameter's value as its schema reads it (undefined when absent and optional); throws a 400 ApiError. */
  private parameter(
    p: OperationValidator['paramValidators'][number],
    pathParams: Record<string, string>,
    query: URLSearchParams,
  ): unknown {
    const raw = p.in === 'path' ? pathParams[p.name] : (query.getAll(p.name).at(-1) ?? undefined);
    if (raw === undefined) {
      if (p.required)
        throw new ApiError(400, `${p.name}: is required (${p.in} parameter)`, { field: p.name, rule: 'required' });
      return undefined;
    }
    // Path parameters arrive decoded by the router: decoding again would read %2531 as 1.
    const value = readScalar(raw, p.kind);
    if (!p.validate(value)) throw validationError(p.validate.errors, p.name, p.name);
    return value;
  }

  /**
   * Every way a request's parameters and body depart from the document, each naming its field and
   * rule (none: it conforms): what the validating proxy lists. The stand-in answers the first of
   * them only (`parameters`, then `read`). `body` is the raw body, or the 400 reading it gave.
   */
  departures(
    pathParams: Record<string, string>,
    query: URLSearchParams,
    body: RawBody | ApiError,
    system?: string,
  ): ErrorReport[] {
    const out: ErrorReport[] = [];
    const report = (err: ApiError) => {
      const b = err.body as { field?: string; rule?: string };
      out.push({ field: b.field ?? 'body', rule: b.rule ?? 'invalid', message: err.message });
    };
    for (const p of this.paramValidators) {
      try {
        this.parameter(p, pathParams, query);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        report(err);
      }
    }
    if (!this.bodyValidator) return out;
    if (body instanceof ApiError) {
      report(body);
      return out;
    }
    const value = body.kind === 'json' ? body.value : body.kind === 'none' ? {} : readForm(body.fields, this.formKinds);
    if (deeperThan(value, MAX_BODY_DEPTH) || !isObject(value)) {
      try {
        this.read(body, system);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        report(err);
      }
      return out;
    }
    if (this.systemBodies.size > 0 && !system) return out;
    const problems: ApiError[] = [];
    const normal = this.rules!.apply(value, { ...(system ? { system } : {}), problems });
    problems.forEach(report);
    const ref = (system && this.systemBodyRefs.get(system)) || this.bodyRef!;
    out.push(...this.schemas.departuresOf(this.op.api, ref, normal.value, 'body'));
    return out;
  }

  /** Turns the raw body into the value the schema describes, and validates it; throws a 400 ApiError. */
  body(raw: RawBody, system?: string, options: { strict?: boolean } = {}): unknown {
    return this.read(raw, system, options).value;
  }

  /**
   * The body as the schema describes it, after the request-body convention (body-rules.ts), and
   * the fields it ignored; throws a 400 ApiError.
   */
  read(
    raw: RawBody,
    system?: string,
    options: { strict?: boolean } = {},
  ): { value: unknown; ignored: readonly string[] } {
    if (!this.bodyValidator) return { value: undefined, ignored: [] };
    let value: unknown;
    if (raw.kind === 'json') value = raw.value;
    else if (raw.kind === 'none') value = {};
    else value = readForm(raw.fields, this.formKinds);
    if (deeperThan(value, MAX_BODY_DEPTH)) {
      throw new ApiError(400, `body: nests objects and arrays deeper than ${MAX_BODY_DEPTH} levels`, {
        field: 'body',
        rule: 'maxDepth',
      });
    }
    // Every body is an object (each has a form encoding, which can only carry fields). Checked here
    // because Ajv's discriminator skips non-objects (a string body would pass a oneOf) and throws on null.
    if (!isObject(value)) throw new ApiError(400, 'body: must be a JSON object', { field: 'body', rule: 'type' });
    if (this.systemBodies.size > 0 && !system) {
      // An integration body whose system the path does not name (update by id): the union of all
      // systems would name a field of an unrelated system; the handler validates it against the
      // stored integration's system with systemBody().
      return { value, ignored: [] };
    }
    const normal: NormalisedBody = this.rules!.apply(value, { ...options, ...(system ? { system } : {}) });
    const validate = (system && this.systemBodies.get(system)) || this.bodyValidator;
    if (!validate(normal.value)) throw validationError(validate.errors, 'body');
    return normal;
  }

  /** Validates a body against one system's schema (integration updates, where the system comes from the stored record). */
  systemBody(system: string, value: unknown, options: { strict?: boolean; ignored?: string[] } = {}): unknown {
    const validate = this.systemBodies.get(system);
    if (!validate)
      throw new ApiError(400, `type: ${system} is not an accepted system`, { field: 'type', rule: 'enum' });
    if (!isObject(value)) throw new ApiError(400, 'body: must be a JSON object', { field: 'body', rule: 'type' });
    const normal = this.rules!.apply(value, { system, ...(options.strict ? { strict: true } : {}) });
    if (!validate(normal.value)) throw validationError(validate.errors, 'body');
    options.ignored?.push(...normal.ignored);
    return normal.value;
  }
}
