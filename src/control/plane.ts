// The control plane: routes outside the contract under /__tusk/ on both ports (reset, seed, state,
// clock, outbox, request journal, accounts, and the modules listed in CONTROL_ROUTES), and what it
// watches of the APIs' traffic (the request journal; with a state file, persistence). Without
// `--control-key` it needs no key (a local tool on loopback; see README, "Simulation controls");
// with one, every control needs it as the password of HTTP Basic, except the controls of one
// account (ACCOUNT_SCOPED below), which also accept an admin key of that account and then act on
// that account's home only (scope.ts), and the index, the health and the control document
// (health.ts). Errors are the shared JSON Error body (ApiError through the apps' one error handler).
import { Hono, type MiddlewareHandler } from 'hono';
import type { AppDependencies } from '../http/deps.js';
import { errorResponse, type ResponseInfo } from '../http/app.js';
import type { InterfaceName } from '../openapi/documents.js';
import type { Registry } from '../store/registry.js';
import { ApiError, unauthorized } from '../core/errors.js';
import { keyOfHeader } from '../core/basic-auth.js';
import { StateFile } from './persist.js';
import { ControlDocument } from './document.js';
import { sameKey } from './scope.js';
import { eventLoopMonitor, runtimeRoutes } from './runtime.js';
import { healthRoutes, indexRoute, liveRoutes, OPEN_PATHS } from './health.js';
import { stateRoutes } from './state-routes.js';
import { instanceRoutes } from './instances.js';
import { faultRoutes } from './faults.js';
import { coverageRoutes } from './coverage.js';
import type { ControlDeps, EngineHealth } from './deps.js';

export const CONTROL_PREFIX = '/__tusk';

export interface ControlRoute {
  /** Mount path below /__tusk ('/' for the root). */
  path: string;
  /** A Hono app whose paths are relative to `/__tusk${path}`. */
  routes: (deps: ControlDeps) => Hono;
}

/** The control modules. To add a control, append one line. */
export const CONTROL_ROUTES: ControlRoute[] = [
  { path: '/', routes: stateRoutes }, // reset, seed, state, clock, outbox, requests, accounts
  { path: '/instances', routes: instanceRoutes }, // metrics and events of an instance: alarms that fire
  { path: '/faults', routes: faultRoutes }, // fault injection
  { path: '/coverage', routes: coverageRoutes }, // what the clients' requests exercised
  { path: '/runtime', routes: runtimeRoutes }, // event-loop delay, memory
  { path: '/health', routes: healthRoutes }, // readiness: 200, or 503 with the reason
  { path: '/live', routes: liveRoutes }, // liveness: 200 while the process serves
];

/** The control app: every module of CONTROL_ROUTES mounted at its path. */
export function controlApp(deps: ControlDeps): Hono {
  const app = new Hono();
  if (deps.controlKey !== undefined) app.use('*', controlAuth(deps, deps.controlKey));
  for (const { path, routes } of CONTROL_ROUTES) app.route(path, routes(deps));
  app.get('/', indexRoute(deps));
  app.all('*', (c) => {
    throw new ApiError(
      404,
      `Not found: ${c.req.method} ${c.req.path} is not a control of Tusk (see ${CONTROL_PREFIX}/openapi.json)`,
    );
  });
  app.onError((err, c) => errorResponse(c, err));
  return app;
}

/**
 * Controls one account may call with its own admin key, acting on that account only (scope.ts):
 * reset, state, clock, outbox, request journal, faults, coverage, and its instances' metrics and events.
 * Not: re-seeding and creating accounts, which act on the whole server.
 */
const ACCOUNT_SCOPED =
  /^\/__tusk\/(instances\/[^/]+\/(metrics|events)|reset|state|clock|outbox|requests|faults|coverage)\/?$/;

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
      if (principal?.key.role === 'admin' && (named === undefined || named === principal.home.id)) return next();
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

export interface ControlPlaneOptions {
  app: AppDependencies;
  registry: Registry;
  /** `--state FILE`: loaded now when it exists (throws StateFileError), written after changes. */
  stateFile?: string;
  saveDebounceMs?: number;
  /** `--control-key`: the key the control plane needs (see controlAuth). */
  controlKey?: string;
  /** The database engine, whose state GET /__tusk/health tells. */
  engine?: EngineHealth;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The control plane as the server wires it (src/server.ts). */
export class ControlPlane {
  readonly state: StateFile | undefined;
  readonly deps: ControlDeps;
  /** The extension (ApiAppOptions.extensions) serving /__tusk/ on a port. */
  readonly extension: ReturnType<typeof controlRoutes>;
  /** Whether the state file existed and was loaded at start-up. */
  readonly loadedState: boolean;

  constructor(options: ControlPlaneOptions) {
    const { registry } = options;
    this.state = options.stateFile ? new StateFile(options.stateFile, registry, options.saveDebounceMs) : undefined;
    const document = new ControlDocument();
    this.loadedState = this.state ? this.state.load(options.app.schemas, document) : false;
    this.deps = {
      document,
      registry,
      app: options.app,
      eventLoopDelay: eventLoopMonitor(),
      clockMoved: () => registry.tick(),
      ...(options.controlKey !== undefined ? { controlKey: options.controlKey } : {}),
      ...(options.engine ? { engine: options.engine } : {}),
    };
    this.extension = controlRoutes(this.deps);
  }

  /**
   * The onResponse hook of one port: journals the request with the time of its account's clock
   * (not those to /__tusk/; never a header, a query or a body), notes a change of state after a
   * mutating request, then calls `next`.
   */
  observer(api: InterfaceName, next?: (r: ResponseInfo, ms: number) => void): (r: ResponseInfo, ms: number) => void {
    const registry = this.deps.registry;
    return (r, ms) => {
      if (!r.path.startsWith(CONTROL_PREFIX + '/')) {
        const home = registry.homeOfHeader(r.authorization);
        const at = home?.clock ?? registry.clock;
        registry.journal.record({
          at: at.now(),
          api,
          method: r.method,
          path: r.path,
          status: r.status,
          ms: Math.round(ms * 10) / 10,
          ...(home ? { account: home.id } : {}),
        });
      }
      if (this.state && !READ_METHODS.has(r.method)) this.state.changed();
      next?.(r, ms);
    };
  }

  /** Writes a pending state change, stops the event-loop monitor. */
  async close(): Promise<void> {
    this.deps.eventLoopDelay.disable();
    await this.state?.close();
  }
}
