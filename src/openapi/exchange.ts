// Checks of one HTTP exchange against the documents, shared by everything that judges traffic: the
// conformance suite's response check (contract-tests/harness/contract.ts) and the validating proxy
// (src/proxy/) use these, with the same compiled validators as the stand-in's request pipeline
// (OperationValidator). A departure names the side at fault (the client's request or the server's
// response), the field where there is one, and the rule.
import { ApiError, unauthorized } from '../core/errors.js';
import { SchemaSet, describeError } from './ajv.js';
import type { InterfaceName, OpenApiDocument } from './documents.js';
import { declaredResponse, readOperations, type OperationInfo } from './operations.js';
import { OperationValidator, rawBodyOf, type RawBody } from './requests.js';
import { parseBasic, type KeyField } from '../core/basic-auth.js';

/** What the checks read of a response (supertest's Response fits). */
export interface ResponseLike {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text?: string;
}

export interface Departure {
  side: 'request' | 'response';
  /** The rule broken: `status`, `header`, `contentType`, `json`, `operation`, `auth`, or the schema keyword (`required`, `type`, `format`, ...). */
  rule: string;
  field?: string;
  message: string;
}

/**
 * The departures of a response from what the document declares for its operation (none: it
 * conforms). `head`: the answer to a HEAD request, which has the GET's status and headers but no
 * body, so its body is not checked.
 */
