// What the generated checks derive from the documents, in the spirit of Schemathesis: the paths and
// their methods, the resources that can be created and deleted, valid request bodies built from
// the documents' request examples, and invalid ones (a required field missing, an enum violated,
// a wrong type). Nothing here names an operation: everything is read from the documents, so a new
// operation or field is checked without editing the suite.
import type { ValidateFunction } from 'ajv';
import type { InterfaceName } from '../../src/openapi/documents.js';
import { resolveLocal, type OperationInfo, type ParameterInfo } from '../../src/openapi/operations.js';
import type { Contract } from '../harness/contract.js';

type Schema = Record<string, unknown>;
type Body = Record<string, unknown>;

export const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH'] as const;

/** The verb of an operationId (`create` of `createAlarm`); the conventions fix the verbs. */
export const verbOf = (op: OperationInfo) => /^[a-z]+/.exec(op.operationId)?.[0] ?? '';
export const tagOf = (op: OperationInfo) => ((op.raw.tags as string[] | undefined) ?? [])[0] ?? '';
export const pathParams = (op: OperationInfo) => op.parameters.filter((p) => p.in === 'path');

export const randomSuffix = () => Math.random().toString(36).slice(2, 10);

/** Every path of a document with the methods the document gives it. */
export function pathsOf(
  contract: Contract,
  api: InterfaceName,
): Map<string, { methods: string[]; ops: OperationInfo[] }> {
  const out = new Map<string, { methods: string[]; ops: OperationInfo[] }>();
  for (const op of contract.operations[api].values()) {
    const entry = out.get(op.path) ?? { methods: [], ops: [] };
    entry.methods.push(op.method.toUpperCase());
    entry.ops.push(op);
    out.set(op.path, entry);
  }
  return out;
}

const templateRegex = (path: string) =>
  new RegExp('^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+') + '$');

/**
 * The methods that any path of the document matching a concrete URL path supports. For a fixed
 * path such as /api/team/invite a templated one (/api/team/{user_id}) may match the same URL.
 */
export function methodsMatching(contract: Contract, api: InterfaceName, urlPath: string): string[] {
  const out = new Set<string>();
  for (const [path, { methods }] of pathsOf(contract, api))
    if (templateRegex(path).test(urlPath)) methods.forEach((m) => out.add(m));
  return [...out].sort();
}

// ---------------------------------------------------------------------------------------------
// Schemas

export function resolved(
  contract: Contract,
  api: InterfaceName,
  node: unknown,
  ref: string,
): { node: Schema; ref: string } {
  return resolveLocal(contract.documents[api], node, ref);
}

/** The JSON types a schema admits (from `type`, `const` or `enum`); empty when it does not say. */
export function typesOf(schema: Schema): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type as string[];
  const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? (schema.enum as unknown[]) : [];
  return [
    ...new Set(
      values.map((v) =>
        v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v,
      ),
    ),
  ];
}

/** A value of a parameter that validates but names nothing on the target (for 401 and 405 checks). */
export function probeValue(schema: Schema): string | number {
  if ('const' in schema) return schema.const as string;
  if (Array.isArray(schema.enum)) return schema.enum[0] as string;
  const types = typesOf(schema);
  if (types.includes('integer') || types.includes('number')) {
    const max = typeof schema.maximum === 'number' ? schema.maximum : 2_147_483_000;
    return Math.min(max, 2_147_483_000);
  }
  if (schema.format === 'uuid') return '00000000-0000-4000-8000-00000000c0de';
  if (schema.example !== undefined) return schema.example as string;
  return 'contract-probe';
}

/** Fills the path and required query parameters of an operation with probe values. */
export function probeParams(
  contract: Contract,
  op: OperationInfo,
): { params: Record<string, string | number>; query: Record<string, string | number> } {
  const params: Record<string, string | number> = {};
  const query: Record<string, string | number> = {};
  for (const p of op.parameters) {
    const schema = resolved(contract, op.api, p.schema, p.schemaRef).node;
    if (p.in === 'path') params[p.name] = probeValue(schema);
    else if (p.in === 'query' && p.required) query[p.name] = exampleOfParameter(contract, op, p) ?? probeValue(schema);
  }
  return { params, query };
}

