// The one request pipeline of both interfaces, in the documented order:
// authentication (401) -> authorisation (403) -> body parsing (413 over 64 KiB, 400 on malformed JSON)
// -> validation against the document (400 naming field and rule) -> rate limit (429) -> handler.
// Outside the contract, when the server is built with them: injected faults first, and the Prefer
// header last, in place of the handler (src/http/fault-step.ts, src/http/prefer.ts).
// Each step is a middleware factory taking one options object; `composeSteps` chains them for one
// operation of the document. Steps end with `return next()` (or `await next()`), and the built-in
// steps are synchronous unless they must wait (reading a body): a GET runs the whole pipeline and
// its handler in one call, without a promise, and Hono answers it on its synchronous path.
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError, unauthorized } from '../core/errors.js';
import { rawBodyOf, type OperationValidator, type RawBody, type ValidatedRequest } from '../openapi/requests.js';
import type { RateLimiter } from './rate-limit.js';
import type { Clock } from '../domain/clock.js';
import { MAX_BODY_BYTES } from '../core/limits.js';
import { Memo } from '../core/memo.js';
import { basicCredentials, keyOfHeader, type KeyField } from '../core/basic-auth.js';
import { answerModeOf, type AnswerMode } from './answers.js';

export interface PipelineVariables<P> {
  principal: P;
  input: ValidatedRequest;
  operationId: string;
  /** Opaque identity of the credential, for rate limiting (never the key itself). */
  credentialId: string;
  rawBody: RawBody;
  /** The body fields the request-body convention ignored (named in `Tusk-Ignored-Fields`). */
  ignoredFields?: readonly string[];
  /** Whether every field the schema does not name is refused (`--strict-fields`, `Tusk-Strict-Fields`). */
  strictFields?: boolean;
  /** The `Tusk-Answers` header's mode, when sent (answers.ts). */
  answerMode?: AnswerMode;
}
export type PipelineEnv<P> = { Variables: PipelineVariables<P> };

export interface AuthenticateOptions<P> {
  /** Which Basic field carries the key: the password, or the password else the user. */
  keyField: KeyField;
  /** Finds the principal of a key; undefined for a wrong, revoked or foreign key. */
  resolve: (key: string) => { principal: P; credentialId: string } | undefined;
}

export function authenticate<P>(options: AuthenticateOptions<P>): MiddlewareHandler<PipelineEnv<P>> {
  // Authorization header -> the key it carries ('' for none), so a header is decoded once. The key
  // is still resolved on every request: a revoked key is refused at once.
  const keys = new Memo<string>({ size: 10_000 });
  const decode = (header: string): string => keyOfHeader(header, options.keyField);
  return (c, next) => {
    const header = c.req.header('authorization');
    const key = header ? keys.get(header, decode) : '';
    const found = key ? options.resolve(key) : undefined;
    if (!found) {
      const creds = basicCredentials(header);
      if (!creds) throw unauthorized('Unauthorized: HTTP Basic credentials with an API key are required');
      // The customer interface reads the password field only: say so to a client that put the key in the user field.
      if (options.keyField === 'password' && !creds.password && creds.user) {
        throw unauthorized(
          'Unauthorized: the API key goes in the password field of HTTP Basic, with an empty user name (curl -u :KEY); this interface does not read the user field',
        );
      }
      throw unauthorized();
    }
    c.set('principal', found.principal);
    c.set('credentialId', found.credentialId);
    return next();
  };
}

export interface AuthorizeOptions<P> {
  /** Throws a 403 ApiError when the principal may not call the operation. */
  check: (principal: P, operationId: string) => void;
}

export function authorize<P>(options: AuthorizeOptions<P>): MiddlewareHandler<PipelineEnv<P>> {
  return (c, next) => {
    options.check(c.get('principal'), c.get('operationId'));
    return next();
  };
}

export interface ParseBodyOptions {
  /** Whether the operation takes a body at all (others ignore what is sent). */
  acceptsBody: boolean;
}

