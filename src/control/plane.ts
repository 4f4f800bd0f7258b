// The control plane as the server wires it: the /__tusk/ routes (an extension of both apps), the
// request journal and, with a state file, persistence. See src/server.ts.
import type { Context } from 'hono';
import type { AppDependencies } from '../server.js';
import type { InterfaceName } from '../openapi/documents.js';
import type { Registry } from '../store/registry.js';
import { controlRoutes, CONTROL_PREFIX } from './app.js';
import type { ControlDeps } from './deps.js';
import { RequestJournal } from './journal.js';
import { StateFile } from './persist.js';

export interface ControlPlaneOptions {
  app: AppDependencies;
  registry: Registry;
  /** Requests the journal keeps (default 1000). */
  journalSize?: number;
  /** `--state FILE`: loaded now when it exists (throws StateFileError), written after changes. */
  stateFile?: string;
  saveDebounceMs?: number;
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export class ControlPlane {
  readonly journal: RequestJournal;
  readonly state: StateFile | undefined;
  readonly deps: ControlDeps;
  /** The extension (ApiAppOptions.extensions) serving /__tusk/ on a port. */
  readonly extension: ReturnType<typeof controlRoutes>;
  /** Whether the state file existed and was loaded at start-up. */
  readonly loadedState: boolean;

  constructor(options: ControlPlaneOptions) {
    const { registry } = options;
    this.journal = new RequestJournal(options.journalSize ?? 1000);
    this.state = options.stateFile ? new StateFile(options.stateFile, registry, options.saveDebounceMs) : undefined;
    this.loadedState = this.state ? this.state.load(options.app.schemas) : false;
    this.deps = {
      registry: () => registry,
      app: options.app,
      journal: this.journal,
      clockMoved: () => registry.tick(),
    };
    this.extension = controlRoutes(this.deps);
  }

  /**
   * The onResponse hook of one port: journals the request (not those to /__tusk/; never a header,
   * a query or a body), notes a change of state after a mutating request, then calls `next`.
   */
  observer(api: InterfaceName, next?: (c: Context, ms: number) => void): (c: Context, ms: number) => void {
    return (c, ms) => {
      const path = c.req.path;
      if (!path.startsWith(CONTROL_PREFIX + '/')) {
        this.journal.record({
          time: new Date(this.deps.registry().clock.now()).toISOString(),
          api,
          method: c.req.method,
          path,
          status: c.res.status,
          ms: Math.round(ms * 10) / 10,
        });
      }
      if (this.state && !READ_METHODS.has(c.req.method)) this.state.changed();
      next?.(c, ms);
    };
  }

  /** Writes a pending state change. */
  async close(): Promise<void> {
    await this.state?.close();
  }
}