function exampleOfParameter(contract: Contract, op: OperationInfo, p: ParameterInfo): string | number | undefined {
  const raw = [
    ...(((contract.documents[op.api].paths[op.path] ?? {}).parameters as unknown[]) ?? []),
    ...((op.raw.parameters as unknown[]) ?? []),
  ]
    .map((n) => resolved(contract, op.api, n, '#').node)
    .find((n) => n.name === p.name && n.in === p.in);
  const schema = resolved(contract, op.api, p.schema, p.schemaRef).node;
  return (raw?.example ?? schema.example) as string | number | undefined;
}

// ---------------------------------------------------------------------------------------------
// Request bodies

export interface Branch {
  /** JSON pointer of the branch schema in the bundled document. */
  ref: string;
  schema: Schema;
  /** `x-system` of a per-system integration body: the path names the branch. */
  system?: string;
}

export interface BodyShape {
  op: OperationInfo;
  /** JSON pointer of the whole body schema. */
  ref: string;
  schema: Schema;
  /** The document's request example (application/json). */
  example: Body;
  /** The branches (oneOf/anyOf) the example fits, or the schema itself. */
  branches: Branch[];
  /** How the server picks a branch: by the body itself (oneOf, discriminator) or by the path (anyOf with x-system). */
  byPath: boolean;
  required: boolean;
}

function requestExample(contract: Contract, op: OperationInfo): Body | undefined {
  const { node } = resolved(contract, op.api, op.raw.requestBody, '#');
  const content = (node.content ?? {}) as Record<
    string,
    { example?: unknown; examples?: Record<string, { value?: unknown }>; schema?: unknown }
  >;
  const media = content['application/json'];
  if (!media) return undefined;
  const example = media.example ?? Object.values(media.examples ?? {})[0]?.value;
  if (example && typeof example === 'object') return example as Body;
  const schema = media.schema ? resolved(contract, op.api, media.schema, '#').node : undefined;
  return schema?.example && typeof schema.example === 'object' ? (schema.example as Body) : undefined;
}

export function validatorOf(contract: Contract, api: InterfaceName, ref: string): ValidateFunction {
  return contract.schemas.validator(api, ref);
}

/** The body of an operation as the documents describe it, or undefined when it takes none. */
export function bodyShape(contract: Contract, op: OperationInfo): BodyShape | undefined {
  const media = op.body?.media.find((m) => m.mediaType === 'application/json');
  if (!media?.schemaRef) return undefined;
  const whole = resolved(contract, op.api, { $ref: media.schemaRef }, media.schemaRef);
  const example = requestExample(contract, op) ?? {};
  const list = (whole.node.oneOf ?? whole.node.anyOf) as unknown[] | undefined;
  let branches: Branch[];
  if (Array.isArray(list)) {
    const key = whole.node.oneOf ? 'oneOf' : 'anyOf';
    branches = list
      .map((b, i) => {
        const r = resolved(contract, op.api, b, `${whole.ref}/${key}/${i}`);
        return {
          ref: r.ref,
          schema: r.node,
          ...(typeof r.node['x-system'] === 'string' ? { system: r.node['x-system'] } : {}),
        };
      })
      .filter((b) => validatorOf(contract, op.api, b.ref)(example));
  } else branches = [{ ref: whole.ref, schema: whole.node }];
  return {
    op,
    ref: whole.ref,
    schema: whole.node,
    example,
    branches,
    byPath: branches.some((b) => b.system !== undefined),
    required: op.body?.required === true,
  };
}

const propertiesOf = (b: Branch) => (b.schema.properties ?? {}) as Record<string, unknown>;
const requiredOf = (b: Branch) => (Array.isArray(b.schema.required) ? (b.schema.required as string[]) : []);

/** A branch that the body is checked against. */
export function branchFor(shape: BodyShape, system?: string): Branch | undefined {
  return (
    shape.branches.find((b) => system === undefined || b.system === undefined || b.system === system) ??
    shape.branches[0]
  );
}

