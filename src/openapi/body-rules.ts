// The request-body convention of both documents (openapi/CONVENTIONS.md, "Request bodies"), read
// once from a body schema: what happens to a top-level field that the applicable schema does not
// name, to the zero value of a field that does not apply to the body's type, and to an empty string
// for an optional field that has a default. Production ignores what it does not use, and its public
// clients send more than the contract names; so by default:
//   - a field no branch of the body names is ignored (not stored, not echoed) and reported;
//   - a field that another branch names (it does not apply to this type or system) is ignored when
//     it carries its zero value (0, "", false, null, [], {}), and a 400 naming it otherwise;
//   - `""` for an optional field with a `default` is treated as absent.
// With strict fields (`--strict-fields`, or the `Tusk-Strict-Fields: true` request header) every
// field the applicable schema does not name is a 400, as before. One implementation: the server's
// request validation, the conformance suite's derived checks and the fuzz oracle all call it.
import type { OpenApiDocument } from './documents.js';
import { resolveLocal } from './operations.js';
import { ApiError } from '../core/errors.js';

type Obj = Record<string, unknown>;

interface Branch {
  /** The discriminator value or x-system token that selects the branch; undefined for a plain object. */
  tag?: string;
  /** The fields the branch names; undefined when it takes any field (additionalProperties other than false). */
  names?: ReadonlySet<string>;
  /** Optional fields with a default: `""` means absent. */
  emptyIsAbsent: ReadonlySet<string>;
}

export interface NormalisedBody {
  value: Obj;
  /** The fields dropped as ignored, in the order sent. */
  ignored: string[];
}

/** 0, "", false, null, [] and {}: what a client's model sends for a field it does not use. */
export function isZeroValue(v: unknown): boolean {
  if (v === 0 || v === '' || v === false || v === null) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && v !== undefined && Object.keys(v as Obj).length === 0;
}

const NO_FIELDS: NormalisedBody['ignored'] = [];

/**
 * The properties a schema names (with their resolved schemas) and the required ones, through
 * allOf, anyOf, oneOf, if/then/else; returns true when it takes any other field too
 * (`additionalProperties` other than false, or `patternProperties`).
 */
function collect(
  doc: OpenApiDocument,
  schema: unknown,
  props: Map<string, Obj>,
  required: Set<string>,
  depth = 0,
): boolean {
  if (!schema || typeof schema !== 'object' || depth > 16) return false;
  const s = resolveLocal(doc, schema, '#').node;
  let open =
    (s.additionalProperties !== undefined && s.additionalProperties !== false) || s.patternProperties !== undefined;
  for (const [name, p] of Object.entries((s.properties ?? {}) as Record<string, unknown>))
    if (!props.has(name)) props.set(name, resolveLocal(doc, p, '#').node);
  if (depth === 0) for (const r of (s.required as string[] | undefined) ?? []) required.add(r);
  for (const key of ['allOf', 'anyOf', 'oneOf'])
    for (const sub of (s[key] ?? []) as unknown[]) open = collect(doc, sub, props, required, depth + 1) || open;
  for (const key of ['then', 'else']) if (s[key]) open = collect(doc, s[key], props, required, depth + 1) || open;
  return open;
}

export class BodyRules {
  /** By discriminator value, by x-system token, or the one branch under ''. */
  private readonly branches = new Map<string, Branch>();
  /** The property the branch is chosen by (`type`), for a discriminated oneOf. */
  readonly discriminator?: string;
  /** Whether the path names the branch (per-system integration bodies). */
  readonly bySystem: boolean;
  /** Every field any branch names. */
  private readonly union = new Set<string>();

  constructor(doc: OpenApiDocument, schemaRef: string) {
    const whole = resolveLocal(doc, { $ref: schemaRef }, schemaRef).node;
    const list = (whole.oneOf ?? whole.anyOf) as unknown[] | undefined;
    const disc = (whole.discriminator as { propertyName?: string } | undefined)?.propertyName;
    const entries = Array.isArray(list) ? list.map((b) => resolveLocal(doc, b, '#').node) : [];
    this.bySystem = entries.some((n) => typeof n['x-system'] === 'string');
    if (disc && !this.bySystem) this.discriminator = disc;
    // Branches chosen by a discriminator or by the path's system; any other schema is one branch.
    const nodes = this.bySystem || this.discriminator ? entries : [whole];
    for (const node of nodes) {
      const props = new Map<string, Obj>();
      const required = new Set<string>();
      const open = collect(doc, node, props, required);
      const names = open ? undefined : new Set(props.keys());
      const emptyIsAbsent = new Set(
        [...props]
          .filter(([name, p]) => !required.has(name) && p.default !== undefined && p.default !== '')
          .map(([name]) => name),
      );
      for (const n of props.keys()) this.union.add(n);
      let tag: string | undefined;
      if (typeof node['x-system'] === 'string') tag = node['x-system'];
      else if (this.discriminator) {
        const p = props.get(this.discriminator);
        if (typeof p?.const === 'string') tag = p.const;
      }
      this.branches.set(tag ?? '', {
        ...(tag !== undefined ? { tag } : {}),
        ...(names ? { names } : {}),
        emptyIsAbsent,
      });
    }
  }

  /** The branch a body falls under: by its discriminator, by the path's system, or the only one. */
  private branchOf(body: Obj, system: string | undefined): Branch | undefined {
    if (this.bySystem) return system === undefined ? undefined : this.branches.get(system);
    if (this.discriminator) {
      const tag = body[this.discriminator];
      return typeof tag === 'string' ? this.branches.get(tag) : undefined;
    }
    return this.branches.get('');
  }

  /**
   * Applies the convention to a body object (before JSON Schema validation) and returns the body
   * that is validated and stored, with the fields it ignored. A body whose branch cannot be told
   * (a missing or unknown type) is returned as it is: validation then names the type. A field it
   * refuses is a 400 ApiError, thrown, or with `problems` listed there (each of them) and left out.
   */
  apply(body: Obj, options: { strict?: boolean; system?: string; problems?: ApiError[] } = {}): NormalisedBody {
    const branch = this.branchOf(body, options.system);
    if (!branch) return { value: body, ignored: NO_FIELDS };
    const names = branch.names;
    let out: Obj | undefined;
    let ignored: string[] | undefined;
    const drop = (key: string, report: boolean) => {
      out ??= { ...body };
      delete out[key];
      if (report) (ignored ??= []).push(key);
    };
    for (const key of Object.keys(body)) {
      const v = body[key];
      if (!names || names.has(key)) {
        if (v === '' && branch.emptyIsAbsent.has(key)) drop(key, false);
        continue;
      }
      const elsewhere = this.union.has(key);
      const what =
        branch.tag === undefined ? '' : ` ${this.bySystem ? 'system' : (this.discriminator ?? 'type')} ${branch.tag}`;
      const problem = options.strict
        ? new ApiError(
            400,
            `${key}: is not an accepted field here${elsewhere ? ` (it does not apply to${what})` : ''}`,
            {
              field: key,
              rule: 'additionalProperties',
            },
          )
        : elsewhere && !isZeroValue(v)
          ? new ApiError(
              400,
              `${key}: does not apply to${what}; it is accepted here only with its zero value (0, "", false, null, [] or {}), which is ignored`,
              { field: key, rule: 'notApplicable' },
            )
          : undefined;
      if (problem && !options.problems) throw problem;
      // With `problems`, every refused field is listed there and left out of the body.
      if (problem) options.problems!.push(problem);
      drop(key, !problem);
    }
    return { value: out ?? body, ignored: ignored ?? NO_FIELDS };
  }
}
