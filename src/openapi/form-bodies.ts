// A request body's bytes as the request-body convention reads them (CONVENTIONS.md, "Request
// bodies"): JSON with Content-Type application/json, multipart or URL-encoded form data otherwise;
// and a form body as the object its schema describes (form values are strings: the schema says
// which are numbers, booleans, arrays or JSON text), the schema's kinds collected once per operation.
import type { OpenApiDocument } from './documents.js';
import { resolveLocal } from './operations.js';
import { ApiError } from '../core/errors.js';

export type FieldKind = 'integer' | 'number' | 'boolean' | 'json' | 'string';

export type RawBody =
  { kind: 'none' } | { kind: 'json'; value: unknown } | { kind: 'form'; fields: [string, string][] };

const UTF8 = new TextDecoder();

/**
 * A request body's bytes as the request-body convention reads them (CONVENTIONS.md): JSON with
 * Content-Type application/json (empty: no body), multipart form data, anything else as URL-encoded
 * form data. Throws a 400 ApiError for malformed JSON or multipart.
 */
export async function rawBodyOf(bytes: Uint8Array, contentType: string): Promise<RawBody> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') {
    const form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData().catch(() => {
      throw new ApiError(400, 'body: malformed multipart form data', { field: 'body', rule: 'multipart' });
    });
    return { kind: 'form', fields: [...form.entries()].map(([k, v]) => [k, typeof v === 'string' ? v : '']) };
  }
  // UTF-8, as Request.text() reads it (a leading byte order mark is dropped).
  const text = UTF8.decode(bytes);
  if (type === 'application/json') {
    if (text.trim() === '') return { kind: 'none' };
    try {
      return { kind: 'json', value: JSON.parse(text) };
    } catch (err) {
      throw new ApiError(400, `body: malformed JSON (${(err as Error).message})`, { field: 'body', rule: 'json' });
    }
  }
  if (text === '') return { kind: 'none' };
  return { kind: 'form', fields: [...new URLSearchParams(text)] };
}

/** How a form body's fields read: each field's kind, and the item kind of the array fields. */
export interface FormKinds {
  fields: Map<string, FieldKind>;
  arrayItems: Map<string, FieldKind>;
}

/** Collects the JSON type of every property a body schema may have, through $ref, allOf, anyOf, oneOf, if/then. */
export function propertyKinds(
  doc: OpenApiDocument,
  schema: unknown,
  into: FormKinds = { fields: new Map(), arrayItems: new Map() },
  depth = 0,
): FormKinds {
  if (!schema || typeof schema !== 'object' || depth > 16) return into;
  const s = resolveLocal(doc, schema, '#').node;
  for (const [name, prop] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    const p = resolveLocal(doc, prop, '#').node;
    const kind = kindOf(p);
    if (!into.fields.has(name) || into.fields.get(name) === 'string') into.fields.set(name, kind);
    if (([] as unknown[]).concat(p.type ?? []).includes('array') && p.items)
      into.arrayItems.set(name, kindOf(resolveLocal(doc, p.items, '#').node));
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    for (const sub of (s[key] ?? []) as unknown[]) propertyKinds(doc, sub, into, depth + 1);
  }
  for (const key of ['then', 'else']) if (s[key]) propertyKinds(doc, s[key], into, depth + 1);
  return into;
}

/**
 * A form body as the object its schema describes. Scalars are read by the schema's type, objects
 * are JSON text, and an array field may come in three styles (CONVENTIONS.md, "Request bodies"):
 * JSON text (`recipients=[1,2]`), brackets (`recipients[]=1&recipients[]=2`, Rails and PHP) or the
 * key repeated (`recipients=1&recipients=2`); a single bare value is an array of one, an empty one
 * (`recipients=` or a lone `recipients[]=`) the empty array. Another repeated field: the last counts.
 * A value that does not read stays text, so validation names the field.
 */
export function readForm(fields: [string, string][], kinds: FormKinds): Record<string, unknown> {
  const arrays = new Map<string, string[]>();
  const entries: [string, unknown][] = [];
  for (const [key, text] of fields) {
    const name = key.endsWith('[]') && kinds.arrayItems.has(key.slice(0, -2)) ? key.slice(0, -2) : key;
    if (kinds.arrayItems.has(name)) {
      const list = arrays.get(name);
      if (list) list.push(text);
      else {
        arrays.set(name, [text]);
        entries.push([name, undefined]); // its place among the fields; filled below
      }
    } else entries.push([key, readScalar(text, kinds.fields.get(key) ?? 'string')]);
  }
  for (const [name, texts] of arrays) {
    const item = kinds.arrayItems.get(name)!;
    let value: unknown;
    if (texts.length === 1 && /^\s*\[/.test(texts[0]!)) value = readScalar(texts[0]!, 'json');
    else if (texts.every((t) => t === '')) value = [];
    else value = texts.map((t) => readScalar(t, item));
    const at = entries.findIndex(([k, v]) => k === name && v === undefined);
    entries[at] = [name, value];
  }
  // fromEntries defines every field as a member (an assignment would take `__proto__` as the
  // prototype and drop it unseen).
  return Object.fromEntries(entries);
}

/** Reads a scalar string by the kind the schema gives it; a value that does not read stays a string, so validation names it. */
export function readScalar(value: string, kind: FieldKind): unknown {
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

/** The kind of a field by its schema's type. */
export function kindOf(schema: Record<string, unknown>): FieldKind {
  const types = ([] as unknown[]).concat(schema.type ?? (schema.const !== undefined ? typeof schema.const : []));
  if (types.includes('integer')) return 'integer';
  if (types.includes('number')) return 'number';
  if (types.includes('boolean')) return 'boolean';
  if (types.includes('array') || types.includes('object')) return 'json';
  return 'string';
}