/** Is the body valid for the operation (against the branch the server would pick)? */
export function validBody(contract: Contract, shape: BodyShape, body: unknown, branch = branchFor(shape)): boolean {
  const ref = shape.byPath && branch ? branch.ref : shape.ref;
  return validatorOf(contract, shape.op.api, ref)(body);
}

/**
 * A small valid body built from the document's request example: the branch's required fields,
 * then (if that is not yet valid, e.g. minProperties) the example's other fields one by one, else
 * the whole example. E-mail addresses and names are made unique, so the body creates nothing that
 * collides with what the target already has. `values` (e.g. from a resource the suite created)
 * replaces fields it names.
 */
export function baseBody(contract: Contract, shape: BodyShape, options: { system?: string; values?: Body } = {}): Body {
  const branch = branchFor(shape, options.system);
  const from: Body = { ...shape.example };
  if (branch) {
    // The example may not fit the branch picked by the path: fall back to the branch's own examples.
    for (const [name, prop] of Object.entries(propertiesOf(branch))) {
      if (from[name] === undefined && requiredOf(branch).includes(name)) {
        const p = resolved(contract, shape.op.api, prop, `${branch.ref}/properties/${name}`).node;
        if (p.example !== undefined) from[name] = p.example;
        else if ('const' in p) from[name] = p.const;
      }
    }
  }
  const fix = (body: Body): Body => {
    const out: Body = { ...body };
    for (const [k, v] of Object.entries(out)) {
      if (
        options.values &&
        k in options.values &&
        options.values[k] !== undefined &&
        typeof options.values[k] !== 'object'
      )
        out[k] = options.values[k];
      else if (typeof v === 'string' && /^[^@\s]+@[^@\s]+\.[a-z]+$/i.test(v))
        out[k] = `contract-${randomSuffix()}@example.com`;
      else if (k === 'name' && typeof v === 'string') out[k] = `contract-${randomSuffix()}`;
    }
    return out;
  };
  const required = branch ? requiredOf(branch) : [];
  let body: Body = fix(Object.fromEntries(required.filter((k) => k in from).map((k) => [k, from[k]])));
  if (validBody(contract, shape, body, branch)) return body;
  for (const k of Object.keys(from)) {
    if (k in body) continue;
    body = fix({ ...body, [k]: from[k] });
    if (validBody(contract, shape, body, branch)) return body;
  }
  return fix(from);
}

export interface Mutation {
  kind: 'missing' | 'enum' | 'type';
  field: string;
  body: Body;
  what: string;
}

function wrongTypeValue(types: string[]): unknown {
  if (types.length === 0) return undefined;
  if (types.includes('string')) return types.includes('integer') || types.includes('number') ? true : 12345;
  return `not-a-${types.filter((t) => t !== 'null')[0] ?? 'value'}`;
}

/**
 * Invalid variants of a valid body: each required field of the branch missing, each enum or const
 * violated, each field of the wrong type. Only variants the document itself rejects are returned.
 */
export function mutations(contract: Contract, shape: BodyShape, base: Body, system?: string): Mutation[] {
  const branch = branchFor(shape, system);
  if (!branch) return [];
  const out: Mutation[] = [];
  const add = (m: Mutation) => {
    if (!validBody(contract, shape, m.body, branch)) out.push(m);
  };
  for (const name of requiredOf(branch)) {
    const { [name]: _dropped, ...rest } = base;
    add({ kind: 'missing', field: name, body: rest, what: `without the required field ${name}` });
  }
  for (const [name, raw] of Object.entries(propertiesOf(branch))) {
    const prop = resolved(contract, shape.op.api, raw, `${branch.ref}/properties/${name}`).node;
    if (Array.isArray(prop.enum) || 'const' in prop) {
      add({
        kind: 'enum',
        field: name,
        body: { ...base, [name]: 'not-a-valid-value' },
        what: `with ${name} outside its enum`,
      });
    }
    const wrong = wrongTypeValue(typesOf(prop));
    if (wrong !== undefined)
      add({
        kind: 'type',
        field: name,
        body: { ...base, [name]: wrong },
        what: `with ${name} of the wrong type (${JSON.stringify(wrong)})`,
      });
  }
  return out;
}

