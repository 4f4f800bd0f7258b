// The control plane: routes outside the contract under /__tusk/ on both ports (reset, seed, state,
// clock, outbox, request journal, accounts, and the modules listed in routes.ts). Without
// `--control-key` it needs no key (a local tool on loopback; see README, "Simulation controls");
// with one, every control needs it as the password of HTTP Basic, except the controls of one
// account (ACCOUNT_SCOPED below), which also accept an admin key of that account and then act on
// that account only (scope.ts), and the index, the health and the control document (health.ts). Errors are the shared JSON Error body (ApiError through the apps'
// one error handler).
import { Hono, type MiddlewareHandler } from 'hono';
import type { InterfaceName } from '../openapi/documents.js';
import { ApiError, unauthorized } from '../core/errors.js';
import { errorResponse } from '../http/app.js';
import { keyOfHeader } from '../core/basic-auth.js';
import type { ControlDeps } from './deps.js';
import { CONTROL_ROUTES } from './routes.js';
import { sameKey } from './scope.js';
import { indexRoute, OPEN_PATHS } from './health.js';

export const CONTROL_PREFIX = '/__tusk';

/** The control app: every module of CONTROL_ROUTES mounted at its path. */
export function controlApp(deps: ControlDeps): Hono {
  const app = new Hono();
  if (deps.controlKey !== undefined) app.use('*', controlAuth(deps, deps.controlKey));
  for (const { path, routes } of CONTROL_ROUTES) app.route(path, routes(deps));
  app.get('/', indexRoute(deps));
  app.all('*', (c) => {
    throw new ApiError(404, `Not found: ${c.req.method} ${c.req.path} is not a control of Tusk (see ${CONTROL_PREFIX}/openapi.json)`);
  });
  app.onError((err, c) => errorResponse(c, err));
  return app;
}

/**
 * Controls one account may call with its own admin key, acting on that account only (scope.ts):
 * reset, state, clock, outbox, request journal, faults, coverage, and its instances' metrics and events.
 * Not: re-seeding and creating accounts, which act on the whole server.
 */
const ACCOUNT_SCOPED = /^\/__tusk\/(instances\/[^/]+\/(metrics|events)|reset|state|clock|outbox|requests|faults|coverage)\/?$/;


/** `--control-key`: the control key, or an admin key of the account for the account's own controls; else 401. */
function controlAuth(deps: ControlDeps, controlKey: string): MiddlewareHandler {
  return async (c, next) => {
    if (OPEN_PATHS.has(c.req.path)) return next();
    const key = keyOfHeader(c.req.header('authorization'));
    if (key && sameKey(key, controlKey)) return next();
    if (key && ACCOUNT_SCOPED.test(c.req.path)) {
      const principal = deps.registry.authenticateCustomer(key);
      // Its own account only: ?account= may name nothing else.
      const named = c.req.query('account');
      if (principal?.key.role === 'admin' && (named === undefined || named === principal.account.id)) return next();
    }
    throw unauthorized(
      ACCOUNT_SCOPED.test(c.req.path)
        ? 'Unauthorized: this control needs the control key (--control-key) or an admin key of the account, as the password of HTTP Basic'
        : 'Unauthorized: the controls of this server need the control key (--control-key), as the password of HTTP Basic',
    );
  };
}

/** The extension (ApiAppOptions.extensions) mounting the control app on each port. */
export function controlRoutes(deps: ControlDeps) {
  const control = controlApp(deps);
  const index = indexRoute(deps);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- extensions serve both interfaces
  return (app: Hono<any>, _api: InterfaceName): void => {
    app.get(`${CONTROL_PREFIX}/`, index); // the sub-app's '/' is /__tusk only; before its catch-all
    app.route(CONTROL_PREFIX, control);
  };
}