/** JSON only with Content-Type application/json; anything else (or no Content-Type) is read as form data. */
const NO_BODY: RawBody = Object.freeze({ kind: 'none' });

export function parseBody<P>(options: ParseBodyOptions): MiddlewareHandler<PipelineEnv<P>> {
  if (!options.acceptsBody) {
    return (c, next) => {
      c.set('rawBody', NO_BODY);
      return next();
    };
  }
  return async (c, next) => {
    c.set('rawBody', await readBody(c));
    return next();
  };
}

/** A body over `limit` bytes (413): refused by its Content-Length, or as soon as that many bytes arrived. */
export const payloadTooLarge = (limit = MAX_BODY_BYTES) =>
  new ApiError(
    413,
    `Payload too large: a request body may have at most ${limit} bytes (${limit >= 1024 * 1024 ? `${limit / 1024 / 1024} MiB` : `${limit / 1024} KiB`})`,
    { field: 'body', rule: 'maxBytes' },
  );

/** The body's bytes, read no further than `limit` (the APIs' MAX_BODY_BYTES), before anything parses them. */
export async function readLimitedBody(req: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  const length = req.headers.get('content-length');
  const declared = Number(length ?? 0);
  if (declared > limit) throw payloadTooLarge(limit);
  if (length !== null && /^\d+$/.test(length)) {
    // A declared length within the limit: the body is read whole, on @hono/node-server's direct
    // path from the socket (req.body would build a web stream and a full Request for it).
    const whole = new Uint8Array(
      await req.arrayBuffer().catch(() => {
        throw new ApiError(400, 'body: the request body could not be read (the client aborted it)', {
          field: 'body',
          rule: 'aborted',
        });
      }),
    );
    if (whole.byteLength > limit) throw payloadTooLarge(limit);
    return whole;
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw new ApiError(400, 'body: the request body could not be read (the client aborted it)', {
        field: 'body',
        rule: 'aborted',
      });
    });
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => undefined);
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** One decoder for every body: decode() without `stream` keeps nothing between calls. */

async function readBody(c: Context): Promise<RawBody> {
  return rawBodyOf(await readLimitedBody(c.req.raw), c.req.header('content-type') ?? '');
}

export interface ValidateOptions {
  validator: OperationValidator;
  /** `--strict-fields`: refuse every body field the schema does not name (else: ignore it). */
  strictFields?: () => boolean;
}

/** Reads a request's `Tusk-Strict-Fields` header: true, false, or undefined when absent; a 400 otherwise. */
export function strictFieldsOf(header: string | undefined): boolean | undefined {
  if (header === undefined) return undefined;
  const v = header.trim().toLowerCase();
  if (v === 'true' || v === 'false') return v === 'true';
  throw new ApiError(400, 'Tusk-Strict-Fields: must be true or false (header outside the contract)', {
    field: 'Tusk-Strict-Fields',
    rule: 'enum',
  });
}

export function validateRequest<P>(options: ValidateOptions): MiddlewareHandler<PipelineEnv<P>> {
  const { validator } = options;
  const strictByDefault = options.strictFields ?? (() => false);
  return (c, next) => {
    // Headers outside the contract that change the answer: read (and refused when malformed) before anything changes.
    const answers = c.req.header('tusk-answers');
    if (answers !== undefined) c.set('answerMode', answerModeOf(answers));
    // Only what the operation declares is read: no path parameters, no query string parsed for nothing.
    const pathParams = validator.hasPathParameters ? (c.req.param() as Record<string, string>) : {};
    const { params, query } = validator.parameters(
      pathParams,
      validator.hasQueryParameters ? queryOf(c.req.url) : EMPTY_QUERY,
    );
    // Integration bodies: the path names the system whose schema applies.
    const system = validator.systemBodies.size
      ? Object.values(params).find((v): v is string => typeof v === 'string' && validator.systemBodies.has(v))
      : undefined;
    let body: unknown;
    if (validator.acceptsBody) {
      const strict = strictFieldsOf(c.req.header('tusk-strict-fields')) ?? strictByDefault();
      c.set('strictFields', strict);
      const read = validator.read(c.get('rawBody'), system, strict ? { strict } : {});
      body = read.value;
      if (read.ignored.length) c.set('ignoredFields', read.ignored);
    }
    c.set('input', { params, query, body });
    return next();
  };
}

