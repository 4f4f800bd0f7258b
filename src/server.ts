// Builds and starts Tusk: the documents, the validators compiled from them, the registry of stores,
// and one HTTP server per interface.
import { serve, type ServerType } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadDocuments, type InterfaceName } from './openapi/documents.js';
import { SchemaSet } from './openapi/ajv.js';
import { readContractRules } from './openapi/rules.js';
import { Registry, type RegistryOptions } from './accounts/registry.js';
import { RateLimiter, parseRateLimit } from './http/rate-limit.js';
import { SERVER_TIMEOUTS } from './core/limits.js';
import { drain } from './core/drain.js';

export type ServerTimeouts = { -readonly [K in keyof typeof SERVER_TIMEOUTS]: number };
import { createCustomerApp, createInstanceApp, type AppDependencies } from './compose.js';
import type { ApiAppOptions, ResponseInfo } from './http/app.js';
import type { PipelineEnv } from './http/pipeline.js';
import { docsRoutes } from './docs/routes.js';
import { DEFAULT_ADMIN_KEY, DEFAULT_SEED } from '../fixtures/index.js';
import { validateFixtures } from '../fixtures/validate.js';
import type { FaultRule } from './domain/fault-rules.js';
import type { Context } from 'hono';
import { readOperations } from './openapi/operations.js';
import { ControlPlane } from './control/plane.js';
import { parseEngineSpec, type EngineLog } from './databases/engine.js';
import { openDatabases } from './databases/open.js';
import { createLogger, type Logger } from './core/log.js';
import { CONTROL_PREFIX } from './control/plane.js';
import { Replica, isSharedState } from './replicas/replica.js';
import { SharedRateLimiter } from './replicas/rate-limit.js';

export interface TuskOptions {
  host?: string;
  /** 0 picks a free port. */
  customerPort?: number;
  instancePort?: number;
  /** The seeded account's admin key. */
  apiKey?: string;
  seed?: number;
  provisionDelayMs?: number;
  /** `N/S`: N requests per S seconds and key. */
  rateLimit?: string;
  /** Request log: one line per request as text, as JSON, or none. */
  log?: 'text' | 'json' | 'off';
  /** Fault rules in force from the start (objects, or the flag form `listAlarms:latency=200ms`); see src/domain/fault-rules.ts. */
  faults?: (FaultRule | string)[];
  registry?: Omit<RegistryOptions, 'seed' | 'adminKey' | 'provisionDelayMs' | 'rules' | 'validate'>;
  /** HTTP timeouts of the node servers (startTusk); defaults in src/core/limits.ts. */
  timeouts?: Partial<ServerTimeouts>;
  /** `--state FILE`: the whole state is loaded from it when it exists and written after changes (see src/control/persist.ts). */
  state?: string;
  /** `--answers`: the success codes of the reference implementation (default) or production's (see src/http/answers.ts). */
  answers?: 'default' | 'production';
  /** `--vary-success`: every call of an operation with several documented success codes answers the next one. */
  varySuccess?: boolean;
  /** `--strict-fields`: body fields the schema does not name are a 400 instead of being ignored. */
  strictFields?: boolean;
  /**
   * `--databases`: a real Postgres database behind every instance, on an embedded server
   * (`embedded`, the default of `tusk serve`) or an existing one (a postgres:// admin URL); `off`
   * (the default in-process) keeps instances as records only. See src/databases/.
   */
  databases?: string;
  /** `--control-key`: the /__tusk/ controls need this key (HTTP Basic password); see src/control/plane.ts. */
  controlKey?: string;
  /** Where the server's lines go (the request log, the databases' messages); default: text on the console. */
  logger?: Logger;
}

export const DEFAULTS = {
  host: '127.0.0.1',
  customerPort: 4010,
  instancePort: 4011,
  apiKey: DEFAULT_ADMIN_KEY,
  seed: DEFAULT_SEED,
  provisionDelayMs: 1000,
  rateLimit: '1000/1',
  log: 'text',
} as const;

export type { AppDependencies } from './compose.js';

