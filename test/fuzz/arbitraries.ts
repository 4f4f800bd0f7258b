// fast-check arbitraries derived from the JSON Schemas of the bundled documents: valid values of a
// schema (through $ref, oneOf/anyOf, allOf, if/then, enum/const, patterns, formats and bounds), and
// invalid variants of a valid object that break exactly one field (missing, extra, wrong type,
// enum violation, out of range, empty, too long, unicode). A compact deriver of our own: the
// maintained schema-to-arbitrary packages do not read OpenAPI 3.1 / JSON Schema 2020-12 (if/then,
// dependentRequired, discriminator), and the documents use only the keywords handled here.
import fc from 'fast-check';
import type { OpenApiDocument } from '../../src/openapi/documents.js';
import { resolveLocal } from '../../src/openapi/operations.js';

export type Schema = Record<string, unknown>;
type Obj = Record<string, unknown>;

/** Strings that break naive handling: case mapping that changes length, NUL, bidi, emoji, surrogates, injections. */
export const TRICKY_STRINGS = [
  'ß',
  'ŉ',
  'İ',
  'ǰ',
  'ﬀ',
  'e\u0301',
  '\u0000',
  '\u200b',
  '\u202e',
  '😀',
  '\ud800',
  '٣',
  '𝔘𝔫𝔦',
  'Ω',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '../../etc/passwd',
  '%2e%2e%2f',
  '${jndi:ldap://x}',
  '{{7*7}}',
  ' ',
  '\t\n',
  '__proto__',
  'constructor',
  'null',
  'true',
  '-1',
  '0x10',
  '1e308',
  'NaN',
];

/** Field names an unknown field gets. */
export const EXTRA_FIELDS = [
  'fuzz_extra',
  '__proto__',
  'constructor',
  'prototype',
  '',
  ' ',
  'a.b',
  'ID',
  'type ',
  'ünïcödé',
  '😀',
  'x'.repeat(300),
];

/** Values of every JSON type, for wrong-type mutations. */
export const TYPE_POOL: unknown[] = ['text', '1', '', 1, 0, -1, 1.5, true, false, null, [], [1], {}, { a: 1 }];

const NUMERIC_EDGES = [
  -1,
  0,
  1.5,
  -0.5,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER,
  Number.MIN_SAFE_INTEGER,
  5e-324,
];

const COMBINATORS = ['oneOf', 'anyOf', 'allOf', 'if', 'then', 'else', 'discriminator'] as const;
const MAX_VARIANTS = 64;