const EMPTY_QUERY = new URLSearchParams();

/** The query string of a URL, without parsing the rest of it. */
function queryOf(url: string): URLSearchParams {
  const q = url.indexOf('?');
  if (q < 0) return EMPTY_QUERY;
  const hash = url.indexOf('#', q);
  return new URLSearchParams(hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash));
}

export interface RateLimitMiddlewareOptions<P> {
  limiter: () => RateLimiter;
  /** The clock whose time the principal's window is counted in (default: the limiter's). */
  clockOf?: (principal: P) => Clock;
}

export function rateLimit<P>(options: RateLimitMiddlewareOptions<P>): MiddlewareHandler<PipelineEnv<P>> {
  const clockOf = options.clockOf;
  return (c, next) => {
    const limiter = options.limiter();
    const wait = limiter.hit(c.get('credentialId'), clockOf?.(c.get('principal')).now());
    if (wait !== undefined) {
      throw new ApiError(
        429,
        `Too many requests: limit is ${limiter.describe()} for this key`,
        {},
        { 'Retry-After': String(wait) },
      );
    }
    return next();
  };
}

/**
 * The steps of one operation, in order; Hono runs a route's handlers as a chain. Outside the
 * contract: `faults` (injected latency, errors, resets) runs before authentication and `prefer`
 * (the Prefer header) after the rate limit, in place of the handler.
 */
export function operationSteps<P>(
  operationId: string,
  steps: {
    authenticate: MiddlewareHandler<PipelineEnv<P>>;
    authorize?: MiddlewareHandler<PipelineEnv<P>>;
    parse: MiddlewareHandler<PipelineEnv<P>>;
    validate: MiddlewareHandler<PipelineEnv<P>>;
    rateLimit: MiddlewareHandler<PipelineEnv<P>>;
    faults?: MiddlewareHandler<PipelineEnv<P>>;
    prefer?: MiddlewareHandler<PipelineEnv<P>>;
  },
): MiddlewareHandler<PipelineEnv<P>>[] {
  const mark: MiddlewareHandler<PipelineEnv<P>> = (c, next) => {
    c.set('operationId', operationId);
    return next();
  };
  return [
    mark,
    ...(steps.faults ? [steps.faults] : []),
    steps.authenticate,
    ...(steps.authorize ? [steps.authorize] : []),
    steps.parse,
    steps.validate,
    steps.rateLimit,
    ...(steps.prefer ? [steps.prefer] : []),
  ];
}

/**
 * Chains middleware into one, as Hono's compose would (a Response a step returns becomes the
 * answer), but without a promise where no step makes one: the steps of a GET and its handler run
 * in one synchronous call. Each step must `return next()` or `await next()`.
 */
export function composeSteps<E extends object>(steps: MiddlewareHandler<E>[]): MiddlewareHandler<E> {
  type Result = Response | void | undefined | Promise<Response | void | undefined>;
  return ((c: Context, next: () => Result) => {
    const settle = (res: Response | void | undefined): Response | undefined => {
      if (res instanceof Response) {
        if (!c.finalized) c.res = res;
        return res;
      }
      return c.finalized ? c.res : undefined;
    };
    // As Hono's compose: a step that calls next() twice would run the rest of the chain (the handler
    // included) twice; that is a bug in the step, refused at once.
    let reached = -1;
    const run = (i: number): Result => {
      if (i <= reached) throw new Error('next() called multiple times');
      reached = i;
      const r =
        i === steps.length
          ? next()
          : (steps[i] as unknown as (c: Context, next: () => Result) => Result)(c, () => run(i + 1));
      return r instanceof Promise ? r.then(settle) : settle(r);
    };
    return run(0);
  }) as unknown as MiddlewareHandler<E>;
}