export interface Tusk {
  /** Where the server's lines go (options.logger, else text on the console). */
  logger: Logger;
  /** From now on the databases' messages are the expected end of a stop, not errors, and a server that ends is not started again (close() calls it first). */
  stopping(): void;
  deps: AppDependencies;
  registry: Registry;
  /** The simulation controls under /__tusk/, the request journal and the state file. */
  control: ControlPlane;
  /** With `--state postgres://...`: this process is one replica of a team (src/replicas/). */
  replica?: Replica;
  customer: ReturnType<typeof createCustomerApp>;
  instance: ReturnType<typeof createInstanceApp>;
}

function requestLogger(logger: Logger, api: InterfaceName) {
  return (r: ResponseInfo, ms: number) => {
    const line = { api, method: r.method, path: r.path, status: r.status, ms: Math.round(ms * 10) / 10 };
    if (logger.format === 'json') logger.info(`${line.method} ${line.path} ${line.status}`, line);
    else logger.info(`${api.padEnd(8)} ${line.method.padEnd(6)} ${line.path} ${line.status} ${line.ms}ms`);
  };
}

/** Builds the apps without listening (in-process use: `tusk.customer.fetch(request)`). */
export async function createTusk(options: TuskOptions = {}): Promise<Tusk> {
  const o = { ...DEFAULTS, ...options };
  const documents = await loadDocuments();
  const schemas = new SchemaSet(documents);
  const { limit, windowMs } = parseRateLimit(o.rateLimit);
  const engineSpec = parseEngineSpec(o.databases ?? 'off');
  const logger = o.logger ?? createLogger(o.log === 'json' ? 'json' : 'text');
  // Once Tusk stops, what the databases report (connections ended, steps that can no longer run) is
  // the expected end, not an error: a Ctrl-C reaches the embedded server too.
  let stopping = false;
  const databaseLog: EngineLog = (level, line) => logger.log(stopping ? 'debug' : level, line);
  const databases = await openDatabases(engineSpec, {
    state: o.state,
    shared: isSharedState(o.state),
    log: databaseLog,
  });
  const allOperations = [
    ...readOperations('customer', documents.customer),
    ...readOperations('instance', documents.instance),
  ];
  // Fixtures are validated against the documents' schemas whenever they are built (start-up, reset).
  const registry = new Registry({
    operations: allOperations,
    faults: o.faults ?? [],
    seed: o.seed,
    adminKey: o.apiKey,
    provisionDelayMs: o.provisionDelayMs,
    rules: readContractRules(documents.instance),
    validate: (fixtures) => validateFixtures(fixtures, schemas),
    ...o.registry,
    ...(databases ? { databases } : {}),
    ...(isSharedState(o.state) ? { shared: true } : {}),
  });
  // A team's replica: the state in Postgres, shared with every process started with the same --state.
  const replica = isSharedState(o.state)
    ? (await Replica.open({ url: o.state, registry, logger, controlPrefix: CONTROL_PREFIX })).replica
    : undefined;
  const deps: AppDependencies = {
    documents,
    schemas,
    registry,
    limiter: replica
      ? new SharedRateLimiter(replica.pool, { limit, windowMs, now: () => registry.clock.now(), logger })
      : new RateLimiter({ limit, windowMs, clock: registry.clock }),
    ...(databases ? { databases } : {}),
  };
  // Outside the contract, in every operation's pipeline: injected faults (the server's, and those of
  // the home of the account the request's key belongs to, looked up only while an account has
  // rules) and the Prefer header.
  const accountFaults = (c: Context) =>
    registry.accountFaultsActive ? registry.homeOfHeader(c.req.header('authorization'))?.faults : undefined;
  const simulation = { faults: () => registry.faults, accountFaults, prefer: true };
  const answerMode = o.varySuccess ? 'vary' : (o.answers ?? 'default');
  const answers = { mode: () => answerMode } as const;
  const strict = Boolean(o.strictFields);
  const strictFields = () => strict;
  const requestLog = o.log !== 'off';
  // Routes outside the contract, on both ports (see ApiAppOptions.extensions).
  const control = new ControlPlane({
    schemas: deps.schemas,
    registry,
    ...(o.state && !replica ? { stateFile: o.state } : {}),
    ...(o.controlKey !== undefined ? { controlKey: o.controlKey } : {}),
    ...(databases ? { engine: databases.engine } : {}),
  });
  const extensions: NonNullable<ApiAppOptions<unknown>['extensions']> = [docsRoutes(documents), control.extension];
  const onResponse = (api: InterfaceName) => control.observer(api, requestLog ? requestLogger(logger, api) : undefined);
  // API coverage: every answer, by the operation that took the request (if any), its status and account.
  const onAnswer =
    (api: InterfaceName) =>
    <P extends { account: { id: string } }>(c: Context<PipelineEnv<P>>, res: Response) => {
      // Both are unset where no operation took the request, or before authentication.
      const operationId: string | undefined = c.get('operationId');
      const principal: P | undefined = c.get('principal');
      const request = { method: c.req.method, path: c.req.path };
      registry.coverage.record(api, operationId, res.status, principal?.account.id, request);
    };
  return {
    logger,
    stopping: () => {
      stopping = true;
      databases?.engine.stopping();
    },
    deps,
    registry,
    control,
    ...(replica ? { replica } : {}),
    customer: createCustomerApp(deps, {
      extensions,
      simulation,
      answers,
      strictFields,
      onResponse: onResponse('customer'),
      onAnswer: onAnswer('customer'),
    }),
    instance: createInstanceApp(deps, {
      extensions,
      simulation,
      answers,
      strictFields,
      onResponse: onResponse('instance'),
      onAnswer: onAnswer('instance'),
    }),
  };
}

