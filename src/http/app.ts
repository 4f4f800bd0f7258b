// Builds one interface's Hono app from its document: every operation of the document is routed
// through the request pipeline to a handler of a resource sub-app, and app.onError / app.notFound
// are the one place errors become the documented JSON Error body (never Hono's plain text).
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import { readOperations, type OperationInfo } from '../openapi/operations.js';
import type { SchemaSet } from '../openapi/ajv.js';
import { OperationValidator } from '../openapi/requests.js';
import { ApiError } from '../core/errors.js';
import {
  authenticate,
  authorize,
  composeSteps,
  operationSteps,
  parseBody,
  rateLimit,
  validateRequest,
  type AuthenticateOptions,
  type AuthorizeOptions,
  type PipelineEnv,
} from './pipeline.js';
import type { RateLimiter } from './rate-limit.js';
import type { Clock } from '../domain/clock.js';
import { ConnectionReset, faultStep } from './fault-step.js';
import type { Faults } from '../domain/fault-rules.js';
import { preferStep } from './prefer.js';
import { successCodes, type AnswerOptions, type SuccessCodes } from './answers.js';
import { MemoRouter } from './router.js';
import type { Input } from './types.js';
import { moveFused, observeResponses, type Finish, type ResponseInfo } from './fast-path.js';

/** route(id): the pipeline of one operation; route.successCodes(id): how its success status is chosen. */
export interface Route {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one route() serves both interfaces' envs
  (operationId: string): MiddlewareHandler<any>;
  successCodes(operationId: string): SuccessCodes | undefined;
}

export interface ApiAppOptions<P> {
  api: InterfaceName;
  doc: OpenApiDocument;
  schemas: SchemaSet;
  authenticate: AuthenticateOptions<P>;
  authorize?: AuthorizeOptions<P>;
  limiter: () => RateLimiter;
  /** Mounts the resource sub-apps; `route(id)` gives the pipeline of one operation. */
  mount: (app: Hono<PipelineEnv<P>>, route: Route, validators: ReadonlyMap<string, OperationValidator>) => void;
  /** Called once per finished request (request log, journal). */
  onResponse?: (r: ResponseInfo, ms: number) => void;
  /**
   * Routes outside the contract (API reference at /docs, the documents at /openapi.json, the
   * control plane under /__tusk/), registered before the resources. They are not authenticated by
   * the pipeline and errors they throw still go through the one error handler.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- extensions serve both interfaces
  extensions?: ((app: Hono<any>, api: InterfaceName) => void)[];
  /** Outside the contract: fault injection (first step of every operation) and the Prefer header (last). */
  simulation?: {
    faults?: () => Faults | undefined;
    accountFaults?: (c: Context) => Faults | undefined;
    prefer?: boolean;
  };
  /**
   * The clock of the principal's account (rate-limit windows follow the account's time);
   * absent: the limiter's own clock.
   */
  clockOf?: (principal: P) => Clock;
  /**
   * Told of every answer of an operation's route, the not-found handler and the error handler,
   * with the request's context (its operationId, when an operation took it, and principal): API
   * coverage (src/openapi/coverage-recorder.ts).
   */
  onAnswer?: (c: Context, res: Response) => void;
  /** Which success code to answer where the documents allow several (answers.ts); default: the implementation's own. */
  answers?: AnswerOptions;
  /** `--strict-fields`: refuse body fields the schema does not name instead of ignoring them. */
  strictFields?: () => boolean;
}

export type { ResponseInfo } from './fast-path.js';

/** The validated input of the current request, typed by operation. */
export function input<Ops, Id extends keyof Ops>(c: Context): Input<Ops, Id> {
  return c.get('input') as Input<Ops, Id>;
}

