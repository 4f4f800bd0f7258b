// Responses made from the document rather than from the stores: the declared response of a status,
// its media types and examples, and values for its headers. Used by the `Prefer` header
// (src/http/prefer.ts) and by injected faults (src/http/fault-step.ts).
import type { OpenApiDocument } from '../openapi/documents.js';
import { resolveLocal, type OperationInfo } from '../openapi/operations.js';

type Node = Record<string, unknown>;

/** The declared response object of a status key (`404`, `4XX`, `default`), $refs followed. */
export function responseObject(doc: OpenApiDocument, op: OperationInfo, key: string): Node | undefined {
  const raw = (op.raw.responses as Node | undefined)?.[key];
  return raw === undefined ? undefined : resolveLocal(doc, raw, `#/paths/x/${key}`).node;
}

/**
 * The response key the document declares for a status, as Prism finds it: the exact code, then its
 * range (`4XX`), then `default`.
 */
export function responseKeyFor(op: OperationInfo, status: number): string | undefined {
  const s = String(status);
  if (op.responses.has(s)) return s;
  if (op.responses.has(`${s[0]}XX`)) return `${s[0]}XX`;
  return op.responses.has('default') ? 'default' : undefined;
}

/** The media types of a response: `[mediaType, media object]`, in document order. */
export function mediaOf(doc: OpenApiDocument, response: Node): [string, Node][] {
  return Object.entries((response.content ?? {}) as Record<string, unknown>).map(([type, media]) => [
    type,
    resolveLocal(doc, media, '#/media').node,
  ]);
}

/**
 * The examples of a media object as Prism reads them: `example` (or else the schema's first
 * `examples` entry) under the key `default`, then the entries of the `examples` map by name.
 */
export function mediaExamples(doc: OpenApiDocument, media: Node): { key: string; value: unknown }[] {
  const out: { key: string; value: unknown }[] = [];
  const schema = media.schema === undefined ? undefined : resolveLocal(doc, media.schema, '#/schema').node;
  if ('example' in media) out.push({ key: 'default', value: media.example });
  else if (Array.isArray(schema?.examples) && schema.examples.length)
    out.push({ key: 'default', value: schema.examples[0] });
  for (const [key, ex] of Object.entries((media.examples ?? {}) as Record<string, unknown>)) {
    const node = resolveLocal(doc, ex, '#/example').node;
    out.push({ key, value: node.value });
  }
  return out;
}

/** A value for a schema without examples of its own, from its parts' examples (like Prism's static generation). */
export function sampleSchema(doc: OpenApiDocument, schemaNode: unknown, depth = 0): unknown {
  if (schemaNode === undefined || schemaNode === true || depth > 12) return undefined;
  const s = resolveLocal(doc, schemaNode, '#/schema').node;
  if ('example' in s) return s.example;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if ('default' in s) return s.default;
  if ('const' in s) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  for (const k of ['oneOf', 'anyOf'] as const)
    if (Array.isArray(s[k]) && (s[k] as unknown[]).length) return sampleSchema(doc, (s[k] as unknown[])[0], depth + 1);
  if (Array.isArray(s.allOf)) {
    return Object.assign(
      {},
      ...(s.allOf as unknown[]).map((p) => sampleSchema(doc, p, depth + 1)).filter((v) => v && typeof v === 'object'),
    );
  }
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  if (type === 'object' || s.properties) {
    return Object.fromEntries(
      Object.entries((s.properties ?? {}) as Record<string, unknown>)
        .map(([k, p]) => [k, sampleSchema(doc, p, depth + 1)])
        .filter(([, v]) => v !== undefined),
    );
  }
  if (type === 'array') {
    const item = sampleSchema(doc, s.items, depth + 1);
    return item === undefined ? [] : [item];
  }
  if (type === 'string') return '';
  if (type === 'integer' || type === 'number') return typeof s.minimum === 'number' ? s.minimum : 0;
  if (type === 'boolean') return true;
  if (type === 'null') return null;
  return undefined;
}

/** Values for the declared headers of a response: each header's example, else its schema's. */
export function exampleHeaders(doc: OpenApiDocument, response: Node): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, h] of Object.entries((response.headers ?? {}) as Record<string, unknown>)) {
    const header = resolveLocal(doc, h, '#/header').node;
    const value = 'example' in header ? header.example : sampleSchema(doc, header.schema);
    if (value !== undefined && value !== null && typeof value !== 'object') out[name] = String(value);
  }
  return out;
}
