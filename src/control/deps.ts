// What every control route module receives (see CONTROL_ROUTES in plane.ts).
import type { AppDependencies } from '../http/deps.js';
import type { Registry } from '../store/registry.js';
import type { ControlDocument } from './document.js';
import type { IntervalHistogram } from 'node:perf_hooks';

import type { EngineState } from '../databases/engine.js';

export type { EngineState };

/** What GET /__tusk/health (health.ts) reads of the engine (PostgresEngine's `state` and `reason`). */
export interface EngineHealth {
  readonly state: EngineState;
  /** While not ready: what starts, or what failed and its fix (one line). */
  readonly reason?: string;
}

export interface ControlDeps {
  /** The server's registry (the same one the API apps read): every account's home, the server's clock, outbox, faults, journal and coverage. */
  registry: Registry;
  /** Documents, schemas and the rate limiter of the API apps. */
  app: AppDependencies;
  /** The control plane's document and the validators of its request bodies. */
  document: ControlDocument;
  /**
   * Call after anything moved the virtual clock: runs registry.tick() (due outbox deliveries and
   * every listener registered with registry.onTick(), e.g. alarm evaluation).
   */
  clockMoved: () => void;
  /** The event-loop delay of this process (GET /__tusk/runtime). */
  eventLoopDelay: IntervalHistogram;
  /** The database engine, for GET /__tusk/health (absent: `--databases off`). */
  engine?: EngineHealth;
  /** `--control-key`: when set, the control plane needs it (or, for an account's own controls, that account's admin key). */
  controlKey?: string;
}
