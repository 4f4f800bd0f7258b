// `tusk serve`: the stand-in as a command. Reads its flags and their variables (tables/serve.ts), starts
// the servers (server.ts), prints what a first hour needs, and stops on SIGINT or SIGTERM with exit
// code 0, writing the coverage report when asked. A start that cannot happen (a port taken, a
// state file that is not a state) is one line naming the cause and the fix, exit code 2.
import { DOCS_PATH } from '../docs/routes.js';
import { writeCoverageFiles } from '../openapi/coverage-render.js';
import { DEFAULTS, startTusk, type RunningTusk, type TuskOptions } from '../server.js';
import { isSharedState } from '../replicas/replica.js';
import { createLogger } from '../core/log.js';
import { fail, readCommand } from './command.js';
import { helpOf, UsageError, type FlagValue } from './flags.js';
import { SERVE } from './tables/index.js';

export const SERVE_HELP = helpOf(SERVE);

const isLoopback = (host: string) => host === 'localhost' || host === '::1' || /^127\./.test(host);

/** The options of startTusk from the flags read (undefined: the default). */
export function serveOptions(values: Record<string, FlagValue>): TuskOptions & { coverageFile?: string } {
  const str = (name: string) => values[name] as string | undefined;
  const int = (name: string) => (str(name) === undefined ? undefined : Number(str(name)));
  const host = str('host') ?? DEFAULTS.host;
  const controlKey = str('control-key');
  if (!isLoopback(host) && controlKey === undefined && values['control-open'] !== true) {
    throw new UsageError(
      `--host ${host} is reachable from other machines, and the controls under /__tusk/ can reset and read every account (their keys included): give --control-key KEY (or TUSK_CONTROL_KEY), or --control-open (or TUSK_CONTROL_OPEN=1) to run without one`,
    );
  }
  // A team's replicas put the instances' databases on the state's server unless told otherwise.
  const state = str('state');
  // (An explicit --databases embedded is refused where the databases open: src/databases/open.ts.)
  const databases = str('databases') ?? (isSharedState(state) ? state : 'embedded');
  const options = {
    host: str('host'),
    customerPort: int('customer-port'),
    instancePort: int('instance-port'),
    apiKey: str('api-key'),
    seed: int('seed'),
    provisionDelayMs: int('provision-delay'),
    rateLimit: str('rate-limit'),
    state,
    faults: values.fault as string[] | undefined,
    databases,
    controlKey,
    answers: str('answers') as 'default' | 'production' | undefined,
    varySuccess: values['vary-success'] === true ? true : undefined,
    strictFields: values['strict-fields'] === true ? true : undefined,
    log: values.quiet === true ? ('off' as const) : (str('log') as 'text' | 'json' | undefined),
    coverageFile: str('coverage'),
  };
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/**
 * A listen that failed, as one line with its cause and fix: a port taken, a port that needs
 * privileges, an address that is not this machine's.
 */
export function listenProblem(err: unknown, o: TuskOptions): string {
  const e = err as NodeJS.ErrnoException & { port?: number; address?: string };
  const which =
    e.port === (o.customerPort ?? DEFAULTS.customerPort)
      ? { api: 'customer', flag: '--customer-port (or TUSK_CUSTOMER_PORT)' }
      : { api: 'instance', flag: '--instance-port (or TUSK_INSTANCE_PORT)' };
  const where = `port ${e.port} on ${e.address ?? o.host ?? DEFAULTS.host} (the ${which.api} API)`;
  if (e.code === 'EADDRINUSE')
    return `${where} is taken by another process: stop it, or choose another port with ${which.flag}; 0 picks a free one`;
  if (e.code === 'EACCES')
    return `${where} needs privileges this process lacks: choose a port above 1023 with ${which.flag}`;
  if (e.code === 'EADDRNOTAVAIL' || e.code === 'ENOTFOUND')
    return `--host (or TUSK_HOST) ${o.host} is not an address of this machine: use 127.0.0.1, 0.0.0.0 (every interface) or one of its own addresses`;
  return (err as Error).message;
}

export async function serveCommand(args: string[]): Promise<void> {
  const values = readCommand(SERVE, args, (read) => void serveOptions(read));
  if (!values) return;
  const { coverageFile, ...tuskOptions } = serveOptions(values);
  const logger = createLogger(values.log === 'json' ? 'json' : 'text');
  // Listened for from the start: until a handler is installed, a signal ends the process where it
  // stands, with no cleanup (a CI script that sends SIGTERM on reading `tusk: ready` did).
  let tusk: RunningTusk | undefined;
  let closing: string | undefined;
  let stopped = false;
  const shutdown = (signal: string) => {
    closing ??= signal;
    if (!tusk || stopped) return; // still starting: it stops once started (below)
    stopped = true;
    const running = tusk;
    running.stopping(); // a Ctrl-C reaches the embedded Postgres server too: its end is expected now
    logger.info(`tusk: ${closing}, shutting down`);
    if (coverageFile) {
      try {
        for (const file of writeCoverageFiles(coverageFile, running.registry.coverage.report()))
          logger.info(`tusk: coverage       ${file}`);
      } catch (err) {
        logger.error(`tusk: coverage: cannot write ${coverageFile}: ${(err as Error).message}`);
      }
    }
    void running.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 10_000).unref(); // close() stops the database engine too
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  try {
    tusk = await startTusk({ ...tuskOptions, logger });
  } catch (err) {
    fail(
      (err as NodeJS.ErrnoException).syscall === 'listen' ? listenProblem(err, tuskOptions) : (err as Error).message,
      logger,
    );
  }
  if (closing) return shutdown(closing); // a signal came while it started
  const o = { ...DEFAULTS, ...tuskOptions };
  logger.info(`tusk: customer API   ${tusk.customerUrl}`);
  logger.info(`tusk: instance API   ${tusk.instanceUrl}`);
  logger.info(`tusk: customer docs  ${tusk.customerUrl}${DOCS_PATH}`);
  logger.info(`tusk: instance docs  ${tusk.instanceUrl}${DOCS_PATH}`);
  logger.info(
    `tusk: admin key      ${tusk.registry.adminKey}   (curl -u :${tusk.registry.adminKey} ${tusk.customerUrl}/api/instances)`,
  );
  logger.info(
    `tusk: seed           ${tusk.registry.seed}, provision delay ${o.provisionDelayMs} ms, rate limit ${o.rateLimit} per key`,
  );
  if (tusk.control.state)
    logger.info(`tusk: state file     ${tusk.control.state.file} (${tusk.control.loadedState ? 'loaded' : 'new'})`);
  for (const rule of tusk.registry.faults.list()) logger.info(`tusk: fault          ${JSON.stringify(rule)}`);
  const engine = tusk.deps.databases?.engine;
  if (engine) {
    const what =
      engine.spec.kind === 'embedded' ? 'embedded Postgres, starting in the background' : 'an existing Postgres server';
    logger.info(
      `tusk: databases      ${what} on ${engine.host}:${engine.port} (roles and databases ${engine.prefix}*)`,
    );
    engine.start().then(
      () => logger.info(`tusk: databases      ready (PostgreSQL ${engine.version})`),
      (err: unknown) =>
        logger.log(
          closing ? 'debug' : 'error',
          `tusk: databases      failed to start: ${err instanceof Error ? err.message : String(err)}; instances stay not ready`,
        ),
    );
  } else logger.info('tusk: databases      off (instances are records only)');
  if (o.answers === 'production' || o.varySuccess || o.strictFields) {
    const modes = [
      o.varySuccess ? 'vary-success' : `answers ${o.answers ?? 'default'}`,
      ...(o.strictFields ? ['strict fields'] : []),
    ];
    logger.info(`tusk: modes          ${modes.join(', ')}`);
  }
  logger.info(
    `tusk: controls       ${tusk.customerUrl}/__tusk/ (health, reset, clock, state, outbox, requests; ${o.controlKey === undefined ? 'no key' : 'control key required'})`,
  );
  logger.info('tusk: ready');
}
