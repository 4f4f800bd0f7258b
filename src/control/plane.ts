// The control plane as the server wires it: the /__tusk/ routes (an extension of both apps), the
// request journal and, with a state file, persistence. See src/server.ts.
import type { AppDependencies } from '../http/deps.js';
import type { ResponseInfo } from '../http/app.js';
import type { InterfaceName } from '../openapi/documents.js';
import type { Registry } from '../store/registry.js';
import { controlRoutes, CONTROL_PREFIX } from './app.js';
import { RequestJournal } from './journal.js';
import { StateFile } from './persist.js';
import { ControlDocument } from './document.js';
import { AccountFinder } from './scope.js';
import { eventLoopMonitor } from './runtime.js';
import type { ControlDeps, EngineHealth } from './deps.js';

export interface ControlPlaneOptions {
  app: AppDependencies;
  registry: Registry;
  /** Requests the journal keeps (default 1000). */
  journalSize?: number;
  /** `--state FILE`: loaded now when it exists (throws StateFileError), written after changes. */
  stateFile?: string;
  saveDebounceMs?: number;
  /** `--control-key`: the key the control plane needs (see app.ts). */
  controlKey?: string;
  /** The database engine, whose state GET /__tusk/health tells. */
  engine?: EngineHealth;
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
  /** The account of a request's key, for the journal (scoped reads, issue 18). */
  private readonly accounts: AccountFinder;

  constructor(options: ControlPlaneOptions) {
    const { registry } = options;
    this.journal = new RequestJournal(options.journalSize ?? 1000);
    this.accounts = new AccountFinder(registry);
    this.state = options.stateFile ? new StateFile(options.stateFile, registry, options.saveDebounceMs) : undefined;
    const document = new ControlDocument();
    this.loadedState = this.state ? this.state.load(options.app.schemas, document) : false;
    this.deps = {
      document,
      registry,
      app: options.app,
      journal: this.journal,
      eventLoopDelay: eventLoopMonitor(),
      clockMoved: () => registry.tick(),
      ...(options.controlKey !== undefined ? { controlKey: options.controlKey } : {}),
      ...(options.engine ? { engine: options.engine } : {}),
    };
    this.extension = controlRoutes(this.deps);
  }

  /**
   * The onResponse hook of one port: journals the request (not those to /__tusk/; never a header,
   * a query or a body), notes a change of state after a mutating request, then calls `next`.
   */
  observer(api: InterfaceName, next?: (r: ResponseInfo, ms: number) => void): (r: ResponseInfo, ms: number) => void {
    return (r, ms) => {
      if (!r.path.startsWith(CONTROL_PREFIX + '/')) {
        const account = this.accounts.accountOf(r.authorization);
        const at = (account !== undefined ? this.deps.registry.accountClock(account) : undefined) ?? this.deps.registry.clock;
        this.journal.record({ at: at.now(), api, method: r.method, path: r.path, status: r.status, ms: Math.round(ms * 10) / 10, ...(account !== undefined ? { account } : {}) });
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