/** Invalid values of the path and query parameters of an operation (each must give 400). */
export function parameterMutations(
  contract: Contract,
  op: OperationInfo,
): { param: ParameterInfo; value: string; what: string }[] {
  const out: { param: ParameterInfo; value: string; what: string }[] = [];
  for (const p of op.parameters.filter((q) => q.in === 'path' || q.in === 'query')) {
    const schema = resolved(contract, op.api, p.schema, p.schemaRef).node;
    const types = typesOf(schema);
    const validate = validatorOf(contract, op.api, p.schemaRef) as (v: unknown) => boolean;
    // A parameter arrives as text; a numeric type reads it as a number.
    const accepts = (text: string) =>
      validate(text) ||
      ((types.includes('integer') || types.includes('number')) && text.trim() !== '' && validate(Number(text)));
    // An empty value only for query parameters (in a path it would change the path).
    for (const value of ['not-a-valid-value', '0', '-1', ...(p.in === 'query' ? [''] : [])]) {
      if (!accepts(value)) {
        out.push({ param: p, value, what: `${p.in} parameter ${p.name}=${JSON.stringify(value)}` });
        break;
      }
    }
  }
  return out;
}

/** The 400 body names the field: in its `field` member or in the `error` text. */
export function namesField(body: unknown, field: string): boolean {
  if (!body || typeof body !== 'object') return false;
  const b = body as { error?: unknown; field?: unknown };
  const last = field.split('.').pop()!;
  return (
    (typeof b.field === 'string' && (b.field === field || b.field.split('.').includes(last))) ||
    (typeof b.error === 'string' && b.error.includes(last))
  );
}

// ---------------------------------------------------------------------------------------------
// Resources that can be created, read back and deleted

export interface ResourcePair {
  api: InterfaceName;
  tag: string;
  create: OperationInfo;
  remove: OperationInfo;
  read?: OperationInfo;
  list?: OperationInfo;
  /** Every operation on one resource of the tag (has a path parameter naming it). */
  itemOps: OperationInfo[];
}

/**
 * The resources of the documents that can be created and deleted: per tag, an operation with the
 * verb `create` and one with `delete` (the conventions' verbs); `get` reads one back, `list`
 * lists them.
 */
export function resourcePairs(contract: Contract): ResourcePair[] {
  const out: ResourcePair[] = [];
  for (const api of ['customer', 'instance'] as InterfaceName[]) {
    const ops = [...contract.operations[api].values()];
    const tags = [...new Set(ops.map(tagOf))];
    for (const tag of tags) {
      const of = (verb: string) => ops.filter((o) => tagOf(o) === tag && verbOf(o) === verb);
      const create = of('create')[0];
      const remove = of('delete')[0];
      if (!create || !remove) continue;
      const read = of('get').find((o) => pathParams(o).length > 0);
      const list = of('list').find((o) => pathParams(o).length === 0 && o.method === 'get');
      const itemOps = ops.filter((o) => tagOf(o) === tag && o !== create && o !== list && pathParams(o).length > 0);
      out.push({ api, tag, create, remove, ...(read ? { read } : {}), ...(list ? { list } : {}), itemOps });
    }
  }
  return out;
}

/** Path parameters of an operation on one resource: integer parameters get its id, system tokens its system. */
export function itemParams(
  contract: Contract,
  op: OperationInfo,
  id: string | number,
  system?: string,
): Record<string, string | number> {
  const params: Record<string, string | number> = {};
  for (const p of pathParams(op)) {
    const schema = resolved(contract, op.api, p.schema, p.schemaRef).node;
    const enumValues = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined;
    params[p.name] =
      enumValues && system !== undefined && enumValues.includes(system)
        ? system
        : enumValues
          ? String(enumValues[0])
          : id;
  }
  return params;
}

/** The system tokens a create operation's path may take (the branches the example fits), else none. */
export function createSystems(contract: Contract, op: OperationInfo): (string | undefined)[] {
  const shape = bodyShape(contract, op);
  const systems = shape?.branches.map((b) => b.system).filter((s): s is string => s !== undefined) ?? [];
  return systems.length ? systems : [undefined];
}
