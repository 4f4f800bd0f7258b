// The control plane: routes outside the contract under /__tusk/ on both ports (reset, seed, state,
// clock, outbox, request journal, accounts, and the modules listed in routes.ts). No
// authentication: Tusk is a local tool (see README, "Simulation controls"). Errors are the shared
// JSON Error body (ApiError through the apps' one error handler).
import { Hono } from 'hono';
import type { InterfaceName } from '../openapi/documents.js';
import { ApiError } from '../core/errors.js';
import { errorResponse } from '../http/app.js';
import type { ControlDeps } from './deps.js';
import { CONTROL_ROUTES } from './routes.js';

export const CONTROL_PREFIX = '/__tusk';

/** The control app: every module of CONTROL_ROUTES mounted at its path. */
export function controlApp(deps: ControlDeps): Hono {
  const app = new Hono();
  for (const { path, routes } of CONTROL_ROUTES) app.route(path, routes(deps));
  app.all('*', (c) => {
    throw new ApiError(404, `Not found: ${c.req.method} ${c.req.path} is not a control of Tusk (see ${CONTROL_PREFIX}/openapi.json)`);
  });
  app.onError((err, c) => errorResponse(c, err));
  return app;
}

/** The extension (ApiAppOptions.extensions) mounting the control app on each port. */
export function controlRoutes(deps: ControlDeps) {
  const control = controlApp(deps);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- extensions serve both interfaces
  return (app: Hono<any>, _api: InterfaceName): void => {
    app.route(CONTROL_PREFIX, control);
  };
}
