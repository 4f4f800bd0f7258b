// The control plane's route modules, mounted under /__tusk/ on both ports by app.ts.
// To add a control, append one line: `{ path: '/metrics', routes: metricsRoutes }` — `routes(deps)`
// returns a Hono app whose paths are relative to `/__tusk${path}`.
import type { Hono } from 'hono';
import type { ControlDeps } from './deps.js';
import { coreRoutes } from './core.js';
import { metricsRoutes } from './metrics.js';
import { faultRoutes } from './faults.js';
import { coverageRoutes } from './coverage.js';
import { runtimeRoutes } from './runtime.js';
import { healthRoutes } from './health.js';

export interface ControlRoute {
  /** Mount path below /__tusk ('/' for the root). */
  path: string;
  routes: (deps: ControlDeps) => Hono;
}

export const CONTROL_ROUTES: ControlRoute[] = [
  // reset, seed, state, clock, outbox, requests, accounts
  { path: '/', routes: coreRoutes },
  { path: '/instances', routes: metricsRoutes }, // metrics and events: alarms that fire
  { path: '/faults', routes: faultRoutes }, // fault injection
  { path: '/coverage', routes: coverageRoutes }, // what the clients' requests exercised
  { path: '/runtime', routes: runtimeRoutes }, // event-loop delay, memory
  { path: '/health', routes: healthRoutes }, // liveness and the database engine's state
];