export interface RunningTusk extends Tusk {
  customerUrl: string;
  instanceUrl: string;
  close(): Promise<void>;
}

/**
 * Starts one node server. Its timeouts keep a slow client from holding it: headers must arrive
 * within headersMs (slowloris), the whole request within requestMs, and an idle keep-alive
 * connection closes after keepAliveMs (src/core/limits.ts).
 */
function listen(
  fetch: (req: Request) => Response | Promise<Response>,
  hostname: string,
  port: number,
  timeouts: ServerTimeouts,
): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const serverOptions = {
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
    };
    const server = serve({ fetch, hostname, port, serverOptions }, () => resolve(server));
    server.once('error', reject);
  });
}

const urlOf = (host: string, server: ServerType) => {
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
};

/** Builds Tusk and starts both HTTP servers. */
export async function startTusk(options: TuskOptions = {}): Promise<RunningTusk> {
  const host = options.host ?? DEFAULTS.host;
  const tusk = await createTusk(options);
  const timeouts = { ...SERVER_TIMEOUTS, ...options.timeouts };
  // A team's replica answers after its copy of the account is current (src/replicas/replica.ts).
  const served = (fetch: (req: Request) => Response | Promise<Response>) =>
    tusk.replica ? tusk.replica.serve(fetch) : fetch;
  let customer: ServerType;
  try {
    customer = await listen(served(tusk.customer.fetch), host, options.customerPort ?? DEFAULTS.customerPort, timeouts);
  } catch (err) {
    await tusk.deps.databases?.close();
    await tusk.replica?.close();
    throw err;
  }
  let instance: ServerType;
  try {
    instance = await listen(served(tusk.instance.fetch), host, options.instancePort ?? DEFAULTS.instancePort, timeouts);
  } catch (err) {
    customer.close();
    await tusk.deps.databases?.close();
    await tusk.replica?.close();
    throw err;
  }
  // What the clock makes due (alarm evaluation, outbox deliveries), also without clock moves: in a
  // team, the leader's (src/replicas/leader.ts).
  const ticker = tusk.replica ? undefined : setInterval(() => tusk.registry.tick(), 100);
  ticker?.unref();
  tusk.replica?.start();
  const close = (s: ServerType) => drain(s as Server, timeouts.drainMs);
  return {
    ...tusk,
    customerUrl: urlOf(host, customer),
    instanceUrl: urlOf(host, instance),
    async close() {
      tusk.stopping();
      clearInterval(ticker);
      await Promise.all([close(customer), close(instance)]);
      await tusk.registry.outbox.settle();
      await tusk.control.close();
      await tusk.replica?.close();
      await tusk.deps.databases?.close();
    },
  };
}