export function errorResponse(c: Context, err: unknown): Response {
  // An injected connection reset is no answer at all: it leaves the app (see fault-step.ts).
  if (err instanceof ConnectionReset) throw err;
  if (err instanceof ApiError) {
    return c.json(err.body, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    return c.json({ error: err.message || `HTTP ${status}` }, status);
  }
  console.error('tusk: unexpected error', err);
  return c.json({ error: 'Internal server error, try again later' }, 500);
}

export function createApiApp<P>(options: ApiAppOptions<P>): Hono<PipelineEnv<P>> {
  const ops = readOperations(options.api, options.doc);
  const validators = new Map(ops.map((o) => [o.operationId, new OperationValidator(o, options.doc, options.schemas)]));
  const auth = authenticate<P>(options.authenticate);
  const authz = options.authorize ? authorize<P>(options.authorize) : undefined;
  const limit = rateLimit<P>({ limiter: options.limiter, ...(options.clockOf ? { clockOf: options.clockOf } : {}) });
  const routed = new Set<string>();
  const opsById = new Map(ops.map((o) => [o.operationId, o]));
  // The pipeline middleware route() hands out, by the operation it serves (see fuse() below), and
  // what is done to its handler's answer.
  const pipelines = new WeakMap<object, OperationInfo>();
  const finishers = new WeakMap<object, Finish>();

  // The Date header of an answer to an account whose clock is not real time: the
  // account's time, so that a client (and the conformance suite) reads the time the server keeps.
  const clockOf = options.clockOf;
  const date = clockOf
    ? (c: Context, res: Response) => {
        const principal = c.get('principal') as P | undefined;
        if (principal === undefined) return;
        const now = clockOf(principal).now();
        if (Math.abs(now - Date.now()) >= 1000) res.headers.set('Date', new Date(now).toUTCString());
      }
    : undefined;

  const codes = new Map<string, SuccessCodes | undefined>();
  const route: Route = Object.assign(
    (operationId: string) => {
      const validator = validators.get(operationId);
      if (!validator) throw new Error(`route(): the ${options.api} document has no operation ${operationId}`);
      if (routed.has(operationId)) throw new Error(`route(): ${operationId} is routed twice`);
      routed.add(operationId);
      const op = opsById.get(operationId)!;
      const sim = options.simulation;
      const pipeline = composeSteps(
        operationSteps<P>(operationId, {
          authenticate: auth,
          authorize: authz,
          parse: parseBody<P>({ acceptsBody: validator.acceptsBody }),
          validate: validateRequest<P>({
            validator,
            ...(options.strictFields ? { strictFields: options.strictFields } : {}),
          }),
          rateLimit: limit,
          ...(sim?.faults
            ? {
                faults: faultStep({
                  doc: options.doc,
                  op,
                  server: sim.faults,
                  ...(sim.accountFaults ? { account: sim.accountFaults } : {}),
                }),
              }
            : {}),
          ...(sim?.prefer ? { prefer: preferStep(options.doc, op) } : {}),
        }),
      );
      pipelines.set(pipeline, op);
      finishers.set(pipeline, finisher(date));
      codes.set(operationId, options.answers ? successCodes(options.doc, op, options.answers) : undefined);
      return pipeline;
    },
    { successCodes: (operationId: string) => codes.get(operationId) },
  );

  // The method guard: a method the path does not support is a 405 with Allow. The most specific
  // template decides, so a literal path (/api/alarms/recipients) is never taken by a sibling
  // template (/api/alarms/{id}) for a method only the template has. It runs first in every
  // operation's route (only where a more specific template could match) and in the not-found handler.
  const guard = methodGuard(ops);

  // Extensions and resources are mounted on a staging app, then moved to the app with each
  // operation's pipeline and handler fused into one handler (fast-path.ts says why).
  const staging = new Hono<PipelineEnv<P>>();
  for (const extend of options.extensions ?? []) extend(staging, options.api);
  options.mount(staging, route, validators);
  const app = new Hono<PipelineEnv<P>>({ router: new MemoRouter() });
  moveFused(staging, app, (pipeline) => {
    const op = pipelines.get(pipeline);
    return (
      op && {
        operationId: op.operationId,
        guard: guard.forRoute(op),
        finish: finishers.get(pipeline)!,
        answered: options.onAnswer,
      }
    );
  });

  // Every operation of the document is routed, at its own method and path, and nothing else is.
  const missing = ops.filter((o) => !routed.has(o.operationId)).map((o) => o.operationId);
  if (missing.length) throw new Error(`the ${options.api} app routes no handler for: ${missing.join(', ')}`);
  const registered = new Set(app.routes.map((r) => `${r.method} ${r.path}`));
  const misplaced = ops
    .filter((o) => !registered.has(`${o.method.toUpperCase()} ${o.routePath}`))
    .map((o) => `${o.operationId} (${o.method.toUpperCase()} ${o.path})`);
  if (misplaced.length)
    throw new Error(
      `the ${options.api} app routes these operations elsewhere than the document says: ${misplaced.join(', ')}`,
    );

  app.notFound((c) => {
    guard.check(c);
    const res = errorResponse(
      c,
      new ApiError(404, `Not found: ${c.req.method} ${c.req.path} is not a resource of the ${options.api} interface`),
    );
    options.onAnswer?.(c, res);
    return res;
  });
  app.onError((err, c) => {
    const res = errorResponse(c, err);
    date?.(c, res);
    options.onAnswer?.(c, res);
    return res;
  });

  // The request log and journal see every answer, errors and not-found included.
  if (options.onResponse) observeResponses(app, options.onResponse);
  return app;
}

/** At most this many field names in `Tusk-Ignored-Fields`; the rest are counted. */
const MAX_IGNORED_NAMES = 20;

/**
 * The value of `Tusk-Ignored-Fields`: the names, comma-separated; a name that is not printable
 * ASCII without a comma is percent-encoded (a header carries Latin-1 only), and past 20 names the
 * rest are counted (`... and 3 more`).
 */
export function ignoredFieldsHeader(names: readonly string[]): string {
  const shown = names
    .slice(0, MAX_IGNORED_NAMES)
    .map((n) => (/^[\x21-\x2b\x2d-\x7e]+$/.test(n) ? n : encodeURIComponent(n)));
  return (
    shown.join(', ') + (names.length > MAX_IGNORED_NAMES ? `, ... and ${names.length - MAX_IGNORED_NAMES} more` : '')
  );
}

/**
 * What is added to an answer once made: the fields the request-body convention ignored are named
 * in `Tusk-Ignored-Fields`, and the Date header tells the account's time when it is not real time.
 */
function finisher(date: ((c: Context, res: Response) => void) | undefined): Finish {
  return (c, res) => {
    const ignored = c.get('ignoredFields') as readonly string[] | undefined;
    if (ignored) res.headers.set('Tusk-Ignored-Fields', ignoredFieldsHeader(ignored));
    date?.(c, res);
    return res;
  };
}

interface Template {
  path: string;
  regex: RegExp;
  params: number;
  header: string;
  methods: Set<string>;
}

/** For a request path, the methods of the most specific matching path of the document. */
function methodGuard(ops: OperationInfo[]) {
  const byPath = new Map<string, Set<string>>();
  for (const o of ops) {
    if (!byPath.has(o.path)) byPath.set(o.path, new Set());
    byPath.get(o.path)!.add(o.method.toUpperCase());
  }
  const templates: Template[] = [...byPath]
    .map(([path, methods]) => ({
      path,
      regex: new RegExp('^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
      params: (path.match(/\{/g) ?? []).length,
      header: [...methods].sort().join(', '),
      methods: new Set(methods.has('GET') ? [...methods, 'HEAD'] : methods),
    }))
    .sort((a, b) => a.params - b.params);
  const refuse = (c: Context, t: Template | undefined) => {
    if (t && !t.methods.has(c.req.method)) {
      throw new ApiError(
        405,
        `Method ${c.req.method} is not allowed for ${c.req.path}; allowed: ${t.header}`,
        {},
        { Allow: t.header },
      );
    }
  };
  const segments = (path: string) => path.split('/').length;
  return {
    /** Throws the 405 when the most specific template of the path lacks the method. */
    check(c: Context): void {
      const path = c.req.path;
      refuse(
        c,
        templates.find((t) => t.regex.test(path)),
      );
    },
    /**
     * The check for a request routed to `op`: its own template matches and allows the method, so
     * only the templates before it in specificity, of as many segments, can decide otherwise.
     * Undefined when there are none (most routes): no check at all.
     */
    forRoute(op: OperationInfo): ((c: Context) => void) | undefined {
      const own = templates.findIndex((t) => t.path === op.path);
      const before = templates.slice(0, own).filter((t) => segments(t.path) === segments(op.path));
      if (!before.length) return undefined;
      return (c) => {
        const path = c.req.path;
        refuse(
          c,
          before.find((t) => t.regex.test(path)),
        );
      };
    },
  };
}
