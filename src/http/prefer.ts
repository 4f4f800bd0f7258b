// The `Prefer` header, as Prism reads it (Prism 5, @stoplight/prism-http): `Prefer: code=404`
// answers the operation's documented 404 with its example; `Prefer: example=NAME` a named example
// (of the lowest 2XX response, or of `code`'s); both together combine. The step sits last in the
// pipeline, in place of the handler: authentication, authorisation, validation and the rate limit
// still apply (a request without a key is still a 401, an invalid one a 400), and the stores are
// never called, so nothing changes. Like Prism:
// - the response for a code is the exact status, else its range (`4XX`), else `default`; a code the
//   operation does not declare is a 404 (Prism's NOT_FOUND problem: type, title, status, detail);
// - `code` must be three digits, else 422 (Prism's UNPROCESSABLE_ENTITY);
// - the body is the media type's `example` (named `default`) or the named entry of its `examples`
//   map; a name that is not there is a 404; without examples, a value built from the schema's own
//   examples; 204, HEAD and responses without content have no body;
// - other preferences (`dynamic`, `return=minimal`, ...) are ignored.
// Our additions: the error bodies also carry `error` (the contract's Error shape), and the answer
// carries `Preference-Applied` (RFC 7240) naming what was applied.
import type { MiddlewareHandler } from 'hono';
import type { OpenApiDocument } from '../openapi/documents.js';
import type { OperationInfo } from '../openapi/operations.js';
import { exampleHeaders, mediaExamples, mediaOf, responseKeyFor, responseObject, sampleSchema } from './examples.js';

/** Parses a Prefer header like parse-prefer-header (Prism's parser): `name=value` pairs, the first of a name wins. */
export function parsePrefer(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const preference of splitOutsideQuotes(header, ',')) {
    const [first] = splitOutsideQuotes(preference, ';');
    if (!first) continue;
    const eq = first.indexOf('=');
    const name = (eq < 0 ? first : first.slice(0, eq)).trim().toLowerCase();
    let value = eq < 0 ? '' : first.slice(eq + 1).trim();
    if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

function splitOutsideQuotes(text: string, sep: string): string[] {
  const parts: string[] = [];
  let quote = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quote = !quote;
    else if (text[i] === sep && !quote) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** A response made from the document. `body` undefined: no body. */
export interface DocumentedResponse {
  status: number;
  headers: Record<string, string>;
  mediaType?: string;
  body?: unknown;
}

const PROBLEMS = {
  NOT_FOUND: { title: 'The server cannot find the requested content', status: 404 },
  UNPROCESSABLE_ENTITY: { title: 'Invalid request', status: 422 },
} as const;

/** Prism's problem document, plus `error` (the contract's Error body). */
function problem(type: keyof typeof PROBLEMS, detail: string): DocumentedResponse {
  const { title, status } = PROBLEMS[type];
  return {
    status,
    headers: {},
    mediaType: 'application/json',
    body: { error: `${title}: ${detail}`, type: `https://stoplight.io/prism/errors#${type}`, title, status, detail },
  };
}

/** The lowest 2XX response key (Prism sorts the codes as text), else default, else the first. */
function unspecifiedKey(op: OperationInfo): string | undefined {
  const keys = [...op.responses.keys()];
  const ok = keys.filter((k) => /^2(\d\d|XX)$/.test(k)).sort();
  return ok[0] ?? (keys.includes('default') ? 'default' : keys[0]);
}

/** Picks the media type an Accept header asks for; the first declared one when none matches. */
function pickMedia<T>(media: [string, T][], accept: string | undefined): [string, T] | undefined {
  const wanted = (accept ?? '')
    .split(',')
    .map((a) => a.split(';')[0]!.trim().toLowerCase())
    .filter(Boolean);
  const matches = (declared: string, w: string) =>
    w === '*/*' || w === declared || (w.endsWith('/*') && declared.startsWith(w.slice(0, -1)));
  for (const w of wanted) {
    const found = media.find(([type]) => matches(type.toLowerCase(), w));
    if (found) return found;
  }
  return media[0];
}

/**
 * The response `Prefer` asks for, or undefined when it asks for nothing Prism would act on
 * (no `code`, no `example`).
 */
export function preferredResponse(
  doc: OpenApiDocument,
  op: OperationInfo,
  request: { prefer: string | undefined; accept?: string; method: string },
): DocumentedResponse | undefined {
  const prefs = parsePrefer(request.prefer);
  const code = prefs.get('code');
  const exampleKey = prefs.get('example') || undefined;
  if (code === undefined && exampleKey === undefined) return undefined;
  let key: string | undefined;
  let status: number;
  if (code !== undefined) {
    if (!/^\d{3}$/.test(code))
      return problem('UNPROCESSABLE_ENTITY', `Prefer: code must be a three-digit status, got "${code}"`);
    status = Number(code);
    key = responseKeyFor(op, status);
    if (!key) return problem('NOT_FOUND', `Requested status code ${status} is not defined in the document.`);
  } else {
    key = unspecifiedKey(op);
    if (!key) return problem('NOT_FOUND', `No response is defined for ${op.operationId}.`);
    status = /^\d{3}$/.test(key) ? Number(key) : key.endsWith('XX') ? Number(key[0]) * 100 : 200;
  }
  const response = responseObject(doc, op, key)!;
  const headers = exampleHeaders(doc, response);
  const applied = [code !== undefined ? `code=${code}` : '', exampleKey ? `example=${exampleKey}` : '']
    .filter(Boolean)
    .join(', ');
  headers['Preference-Applied'] = applied;
  const media = pickMedia(mediaOf(doc, response), request.accept);
  if (!media) return { status, headers };
  const [mediaType, mediaNode] = media;
  const examples = mediaExamples(doc, mediaNode);
  let body: unknown;
  if (exampleKey) {
    const found = examples.find((e) => e.key === exampleKey);
    if (!found)
      return problem(
        'NOT_FOUND',
        `Response for contentType: ${mediaType} and exampleKey: ${exampleKey} does not exist.`,
      );
    body = found.value;
  } else {
    body = examples.length ? examples[0]!.value : sampleSchema(doc, mediaNode.schema);
  }
  if (status === 204 || status === 304 || request.method === 'HEAD') return { status, headers };
  return { status, headers, mediaType, body };
}

/** Turns a documented response into a fetch Response (JSON serialised unless it is a text type given a string). */
export function toResponse(r: DocumentedResponse): Response {
  const headers = new Headers(r.headers);
  if (r.body === undefined || r.status === 204 || r.status === 304)
    return new Response(null, { status: r.status, headers });
  const mediaType = r.mediaType ?? 'application/json';
  const text = typeof r.body === 'string' && !/json/i.test(mediaType) ? r.body : JSON.stringify(r.body);
  headers.set('content-type', /^text\//i.test(mediaType) ? `${mediaType}; charset=utf-8` : mediaType);
  return new Response(text, { status: r.status, headers });
}

/** The pipeline step (last, in place of the handler): answers what `Prefer` asks for, else goes on. */
export function preferStep(doc: OpenApiDocument, op: OperationInfo): MiddlewareHandler {
  // Not async: without a Prefer header the step passes on synchronously (see composeSteps).
  return (c, next) => {
    const prefer = c.req.header('prefer');
    if (prefer === undefined) return next();
    const r = preferredResponse(doc, op, { prefer, accept: c.req.header('accept'), method: c.req.method });
    if (!r) return next();
    c.res = toResponse(r);
    return Promise.resolve(c.res);
  };
}