export function jsonTypeOf(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

export class SchemaArbitraries {
  private readonly cache = new Map<unknown, fc.Arbitrary<unknown>>();

  constructor(readonly doc: OpenApiDocument) {}

  resolve(s: unknown): Schema {
    if (!s || typeof s !== 'object') return {};
    return resolveLocal(this.doc, s, '#').node;
  }

  /** The JSON types a schema admits. */
  typesOf(s: Schema): string[] {
    if (typeof s.type === 'string') return [s.type];
    if (Array.isArray(s.type)) return s.type as string[];
    if ('const' in s) return [jsonTypeOf(s.const)];
    if (Array.isArray(s.enum)) return [...new Set((s.enum as unknown[]).map(jsonTypeOf))];
    if (s.properties) return ['object'];
    return [];
  }

  /** Merges two schemas as allOf would: bounds tighten, enums intersect, required and properties combine. */
  merge(a: Schema, b: Schema): Schema {
    const out: Schema = { ...a };
    for (const [k, v] of Object.entries(b)) {
      if (k === 'required') out.required = [...new Set([...((a.required as string[]) ?? []), ...(v as string[])])];
      else if (k === 'properties') {
        const props: Obj = { ...((a.properties as Obj) ?? {}) };
        for (const [name, p] of Object.entries(v as Obj))
          props[name] = name in props ? this.mergeLeaf(this.resolve(props[name]), this.resolve(p)) : p;
        out.properties = props;
      } else if (k === 'additionalProperties') out.additionalProperties = a.additionalProperties === false ? false : v;
      else if (k === 'unevaluatedProperties') continue;
      else out[k] = v;
    }
    return out;
  }

  private mergeLeaf(a: Schema, b: Schema): Schema {
    const out: Schema = { ...a, ...b };
    for (const k of ['maximum', 'maxLength', 'maxItems'] as const)
      if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.min(a[k] as number, b[k] as number);
    for (const k of ['minimum', 'minLength', 'minItems'] as const)
      if (typeof a[k] === 'number' && typeof b[k] === 'number') out[k] = Math.max(a[k] as number, b[k] as number);
    if (Array.isArray(a.enum) && Array.isArray(b.enum))
      out.enum = (a.enum as unknown[]).filter((x) => (b.enum as unknown[]).includes(x));
    return out;
  }

  /** Flat schemas (no combinators) whose union approximates the valid values of `s`. */
  variants(s: unknown, depth = 0): Schema[] {
    const r = this.resolve(s);
    if (depth > 8) return [r];
    const base: Schema = Object.fromEntries(
      Object.entries(r).filter(([k]) => !(COMBINATORS as readonly string[]).includes(k)),
    );
    let out: Schema[] = [base];
    const choice = (r.oneOf ?? r.anyOf) as unknown[] | undefined;
    if (choice)
      out = out.flatMap((v) => choice.flatMap((b) => this.variants(this.merge(v, this.resolve(b)), depth + 1)));
    for (const item of (r.allOf as unknown[] | undefined) ?? [])
      out = out.flatMap((v) => this.variants(this.merge(v, this.resolve(item)), depth + 1));
    if (r.if) {
      const cond = this.resolve(r.if);
      const then = r.then ? this.resolve(r.then) : {};
      out = out.flatMap((v) => [v, ...this.variants(this.merge(this.merge(v, cond), then), depth + 1)]);
    }
    return out.slice(0, MAX_VARIANTS);
  }

  /** Valid values of a schema (mostly: the cross-field rules are approximated; label with the document's validator). */
  valid(s: unknown, depth = 0): fc.Arbitrary<unknown> {
    const key = s;
    const hit = typeof key === 'object' && key !== null ? this.cache.get(key) : undefined;
    if (hit) return hit;
    const vs = this.variants(s);
    const arb = vs.length === 1 ? this.flat(vs[0]!, depth) : fc.oneof(...vs.map((v) => this.flat(v, depth)));
    if (typeof key === 'object' && key !== null) this.cache.set(key, arb);
    return arb;
  }

  private flat(s: Schema, depth: number): fc.Arbitrary<unknown> {
    if ('const' in s) return fc.constant(s.const);
    if (Array.isArray(s.enum))
      return (s.enum as unknown[]).length ? fc.constantFrom(...(s.enum as unknown[])) : fc.constant(null);
    const types = this.typesOf(s);
    if (types.length === 0) return fc.jsonValue({ maxDepth: 2 });
    const arbs = types.map((t) => this.typed(t, s, depth));
    return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
  }

  private typed(type: string, s: Schema, depth: number): fc.Arbitrary<unknown> {
    switch (type) {
      case 'object':
        return this.object(s, depth);
      case 'array': {
        const items = s.items ? this.valid(s.items, depth + 1) : fc.jsonValue({ maxDepth: 1 });
        const minLength = (s.minItems as number | undefined) ?? 0;
        const maxLength = Math.min((s.maxItems as number | undefined) ?? minLength + 4, minLength + 4);
        return s.uniqueItems
          ? fc.uniqueArray(items, { minLength, maxLength, selector: (v) => JSON.stringify(v) })
          : fc.array(items, { minLength, maxLength });
      }
      case 'string':
        return this.string(s);
      case 'integer': {
        const min = (s.minimum as number | undefined) ?? -(2 ** 31);
        const max = (s.maximum as number | undefined) ?? 2 ** 31 - 1;
        return fc.oneof(
          { arbitrary: fc.constantFrom(min, max), weight: 1 },
          { arbitrary: fc.integer({ min, max: Math.max(min, Math.min(max, min + 100)) }), weight: 2 },
          { arbitrary: fc.integer({ min, max }), weight: 2 },
        );
      }
      case 'number': {
        const min = (s.minimum as number | undefined) ?? -1e9;
        const max = (s.maximum as number | undefined) ?? 1e9;
        return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
      }
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      default:
        return fc.jsonValue({ maxDepth: 2 });
    }
  }

  private object(s: Schema, depth: number): fc.Arbitrary<unknown> {
    const props = (s.properties ?? {}) as Obj;
    const required = ((s.required as string[] | undefined) ?? []).filter((k) => k in props);
    const model: Record<string, fc.Arbitrary<unknown>> = {};
    for (const [name, p] of Object.entries(props))
      model[name] = depth > 6 ? fc.constant(null) : this.valid(p, depth + 1);
    let arb: fc.Arbitrary<Obj> = fc.record(model, { requiredKeys: required }) as fc.Arbitrary<Obj>;
    const missing = ((s.required as string[] | undefined) ?? []).filter((k) => !(k in props));
    if (missing.length)
      arb = arb.chain((o) =>
        fc
          .tuple(...missing.map(() => fc.jsonValue({ maxDepth: 1 })))
          .map((vs) => ({ ...o, ...Object.fromEntries(missing.map((k, i) => [k, vs[i]])) })),
      );
    if (s.additionalProperties !== false && Object.keys(props).length === 0) {
      arb = fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 2 }), {
        maxKeys: 4,
      }) as fc.Arbitrary<Obj>;
    }
    const minProperties = s.minProperties as number | undefined;
    if (minProperties) arb = arb.filter((o) => Object.keys(o).length >= minProperties);
    return arb;
  }

  private string(s: Schema): fc.Arbitrary<string> {
    const minLength = (s.minLength as number | undefined) ?? 0;
    const maxLength = s.maxLength as number | undefined;
    const fits = (x: string) => [...x].length >= minLength && (maxLength === undefined || [...x].length <= maxLength);
    const options: fc.WeightedArbitrary<string>[] = [];
    if (typeof s.example === 'string') options.push({ arbitrary: fc.constant(s.example), weight: 4 });
    if (s.format === 'email') options.push({ arbitrary: fc.emailAddress(), weight: 4 });
    else if (s.format === 'uuid') options.push({ arbitrary: fc.uuid(), weight: 4 });
    else if (s.format === 'date-time')
      options.push({
        arbitrary: fc
          .date({ min: new Date('2000-01-01'), max: new Date('2099-12-31'), noInvalidDate: true })
          .map((d) => d.toISOString()),
        weight: 4,
      });
    else if (s.format === 'uri')
      options.push({ arbitrary: fc.webUrl({ withQueryParameters: true, withFragments: true }), weight: 4 });
    else if (typeof s.pattern === 'string')
      options.push({ arbitrary: fc.stringMatching(new RegExp(s.pattern)).filter(fits), weight: 4 });
    else {
      options.push({
        arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength ?? 24, 24), unit: 'grapheme' }).filter(fits),
        weight: 3,
      });
      options.push({
        arbitrary: fc.string({ minLength, maxLength: Math.min(maxLength ?? 12, 12) }).filter(fits),
        weight: 2,
      });
      // Boundary lengths in code points, led by a character whose upper case is longer (ß -> SS).
      const edge = Math.max(minLength, 1);
      options.push({
        arbitrary: fc
          .tuple(fc.constantFrom(...TRICKY_STRINGS), fc.constantFrom(edge, maxLength ?? 256))
          .map(([t, n]) => {
            const head = [...t].slice(0, n);
            return [...head, ...Array(Math.max(0, n - head.length)).fill('x')].join('');
          })
          .filter(fits),
        weight: 1,
      });
    }
    return fc.oneof(...options);
  }

  // -------------------------------------------------------------------------------------------
  // Invalid variants

  /**
   * Mutations of a valid object of the flat schema `s` that break one named field. Whether the
   * result is really invalid is for the document's validator to say (some mutations are harmless).
   */
  mutation(s: Schema): fc.Arbitrary<(base: Obj) => { value: Obj; field: string; kind: string }> {
    const props = Object.entries((s.properties ?? {}) as Obj).map(([name, p]) => [name, this.resolve(p)] as const);
    const required = ((s.required as string[] | undefined) ?? []) as string[];
    const choices: fc.Arbitrary<(base: Obj) => { value: Obj; field: string; kind: string }>[] = [];
    if (required.length) {
      choices.push(
        fc.constantFrom(...required).map((f) => (base: Obj) => {
          const { [f]: _gone, ...rest } = base;
          return { value: rest, field: f, kind: 'missing' };
        }),
      );
    }
    if (s.additionalProperties === false) {
      choices.push(
        fc.tuple(fc.constantFrom(...EXTRA_FIELDS), fc.jsonValue({ maxDepth: 1 })).map(([f, v]) => (base: Obj) => {
          // defineProperty: `__proto__` becomes a real member of the object (as JSON.parse makes it).
          const value = { ...base };
          Object.defineProperty(value, f, { value: v, enumerable: true, writable: true, configurable: true });
          return { value, field: f, kind: 'extra' };
        }),
      );
    }
    if (props.length) {
      choices.push(
        fc
          .tuple(fc.constantFrom(...props), fc.constantFrom(...TYPE_POOL))
          .map(([[f], v]) => (base: Obj) => ({ value: { ...base, [f]: v }, field: f, kind: 'type' })),
      );
      const enums = props.filter(([, p]) => Array.isArray(p.enum) || 'const' in p);
      if (enums.length) {
        choices.push(
          fc
            .tuple(fc.constantFrom(...enums), fc.constantFrom('not-a-value', '', 'X', ' ', 'upper', 'pad', 'nul'))
            .map(([[f, p], how]) => (base: Obj) => {
              const first = String(Array.isArray(p.enum) ? (p.enum as unknown[])[0] : p.const);
              const v =
                how === 'upper'
                  ? first.toUpperCase()
                  : how === 'pad'
                    ? ` ${first}`
                    : how === 'nul'
                      ? `${first}\u0000`
                      : how;
              return { value: { ...base, [f]: v }, field: f, kind: 'enum' };
            }),
        );
      }
      const numbers = props.filter(([, p]) => this.typesOf(p).some((t) => t === 'integer' || t === 'number'));
      if (numbers.length) {
        choices.push(
          fc
            .tuple(fc.constantFrom(...numbers), fc.constantFrom('below', 'above', ...NUMERIC_EDGES))
            .map(([[f, p], how]) => (base: Obj) => {
              const v =
                how === 'below'
                  ? ((p.minimum as number | undefined) ?? 0) - 1
                  : how === 'above'
                    ? ((p.maximum as number | undefined) ?? 2 ** 53) + 1
                    : how;
              return { value: { ...base, [f]: v }, field: f, kind: 'number' };
            }),
        );
      }
      const strings = props.filter(
        ([, p]) => this.typesOf(p).includes('string') && !Array.isArray(p.enum) && !('const' in p),
      );
      if (strings.length) {
        choices.push(
          fc
            .tuple(
              fc.constantFrom(...strings),
              fc.oneof(
                fc.constantFrom('', ' ', 'over', 'long', ...TRICKY_STRINGS),
                fc.string({ unit: 'binary', maxLength: 20 }),
              ),
            )
            .map(([[f, p], how]) => (base: Obj) => {
              const max = (p.maxLength as number | undefined) ?? 64;
              const v = how === 'over' ? 'ß'.repeat(max + 1) : how === 'long' ? 'x'.repeat(5000) : how;
              return { value: { ...base, [f]: v }, field: f, kind: 'string' };
            }),
        );
      }
      const arrays = props.filter(([, p]) => this.typesOf(p).includes('array'));
      if (arrays.length) {
        choices.push(
          fc
            .tuple(
              fc.constantFrom(...arrays),
              fc.constantFrom<unknown[]>([0], [-1], ['a'], [1, 1], [null], [[]], [1.5], [2 ** 53 + 2]),
            )
            .map(([[f], v]) => (base: Obj) => ({ value: { ...base, [f]: v }, field: f, kind: 'array' })),
        );
      }
    }
    if (choices.length === 0)
      choices.push(
        fc.constant((base: Obj) => ({ value: { ...base, fuzz_extra: 1 }, field: 'fuzz_extra', kind: 'extra' })),
      );
    return fc.oneof(...choices);
  }
}