export function responseDepartures(
  schemas: SchemaSet,
  op: OperationInfo,
  res: ResponseLike,
  options: { head?: boolean } = {},
): Departure[] {
  const api = op.api;
  const out: Departure[] = [];
  const depart = (rule: string, message: string, field?: string) =>
    out.push({ side: 'response', rule, message, ...(field !== undefined ? { field } : {}) });
  const declared = declaredResponse(op, res.status);
  if (!declared) {
    depart('status', `status ${res.status} is not declared (declared: ${[...op.responses.keys()].join(', ')})`);
    return out;
  }
  const header = (name: string) => {
    const v = res.headers[name.toLowerCase()];
    return Array.isArray(v) ? v.join(', ') : v;
  };
  for (const h of declared.headers) {
    const value = header(h.name);
    if (value === undefined) {
      if (h.required) depart('header', `header ${h.name} is required on ${res.status} but absent`, h.name);
      continue;
    }
    const validate = schemas.validator(api, h.schemaRef);
    if (!validate(value))
      depart('header', `header ${h.name} ${JSON.stringify(value)}: ${describeError(validate.errors![0]!)}`, h.name);
  }
  if (options.head) return out;
  const text = res.text ?? '';
  const contentType = (header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (declared.content.length === 0) {
    if (text.length > 0)
      depart('body', `status ${res.status} declares no body, but one was sent (${contentType || 'no content type'})`);
    return out;
  }
  const media = declared.content.find((m) => m.mediaType.toLowerCase() === contentType);
  if (!media) {
    depart(
      'contentType',
      `content type ${JSON.stringify(contentType)} is not declared for ${res.status} (declared: ${declared.content.map((m) => m.mediaType).join(', ')})`,
    );
    return out;
  }
  if (!media.schemaRef) return out;
  let body: unknown = text;
  if (/json/.test(media.mediaType)) {
    try {
      body = JSON.parse(text);
    } catch {
      depart('json', `body is not valid JSON: ${JSON.stringify(text.slice(0, 80))}`);
      return out;
    }
  }
  // Every departure of the body, not only the first (the fast validator tells whether there is any).
  if (!schemas.validator(api, media.schemaRef)(body)) {
    for (const r of schemas.departuresOf(api, media.schemaRef, body, 'body', 'body'))
      depart(r.rule, `body does not match the ${res.status} schema: ${r.message}`, r.field);
  }
  return out;
}

/** What the checks read of a request. */
export interface RequestLike {
  method: string;
  /** The path without the query string, as sent (percent-encoded). */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: Uint8Array;
}

/** Which Basic field an interface reads the key from (the stand-in's authenticate step, pipeline.ts). */
const KEY_FIELD: Record<InterfaceName, KeyField> = { customer: 'password', instance: 'password-or-user' };

/**
 * The operations of both documents and their validators, compiled once: finds the operation a
 * request is for and checks requests and responses against it.
 */
export class ExchangeChecker {
  private readonly routes: Record<
    InterfaceName,
    { op: OperationInfo; regex: RegExp; names: string[]; validator: OperationValidator }[]
  >;

  constructor(
    documents: Record<InterfaceName, OpenApiDocument>,
    readonly schemas: SchemaSet = new SchemaSet(documents),
  ) {
    const build = (api: InterfaceName) =>
      readOperations(api, documents[api])
        .map((op) => {
          const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
          const regex = new RegExp(
            '^' + op.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/]+)') + '$',
          );
          return { op, regex, names, validator: new OperationValidator(op, documents[api], this.schemas) };
        })
        // A literal segment wins over a template (/api/alarms/recipients before /api/alarms/{id}).
        .sort((a, b) => a.names.length - b.names.length);
    this.routes = { customer: build('customer'), instance: build('instance') };
  }

  /** The departures of a response to operation `op` (responseDepartures with these validators). */
  responseDepartures(op: OperationInfo, res: ResponseLike, options: { head?: boolean } = {}): Departure[] {
    return responseDepartures(this.schemas, op, res, options);
  }

  /**
   * The operation a method and path are for, with the path's parameters (decoded); undefined when
   * none. A HEAD request is the GET of its path (HTTP: the same answer without the body).
   */
  match(
    api: InterfaceName,
    method: string,
    path: string,
  ): { op: OperationInfo; params: Record<string, string>; validator: OperationValidator } | undefined {
    const m = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    for (const r of this.routes[api]) {
      if (r.op.method !== m) continue;
      const found = r.regex.exec(path);
      if (!found) continue;
      try {
        return {
          op: r.op,
          validator: r.validator,
          params: Object.fromEntries(r.names.map((n, i) => [n, decodeURIComponent(found[i + 1]!)])),
        };
      } catch {
        return {
          op: r.op,
          validator: r.validator,
          params: Object.fromEntries(r.names.map((n, i) => [n, found[i + 1]!])),
        };
      }
    }
    return undefined;
  }

  /**
   * The departures of a request from the document: an operation that does not exist, credentials
   * not in the interface's form, parameters or a body its schemas refuse (after the request-body
   * convention, CONVENTIONS.md, as the stand-in reads them). `op` is the operation, if any matched.
   */
  async requestDepartures(
    api: InterfaceName,
    req: RequestLike,
  ): Promise<{ op?: OperationInfo; departures: Departure[]; error?: ApiError }> {
    const matched = this.match(api, req.method, req.path);
    if (!matched) {
      const message = `no operation of the ${api} interface is ${req.method.toUpperCase()} ${req.path}`;
      return {
        departures: [{ side: 'request', rule: 'operation', message }],
        error: new ApiError(404, `Not found: ${message}`),
      };
    }
    const { op, params, validator } = matched;
    const auth = authDeparture(api, headerOf(req.headers, 'authorization'));
    // The answer the stand-in would give: the first refusal, in the order of its pipeline.
    let error: ApiError | undefined = auth ? unauthorized(`Unauthorized: ${auth.message}`) : undefined;
    let raw: RawBody | ApiError = { kind: 'none' };
    let system: string | undefined;
    try {
      const checked = validator.parameters(params, req.query);
      // As the stand-in reads it (pipeline.ts validateRequest): the path names an integration's system.
      system = validator.systemBodies.size
        ? Object.values(checked.params).find((v): v is string => typeof v === 'string' && validator.systemBodies.has(v))
        : undefined;
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      error ??= err;
    }
    if (validator.acceptsBody) {
      try {
        raw = await rawBodyOf(req.body, headerOf(req.headers, 'content-type') ?? '');
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        raw = err; // malformed JSON or multipart
      }
      try {
        if (raw instanceof ApiError) throw raw;
        validator.read(raw, system);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        error ??= err;
      }
    }
    if (!error) return { op, departures: [] };
    // Every departure, not only the one the stand-in would answer.
    const found = validator
      .departures(params, req.query, raw, system)
      .map((r): Departure => ({ side: 'request', rule: r.rule, field: r.field, message: r.message }));
    return { op, departures: [...(auth ? [auth] : []), ...found], error };
  }
}

function headerOf(headers: RequestLike['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A request's credentials against the interface's form: HTTP Basic, the key in the field the interface reads. */
function authDeparture(api: InterfaceName, header: string | undefined): Departure | undefined {
  const depart = (message: string): Departure => ({ side: 'request', rule: 'auth', field: 'Authorization', message });
  if (!header) return depart('no credentials: every operation needs HTTP Basic with an API key');
  const creds = parseBasic(header);
  if (creds === 'not basic') return depart('the Authorization header is not HTTP Basic');
  if (creds === 'no colon') return depart('the Basic credentials have no colon between user and password');
  const { user, password } = creds;
  if (password) return undefined;
  if (user && KEY_FIELD[api] === 'password-or-user') return undefined;
  return depart(
    user
      ? 'the key is in the user field; this interface reads the password field (curl -u :KEY)'
      : 'the Basic credentials carry no key',
  );
}
