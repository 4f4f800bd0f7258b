// Builds one interface's Hono app from its document: every operation of the document is routed
// through the request pipeline to a handler of a resource sub-app, and app.onError / app.notFound
// are the one place errors become the documented JSON Error body (never Hono's plain text).
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { every } from 'hono/combine';
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import { readOperations, type OperationInfo } from '../openapi/operations.js';
import type { SchemaSet } from '../openapi/ajv.js';
import { OperationValidator } from '../openapi/requests.js';
import { ApiError } from './errors.js';
import { authenticate, authorize, operationSteps, parseBody, rateLimit, validateRequest, type AuthenticateOptions, type AuthorizeOptions, type PipelineEnv } from './pipeline.js';
import type { RateLimiter } from './rate-limit.js';
import type { Input } from './types.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- one route() serves both interfaces' envs
export type Route = (operationId: string) => MiddlewareHandler<any>;

export interface ApiAppOptions<P> {
  api: InterfaceName;
  doc: OpenApiDocument;
  schemas: SchemaSet;
  authenticate: AuthenticateOptions<P>;
  authorize?: AuthorizeOptions<P>;
  limiter: () => RateLimiter;
  /** Mounts the resource sub-apps; `route(id)` gives the pipeline of one operation. */
  mount: (app: Hono<PipelineEnv<P>>, route: Route, validators: ReadonlyMap<string, OperationValidator>) => void;
  /** Called once per finished request (request log). */
  onResponse?: (c: Context, ms: number) => void;
  /**
   * Routes outside the contract (API reference at /docs, the documents at /openapi.json, the
   * control plane under /__tusk/), registered before the resources. They are not authenticated by
   * the pipeline and errors they throw still go through the one error handler.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- extensions serve both interfaces
  extensions?: ((app: Hono<any>, api: InterfaceName) => void)[];
}

/** The validated input of the current request, typed by operation. */
export function input<Ops, Id extends keyof Ops>(c: Context): Input<Ops, Id> {
  return c.get('input') as Input<Ops, Id>;
}

export function errorResponse(c: Context, err: unknown): Response {
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
  const limit = rateLimit<P>({ limiter: options.limiter });
  const routed = new Set<string>();

  const route: Route = (operationId) => {
    const validator = validators.get(operationId);
    if (!validator) throw new Error(`route(): the ${options.api} document has no operation ${operationId}`);
    if (routed.has(operationId)) throw new Error(`route(): ${operationId} is routed twice`);
    routed.add(operationId);
    return every(...operationSteps<P>(operationId, {
      authenticate: auth,
      authorize: authz,
      parse: parseBody<P>({ acceptsBody: validator.acceptsBody }),
      validate: validateRequest<P>({ validator }),
      rateLimit: limit,
    }));
  };

  const app = new Hono<PipelineEnv<P>>();
  if (options.onResponse) {
    const onResponse = options.onResponse;
    app.use('*', async (c, next) => {
      const start = performance.now();
      await next();
      onResponse(c, performance.now() - start);
    });
  }
  for (const extend of options.extensions ?? []) extend(app, options.api);
  // The method guard, before the resources: a method the path does not support is a 405 with
  // Allow. The most specific template decides, so a literal path (/api/alarms/recipients) is never
  // taken by a sibling template (/api/alarms/{id}) for a method only the template has.
  const allowedMethods = methodTable(ops);
  app.use('*', async (c, next) => {
    const allow = allowedMethods(c.req.path);
    if (allow && !allow.methods.has(c.req.method)) {
      throw new ApiError(405, `Method ${c.req.method} is not allowed for ${c.req.path}; allowed: ${allow.header}`, {}, { Allow: allow.header });
    }
    await next();
  });
  options.mount(app, route, validators);

  // Every operation of the document is routed, at its own method and path, and nothing else is.
  const missing = ops.filter((o) => !routed.has(o.operationId)).map((o) => o.operationId);
  if (missing.length) throw new Error(`the ${options.api} app routes no handler for: ${missing.join(', ')}`);
  const registered = new Set(app.routes.filter((r) => r.method !== 'ALL').map((r) => `${r.method} ${r.path}`));
  const misplaced = ops.filter((o) => !registered.has(`${o.method.toUpperCase()} ${o.routePath}`)).map((o) => `${o.operationId} (${o.method.toUpperCase()} ${o.path})`);
  if (misplaced.length) throw new Error(`the ${options.api} app routes these operations elsewhere than the document says: ${misplaced.join(', ')}`);

  app.notFound((c) => errorResponse(c, new ApiError(404, `Not found: ${c.req.method} ${c.req.path} is not a resource of the ${options.api} interface`)));
  app.onError((err, c) => errorResponse(c, err));
  return app;
}

/** For a request path, the methods of the most specific matching path of the document (or undefined). */
function methodTable(ops: OperationInfo[]): (path: string) => { methods: Set<string>; header: string } | undefined {
  const byPath = new Map<string, Set<string>>();
  for (const o of ops) {
    if (!byPath.has(o.path)) byPath.set(o.path, new Set());
    byPath.get(o.path)!.add(o.method.toUpperCase());
  }
  const templates = [...byPath]
    .map(([path, methods]) => ({
      regex: new RegExp('^' + path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+') + '$'),
      params: (path.match(/\{/g) ?? []).length,
      header: [...methods].sort().join(', '),
      methods: new Set(methods.has('GET') ? [...methods, 'HEAD'] : methods),
    }))
    .sort((a, b) => a.params - b.params);
  return (path) => templates.find((t) => t.regex.test(path));
}
