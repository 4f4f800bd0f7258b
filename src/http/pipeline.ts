// The one request pipeline of both interfaces, in the documented order:
// authentication (401) -> authorisation (403) -> body parsing (400 on malformed JSON)
// -> validation against the document (400 naming field and rule) -> rate limit (429) -> handler.
// Each step is a middleware factory taking one options object; `operation(id)` composes them for
// one operation of the document.
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError, unauthorized } from './errors.js';
import type { OperationValidator, RawBody, ValidatedRequest } from '../openapi/requests.js';
import type { RateLimiter } from './rate-limit.js';

export interface PipelineVariables<P> {
  principal: P;
  input: ValidatedRequest;
  operationId: string;
  /** Opaque identity of the credential, for rate limiting (never the key itself). */
  credentialId: string;
  rawBody: RawBody;
}
export type PipelineEnv<P> = { Variables: PipelineVariables<P> };

/** Reads HTTP Basic credentials; undefined when the header is absent or malformed. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | undefined {
  if (!header) return undefined;
  const m = /^Basic[ ]+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

export interface AuthenticateOptions<P> {
  /** Which Basic field carries the key: the password, or the password else the user. */
  keyField: 'password' | 'password-or-user';
  /** Finds the principal of a key; undefined for a wrong, revoked or foreign key. */
  resolve: (key: string) => { principal: P; credentialId: string } | undefined;
}

export function authenticate<P>(options: AuthenticateOptions<P>): MiddlewareHandler<PipelineEnv<P>> {
  return async (c, next) => {
    const creds = basicCredentials(c.req.header('authorization'));
    const key = creds && (creds.password || (options.keyField === 'password-or-user' ? creds.user : ''));
    const found = key ? options.resolve(key) : undefined;
    if (!found) throw unauthorized(creds ? undefined : 'Unauthorized: HTTP Basic credentials with an API key are required');
    c.set('principal', found.principal);
    c.set('credentialId', found.credentialId);
    await next();
  };
}

export interface AuthorizeOptions<P> {
  /** Throws a 403 ApiError when the principal may not call the operation. */
  check: (principal: P, operationId: string) => void;
}

export function authorize<P>(options: AuthorizeOptions<P>): MiddlewareHandler<PipelineEnv<P>> {
  return async (c, next) => {
    options.check(c.get('principal'), c.get('operationId'));
    await next();
  };
}

export interface ParseBodyOptions {
  /** Whether the operation takes a body at all (others ignore what is sent). */
  acceptsBody: boolean;
}

/** JSON only with Content-Type application/json; anything else (or no Content-Type) is read as form data. */
export function parseBody<P>(options: ParseBodyOptions): MiddlewareHandler<PipelineEnv<P>> {
  return async (c, next) => {
    c.set('rawBody', options.acceptsBody ? await readBody(c) : { kind: 'none' });
    await next();
  };
}

async function readBody(c: Context): Promise<RawBody> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'multipart/form-data') {
    const form = await c.req.parseBody({ all: false }).catch(() => {
      throw new ApiError(400, 'body: malformed multipart form data', { field: 'body', rule: 'multipart' });
    });
    return { kind: 'form', fields: Object.entries(form).map(([k, v]) => [k, typeof v === 'string' ? v : '']) };
  }
  const text = await c.req.text();
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

export interface ValidateOptions {
  validator: OperationValidator;
}

export function validateRequest<P>(options: ValidateOptions): MiddlewareHandler<PipelineEnv<P>> {
  return async (c, next) => {
    const { params, query } = options.validator.parameters(c.req.param() as Record<string, string>, new URL(c.req.url).searchParams);
    // Integration bodies: the path names the system whose schema applies.
    const system = Object.values(params).find((v): v is string => typeof v === 'string' && options.validator.systemBodies.has(v));
    const body = options.validator.body(c.get('rawBody'), system);
    c.set('input', { params, query, body });
    await next();
  };
}

export interface RateLimitMiddlewareOptions {
  limiter: () => RateLimiter;
}

export function rateLimit<P>(options: RateLimitMiddlewareOptions): MiddlewareHandler<PipelineEnv<P>> {
  return async (c, next) => {
    const limiter = options.limiter();
    const wait = limiter.hit(c.get('credentialId'));
    if (wait !== undefined) {
      throw new ApiError(429, `Too many requests: limit is ${limiter.describe()} for this key`, {}, { 'Retry-After': String(wait) });
    }
    await next();
  };
}

/** The steps of one operation, in order; Hono runs a route's handlers as a chain. */
export function operationSteps<P>(
  operationId: string,
  steps: { authenticate: MiddlewareHandler<PipelineEnv<P>>; authorize?: MiddlewareHandler<PipelineEnv<P>>; parse: MiddlewareHandler<PipelineEnv<P>>; validate: MiddlewareHandler<PipelineEnv<P>>; rateLimit: MiddlewareHandler<PipelineEnv<P>> },
): MiddlewareHandler<PipelineEnv<P>>[] {
  const mark: MiddlewareHandler<PipelineEnv<P>> = async (c, next) => {
    c.set('operationId', operationId);
    await next();
  };
  return [mark, steps.authenticate, ...(steps.authorize ? [steps.authorize] : []), steps.parse, steps.validate, steps.rateLimit];
}
