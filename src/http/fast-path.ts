// The request path's speed tricks, in one place. Each replaces what Hono does by default with the
// same behaviour and less work per request, because Hono's general machinery is a large share of a
// request's CPU here (the figures: BENCHMARKS.md, "Profiles, and what changed", item 4):
//
// 1. One handler per route (moveFused). Hono runs a route with several handlers through compose():
//    a dispatch closure and a promise per step, built on every request. The resource sub-apps are
//    mounted on a staging app; moveFused moves their routes to the real app, fusing each
//    operation's pipeline (route(id): auth, parse, validate, rate limit, composed once at start-up
//    by composeSteps in pipeline.ts) and its handler into a single handler. Hono calls a route with
//    one handler directly, synchronously when nothing awaits (a GET needs no promise at all).
// 2. No `app.use('*')` (observeResponses). The request log and the journal wrap app.fetch instead
//    of being a middleware, which would give every route a second handler and bring back compose().
// The router (router.ts, MemoRouter) and the per-header-value memo of Basic credentials
// (pipeline.ts, core/memo.ts) are the other two; their reasons are in their own first comments.
// Fusing changes no answer: the handler's answer is finished by the handler itself (finish.ts).
import type { Context, Env, Hono, MiddlewareHandler, Next } from 'hono';

/** What fusing needs of an operation's pipeline: the method guard of its route, and who is told of its answers. */
export interface Fusable<E extends Env> {
  /** The operation the pipeline serves. */
  operationId: string;
  guard: ((c: Context<E>) => void) | undefined;
  /** Told of every answer the route gives itself (a thrown error is told by app.onError instead). */
  answered?: ((c: Context<E>, res: Response) => void) | undefined;
}

/**
 * Moves every route of `from` to `to`, in order. A pipeline (recognised by `fusable`) followed by
 * the handler of the same method and path becomes one handler; everything else moves as it is.
 */
export function moveFused<E extends Env>(
  from: Hono<E>,
  to: Hono<E>,
  fusable: (handler: object) => Fusable<E> | undefined,
): void {
  const moved = from.routes;
  for (let i = 0; i < moved.length; i++) {
    const r = moved[i]!;
    const pipeline = fusable(r.handler);
    const handler = moved[i + 1];
    if (pipeline && handler && handler.method === r.method && handler.path === r.path && !fusable(handler.handler)) {
      const fused = fuse(r.handler, handler.handler, pipeline);
      Object.defineProperty(fused, SERVES, { value: pipeline.operationId });
      to.on(r.method, r.path, fused);
      i++;
    } else {
      to.on(r.method, r.path, r.handler);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the route's own env
type AnyEnv = any;

/** One handler: the method guard, the operation's pipeline, then its handler. */
function fuse<E extends Env>(
  pipeline: MiddlewareHandler<E>,
  handler: object,
  { guard, answered }: Fusable<E>,
): MiddlewareHandler<E> {
  type Result = Response | Promise<Response | void> | void;
  const h = handler as (c: Context<E>, next: Next) => Result;
  const steps = pipeline as (c: Context<E>, next: () => Result) => Result;
  const run = (c: Context<E>, next: Next) => {
    guard?.(c);
    return steps(c, () => h(c, next));
  };
  if (!answered) return run as MiddlewareHandler<E>;
  const tell = (c: Context<E>, res: Response | void) => {
    if (res instanceof Response) answered(c, res);
    return res;
  };
  return ((c: Context<E>, next: Next) => {
    const res = run(c, next);
    return res instanceof Promise ? res.then((r) => tell(c, r)) : tell(c, res);
  }) as MiddlewareHandler<E>;
}

/** The operation a fused handler serves (set by fuse()). */
const SERVES = Symbol('fused operation');

/**
 * The operations whose request (method and path, a sample value per parameter) does not go to its
 * fused handler first with only fused handlers behind it: an `app.use('*')`, or any other handler
 * on an operation's path, brings compose() back for it (item 1 above). A literal path beside a
 * template (/api/alarms/recipients beside /api/alarms/{id}) meets both operations' handlers; the
 * literal's comes first and answers. The tests check that no operation is listed.
 */
export function unfusedRoutes(
  app: Hono<AnyEnv>,
  operations: readonly { operationId: string; method: string; routePath: string }[],
): string[] {
  const served = (handler: unknown) => (handler as { [SERVES]?: string })[SERVES];
  return operations
    .filter((o) => {
      const [handlers] = app.router.match(o.method.toUpperCase(), o.routePath.replace(/:[^/]+/g, '1'));
      // Each match is [[handler, route], params].
      const fns = (handlers as unknown as [[unknown, unknown], unknown][]).map(([[fn]]) => fn);
      return served(fns[0]) !== o.operationId || fns.some((fn) => served(fn) === undefined);
    })
    .map((o) => `${o.operationId} (${o.method.toUpperCase()} ${o.routePath})`);
}

/** What the request log and journal learn of a finished request. */
export interface ResponseInfo {
  method: string;
  path: string;
  status: number;
  /** The request's Authorization header (to find the account it acted on; never logged or kept). */
  authorization?: string | null;
}

/** Calls `onResponse` once per answer of `app` (errors and not-found included), by wrapping app.fetch. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any env
export function observeResponses(app: Hono<any>, onResponse: (r: ResponseInfo, ms: number) => void): void {
  const dispatch = app.fetch;
  const report = (request: Request, res: Response, start: number) => {
    onResponse(
      {
        method: request.method,
        path: pathOf(request.url),
        status: res.status,
        authorization: request.headers.get('authorization'),
      },
      performance.now() - start,
    );
    return res;
  };
  app.fetch = (request, ...rest) => {
    const start = performance.now();
    const res = dispatch(request, ...rest);
    return res instanceof Promise ? res.then((r) => report(request, r, start)) : report(request, res, start);
  };
}

/** The path of a request URL, as Hono reads it (no query string). */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('://') + 3);
  if (start < 0) return '/';
  const q = url.indexOf('?', start);
  return q < 0 ? url.slice(start) : url.slice(start, q);
}
