// What the documents say a request should get, computed without the server: which operation a
// method and path name (or 404 / 405), how path and query text and form fields read (the
// conventions: form scalars are read by the schema's type, arrays and objects are JSON text), and
// whether a parameter or a body is valid by the document's own JSON Schema validators.
import type { ValidateFunction } from 'ajv';
import type { InterfaceName } from '../../src/openapi/documents.js';
import { resolveLocal, type OperationInfo, type ParameterInfo } from '../../src/openapi/operations.js';
import type { Contract } from '../../contract-tests/harness/contract.js';
import { SchemaArbitraries, type Schema } from './arbitraries.js';
import { BodyRules } from '../../src/openapi/body-rules.js';
import { readForm } from '../../src/openapi/requests.js';

type FieldKind = 'integer' | 'number' | 'boolean' | 'json' | 'string';

export interface BodyBranch {
  ref: string;
  schema: Schema;
  system?: string;
}

export interface BodyInfo {
  ref: string;
  schema: Schema;
  /** The oneOf/anyOf branches (x-system ones pick by path), or the schema itself. */
  branches: BodyBranch[];
  /** Branches chosen by the system the path names (integration bodies). */
  bySystem: boolean;
  formKinds: Map<string, FieldKind>;
  /** Array fields and the kind of their items (form arrays come in three styles). */
  arrayItems: Map<string, FieldKind>;
  /** The request-body convention (fields the schema does not name, zero values, ""), shared with the server. */
  rules: BodyRules;
}

export type Verdict = { ok: true; value?: unknown } | { ok: false; field: string };

const NUMERIC = /^-?(\d+)(\.\d+)?([eE][+-]?\d+)?$/;

export class Oracle {
  readonly derive: Record<InterfaceName, SchemaArbitraries>;
  private readonly bodies = new Map<OperationInfo, BodyInfo | undefined>();
  private readonly templates: Record<
    InterfaceName,
    { regex: RegExp; path: string; params: number; ops: OperationInfo[] }[]
  >;

  constructor(readonly contract: Contract) {
    this.derive = {
      customer: new SchemaArbitraries(contract.documents.customer),
      instance: new SchemaArbitraries(contract.documents.instance),
    };
    const build = (api: InterfaceName) => {
      const byPath = new Map<string, OperationInfo[]>();
      for (const op of contract.operations[api].values()) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
      return [...byPath]
        .map(([path, ops]) => ({
          path,
          ops,
          params: (path.match(/\{/g) ?? []).length,
          regex: new RegExp('^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
        }))
        .sort((a, b) => a.params - b.params);
    };
    this.templates = { customer: build('customer'), instance: build('instance') };
  }

  validator(api: InterfaceName, ref: string): ValidateFunction {
    return this.contract.schemas.validator(api, ref);
  }

  /** The operations of the most specific document path matching a (decoded) URL path, or undefined. */
  route(
    api: InterfaceName,
    method: string,
    path: string,
  ): { path: string; ops: OperationInfo[]; op?: OperationInfo } | undefined {
    const t = this.templates[api].find((x) => x.regex.test(path));
    if (!t) return undefined;
    const m = method === 'HEAD' ? 'get' : method.toLowerCase();
    return { path: t.path, ops: t.ops, op: t.ops.find((o) => o.method === m) };
  }

  body(op: OperationInfo): BodyInfo | undefined {
    if (this.bodies.has(op)) return this.bodies.get(op);
    const media = op.body?.media.find((m) => m.mediaType === 'application/json');
    let info: BodyInfo | undefined;
    if (media?.schemaRef && media.schema) {
      const doc = this.contract.documents[op.api];
      const whole = resolveLocal(doc, { $ref: media.schemaRef }, media.schemaRef);
      const key = whole.node.oneOf ? 'oneOf' : whole.node.anyOf ? 'anyOf' : undefined;
      const branches: BodyBranch[] = key
        ? (whole.node[key] as unknown[]).map((b, i) => {
            const r = resolveLocal(doc, b, `${whole.ref}/${key}/${i}`);
            return {
              ref: r.ref,
              schema: r.node,
              ...(typeof r.node['x-system'] === 'string' ? { system: r.node['x-system'] as string } : {}),
            };
          })
        : [{ ref: whole.ref, schema: whole.node }];
      const formKinds = new Map<string, FieldKind>();
      const arrayItems = new Map<string, FieldKind>();
      const derive = this.derive[op.api];
      const kindOf = (types: string[]): FieldKind =>
        types.includes('array') || types.includes('object')
          ? 'json'
          : types.includes('integer')
            ? 'integer'
            : types.includes('number')
              ? 'number'
              : types.includes('boolean')
                ? 'boolean'
                : 'string';
      for (const v of derive.variants(whole.node)) {
        for (const [name, p] of Object.entries((v.properties ?? {}) as Record<string, unknown>)) {
          const resolved = derive.resolve(p);
          const types = derive.typesOf(resolved);
          const kind = kindOf(types);
          if (!formKinds.has(name) || formKinds.get(name) === 'string') formKinds.set(name, kind);
          if (types.includes('array') && resolved.items)
            arrayItems.set(name, kindOf(derive.typesOf(derive.resolve(resolved.items))));
        }
      }
      const form = op.body?.media.find((m) => m.mediaType === 'application/x-www-form-urlencoded');
      for (const f of form?.jsonFields ?? []) formKinds.set(f, 'json');
      info = {
        ref: whole.ref,
        schema: whole.node,
        branches,
        bySystem: branches.some((b) => b.system !== undefined),
        formKinds,
        arrayItems,
        rules: new BodyRules(doc, whole.ref),
      };
    }
    this.bodies.set(op, info);
    return info;
  }

  /** A form field's text read by the schema's type (the conventions' rule). */
  static readScalar(text: string, kind: FieldKind): unknown {
    switch (kind) {
      case 'integer':
      case 'number':
        return NUMERIC.test(text.trim()) ? Number(text) : text;
      case 'boolean':
        return text === 'true' ? true : text === 'false' ? false : text;
      case 'json':
        try {
          return JSON.parse(text);
        } catch {
          return text;
        }
      default:
        return text;
    }
  }

  /** A form body read as the conventions say (scalars by type, objects as JSON text, arrays in three styles). */
  formValue(info: BodyInfo, fields: [string, string][]): Record<string, unknown> {
    return readForm(fields, { fields: info.formKinds, arrayItems: info.arrayItems });
  }

  kindOf(schema: Schema): FieldKind {
    const types = this.derive.customer.typesOf(schema);
    if (types.includes('integer')) return 'integer';
    if (types.includes('number')) return 'number';
    if (types.includes('boolean')) return 'boolean';
    if (types.includes('array') || types.includes('object')) return 'json';
    return 'string';
  }

  /** Validates one parameter's (already URL-decoded) text; undefined text is a missing parameter. */
  parameter(op: OperationInfo, p: ParameterInfo, text: string | undefined): Verdict {
    if (text === undefined) return p.required ? { ok: false, field: p.name } : { ok: true };
    const value = Oracle.readScalar(text, this.kindOf(p.schema));
    return this.validator(op.api, p.schemaRef)(value) ? { ok: true, value } : { ok: false, field: p.name };
  }

  /** The branch a body is checked against: the system the path names, else the whole schema. */
  branchRef(
    op: OperationInfo,
    info: BodyInfo,
    params: Record<string, unknown>,
    storedSystem?: string,
  ): string | undefined {
    if (!info.bySystem) return info.ref;
    const system = storedSystem ?? Object.values(params).find((v) => info.branches.some((b) => b.system === v));
    return info.branches.find((b) => b.system === system)?.ref;
  }
}
