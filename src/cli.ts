// The `tusk` command: `tusk serve` runs the stand-in, `tusk docs` writes the static API reference;
// `tusk --help` lists commands and flags, each with its default.
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import type { CoverageReport } from './openapi/coverage-recorder.js';
import { coverageTable, writeCoverageFiles } from './openapi/coverage-render.js';
import { DEFAULTS, startTusk } from './server.js';
import { DOCS_PATH } from './docs/routes.js';
import { INTERFACES, packageVersion } from './openapi/documents.js';
import { parseEngineSpec } from './databases/engine.js';
import { createLogger, type Logger } from './core/log.js';

interface Flag {
  name: string;
  short?: string;
  /** The value's placeholder; none for a boolean flag. */
  arg?: string;
  help: string;
  default: string;
  /** May be given more than once (the values are collected). */
  multiple?: boolean;
}

const SERVE_FLAGS: Flag[] = [
  { name: 'host', arg: 'HOST', help: 'address to listen on', default: DEFAULTS.host },
  {
    name: 'customer-port',
    arg: 'PORT',
    help: 'port of the customer API (0: any free port)',
    default: String(DEFAULTS.customerPort),
  },
  {
    name: 'instance-port',
    arg: 'PORT',
    help: 'port of the instance API (0: any free port)',
    default: String(DEFAULTS.instancePort),
  },
  { name: 'api-key', arg: 'KEY', help: "the seeded account's admin key (8+ characters)", default: DEFAULTS.apiKey },
  { name: 'seed', arg: 'N', help: 'seed of the fixture randomness', default: String(DEFAULTS.seed) },
  {
    name: 'provision-delay',
    arg: 'MS',
    help: 'ms until a new instance is ready',
    default: String(DEFAULTS.provisionDelayMs),
  },
  {
    name: 'rate-limit',
    arg: 'N/S',
    help: 'requests per S seconds (or per a duration: 100/1m) and API key',
    default: DEFAULTS.rateLimit,
  },
  {
    name: 'state',
    arg: 'FILE',
    help: 'keep the whole state in FILE across restarts (loaded at start if it exists, written after changes)',
    default: 'none: in memory',
  },
  {
    name: 'fault',
    arg: 'RULE',
    multiple: true,
    help: "inject a fault, repeatable: [api/]OPERATION|*:latency=200ms|latency=100-300ms|error=500[@RATE]|reset[@RATE], e.g. '*:error=500@0.1' (see /__tusk/faults)",
    default: 'none',
  },
  {
    name: 'control-key',
    arg: 'KEY',
    help: "the /__tusk/ controls need KEY as the password of HTTP Basic (an instance's metrics and events also take an admin key of its account); env TUSK_CONTROL_KEY",
    default: 'none: no key on loopback',
  },
  {
    name: 'control-open',
    help: 'allow a non-loopback --host without --control-key (anyone who reaches the port can reset and read every account)',
    default: 'off',
  },
  {
    name: 'databases',
    arg: 'embedded|off|URL',
    help: 'a real Postgres database behind every instance: on an embedded server started in the background, on an existing server (postgres://ADMIN:PW@HOST:PORT/postgres; roles and databases under a prefix of this process, dropped on delete, reset and shutdown), or off (records only); env TUSK_DATABASES',
    default: 'embedded',
  },
  {
    name: 'answers',
    arg: 'default|production',
    help: "success codes where the documents allow several: the reference implementation's, or production's (201 on creates, 204 on deletes; env TUSK_ANSWERS; per request: header Tusk-Answers)",
    default: 'default',
  },
  {
    name: 'vary-success',
    help: 'each call of an operation with several documented success codes answers the next one (env TUSK_VARY_SUCCESS=1)',
    default: 'off',
  },
  {
    name: 'strict-fields',
    help: 'refuse body fields the schema does not name with a 400 instead of ignoring them (env TUSK_STRICT_FIELDS=1; per request: header Tusk-Strict-Fields: true)',
    default: 'off',
  },
  {
    name: 'coverage',
    arg: 'FILE',
    help: 'on shutdown, write the API coverage of the traffic served (GET /__tusk/coverage) to FILE as JSON and beside it as HTML (FILE.html, or FILE with .json replaced)',
    default: 'none',
  },
  {
    name: 'log',
    arg: 'text|json',
    help: 'format of every line printed: text, or one JSON object per line with time, level and msg (start-up, requests, databases, shutdown)',
    default: DEFAULTS.log,
  },
  { name: 'quiet', help: 'no request log (the start-up and shutdown lines stay)', default: 'off' },
  { name: 'help', short: 'h', help: 'this help', default: 'off' },
];

const COVERAGE_FLAGS: Flag[] = [
  {
    name: 'url',
    arg: 'URL',
    help: 'base URL of a running tusk serve (either port) or tusk proxy (its customer port)',
    default: 'http://127.0.0.1:4010',
  },
  {
    name: 'key',
    arg: 'KEY',
    help: "an account's admin key: that account's coverage (or the control key, with --control-key)",
    default: 'none: all traffic',
  },
  { name: 'account', arg: 'ID', help: "that account's coverage", default: 'none: all traffic' },
  { name: 'json', help: 'print the JSON report instead of the table', default: 'off' },
  { name: 'help', short: 'h', help: 'this help', default: 'off' },
];

export const COVERAGE_HELP = `Usage: tusk coverage [flags]

Prints what the clients' requests exercised on a running stand-in: per interface the share of
operations and documented statuses seen, then per operation the statuses seen and never seen
(e.g. \`getAlarm  200 ok (3), 401 ok (1), 404 never\`), never-exercised operations first, and the
traffic outside the contract. Reads GET /__tusk/coverage.

Flags:
${flagLines(COVERAGE_FLAGS)}`;

const DOCS_FLAGS: Flag[] = [
  {
    name: 'out',
    arg: 'DIR',
    help: 'folder to write (emptied first), relative to the current one',
    default: 'dist/docs',
  },
  { name: 'help', short: 'h', help: 'this help', default: 'off' },
];

function flagLines(flags: Flag[]): string {
  const left = (f: Flag) => `${f.short ? `-${f.short}, ` : ''}--${f.name}${f.arg ? ` ${f.arg}` : ''}`;
  const width = Math.max(...flags.map((f) => left(f).length)) + 2;
  return flags.map((f) => `  ${left(f).padEnd(width)}${f.help} (default ${f.default})`).join('\n') + '\n';
}

function parseOptions(flags: Flag[]) {
  return Object.fromEntries(
    flags.map((f) => [
      f.name,
      {
        type: f.arg ? ('string' as const) : ('boolean' as const),
        ...(f.short ? { short: f.short } : {}),
        ...(f.multiple ? { multiple: true } : {}),
      },
    ]),
  );
}

export const SERVE_HELP = `Usage: tusk serve [flags]

Runs the stateful stand-in: the customer API and the instance API on two ports. Each port also
serves its API reference at /docs and its OpenAPI document at /openapi.json and /openapi.yaml
(no key needed), and the simulation controls under /__tusk/ (no key; see the README).

Flags:
${flagLines(SERVE_FLAGS)}`;

export const DOCS_HELP = `Usage: tusk docs [flags]

Writes the API reference of both interfaces as static HTML for publishing: index.html, and per
interface <interface>/index.html with the OpenAPI document inlined and beside it
(openapi.json, openapi.yaml); the renderer in assets/. Works offline.

Flags:
${flagLines(DOCS_FLAGS)}`;

export const HELP = `Usage: tusk <command> [flags]

Commands:
  serve     run the stateful stand-in of both interfaces (tusk serve --help)
  test      run the conformance suite against a deployment or in-process (tusk test --help)
  docs      write the API reference as static HTML (tusk docs --help)
  proxy     forward to a deployment, checking every exchange against the documents (tusk proxy --help)
  coverage  print what the clients' requests exercised on a running stand-in (tusk coverage --help)

Flags:
  -h, --help      this help (default off)
  -v, --version   print the version of tusk-mock (default off)
`;

function fail(message: string, logger?: Logger): never {
  if (logger) logger.error(`tusk: ${message}`);
  else console.error(`tusk: ${message}`);
  process.exit(2);
}

function integer(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    fail(`--${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
}

async function serveCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: parseOptions(SERVE_FLAGS),
    }));
  } catch (err) {
    fail(`${(err as Error).message}\n\n${SERVE_HELP}`);
  }
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return;
  }
  const str = (name: string) => values[name] as string | undefined;
  const log = str('log');
  if (log !== undefined && log !== 'text' && log !== 'json') fail(`--log must be text or json, got "${log}"`);
  const controlKey = str('control-key') ?? process.env.TUSK_CONTROL_KEY;
  if (controlKey !== undefined && controlKey.length < 8) fail('--control-key must have at least 8 characters');
  const host = str('host') ?? DEFAULTS.host;
  const loopback = host === 'localhost' || host === '::1' || /^127\./.test(host);
  if (!loopback && controlKey === undefined && !values['control-open']) {
    fail(
      `--host ${host} is reachable from other machines, and the controls under /__tusk/ can reset and read every account (their keys included): give --control-key KEY, or --control-open to run without one`,
    );
  }
  const databases = str('databases') ?? process.env.TUSK_DATABASES ?? 'embedded';
  try {
    parseEngineSpec(databases);
  } catch (err) {
    fail((err as Error).message);
  }
  const answers = str('answers') ?? process.env.TUSK_ANSWERS;
  if (answers !== undefined && answers !== 'default' && answers !== 'production')
    fail(`--answers must be default or production, got "${answers}"`);
  const envFlag = (name: string) => ['1', 'true'].includes((process.env[name] ?? '').toLowerCase());
  const apiKey = str('api-key');
  if (apiKey !== undefined && apiKey.length < 8) fail('--api-key must have at least 8 characters');
  const options = {
    host: str('host'),
    customerPort: integer('customer-port', str('customer-port'), 0, 65535),
    instancePort: integer('instance-port', str('instance-port'), 0, 65535),
    apiKey,
    seed: integer('seed', str('seed'), 0, 2 ** 31 - 1),
    provisionDelayMs: integer('provision-delay', str('provision-delay'), 0, 86_400_000),
    rateLimit: str('rate-limit'),
    state: str('state'),
    faults: values.fault as string[] | undefined,
    databases,
    controlKey,
    answers: answers as 'default' | 'production' | undefined,
    varySuccess: values['vary-success'] || envFlag('TUSK_VARY_SUCCESS') ? true : undefined,
    strictFields: values['strict-fields'] || envFlag('TUSK_STRICT_FIELDS') ? true : undefined,
    log: values.quiet ? ('off' as const) : (log as 'text' | 'json' | undefined),
  };
  const coverageFile = str('coverage');
  if (coverageFile === '') fail('--coverage needs a file name');
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  const logger = createLogger(log === 'json' ? 'json' : 'text');
  let tusk;
  try {
    tusk = await startTusk({ ...defined, logger });
  } catch (err) {
    fail((err as Error).message, logger);
  }
  const o = { ...DEFAULTS, ...defined };
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
  let closing = false;
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
  if (options.answers === 'production' || options.varySuccess || options.strictFields) {
    const modes = [
      options.varySuccess ? 'vary-success' : `answers ${options.answers ?? 'default'}`,
      ...(options.strictFields ? ['strict fields'] : []),
    ];
    logger.info(`tusk: modes          ${modes.join(', ')}`);
  }
  logger.info(
    `tusk: controls       ${tusk.customerUrl}/__tusk/ (health, reset, clock, state, outbox, requests; ${controlKey === undefined ? 'no key' : 'control key required'})`,
  );
  logger.info('tusk: ready');
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    tusk.stopping(); // a Ctrl-C reaches the embedded Postgres server too: its end is expected now
    logger.info(`tusk: ${signal}, shutting down`);
    if (coverageFile) {
      try {
        for (const file of writeCoverageFiles(coverageFile, tusk.registry.coverage.report()))
          logger.info(`tusk: coverage       ${file}`);
      } catch (err) {
        logger.error(`tusk: coverage: cannot write ${coverageFile}: ${(err as Error).message}`);
      }
    }
    void tusk.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 10_000).unref(); // close() stops the database engine too
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

async function coverageCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, options: parseOptions(COVERAGE_FLAGS) }));
  } catch (err) {
    fail(`${(err as Error).message}\n\n${COVERAGE_HELP}`);
  }
  if (values.help) {
    process.stdout.write(COVERAGE_HELP);
    return;
  }
  const base = ((values.url as string | undefined) ?? 'http://127.0.0.1:4010').replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(`${base}/__tusk/coverage`);
  } catch {
    fail(`--url must be an http(s) URL, got "${base}"`);
  }
  if (values.account) url.searchParams.set('account', values.account as string);
  const headers: Record<string, string> = values.key
    ? { authorization: `Basic ${Buffer.from(`:${values.key as string}`).toString('base64')}` }
    : {};
  let res: Response;
  try {
    res = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
  } catch (err) {
    fail(
      `cannot reach ${url.origin}: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
    );
  }
  const text = await res.text();
  if (!res.ok) fail(`${url.href} answered ${res.status}: ${text.slice(0, 300)}`);
  const report = JSON.parse(text) as CoverageReport;
  process.stdout.write(values.json ? JSON.stringify(report, null, 2) + '\n' : coverageTable(report));
}

async function docsCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({ args, strict: true, options: parseOptions(DOCS_FLAGS) }));
  } catch (err) {
    fail(`${(err as Error).message}\n\n${DOCS_HELP}`);
  }
  if (values.help) {
    process.stdout.write(DOCS_HELP);
    return;
  }
  const out = resolve((values.out as string | undefined) ?? 'dist/docs');
  let files: string[];
  try {
    // Loaded by the commands that use them: `tusk serve` starts without them.
    const { buildStaticDocs } = await import('./docs/static.js');
    files = await buildStaticDocs(out);
  } catch (err) {
    fail((err as Error).message);
  }
  for (const api of INTERFACES) console.log(`tusk: ${api} reference  ${join(out, api, 'index.html')}`);
  console.log(`tusk: ${files.length} files in ${out}`);
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serveCommand(rest);
    case 'test':
      return (await import('./conformance/run.js')).testCommand(rest);
    case 'docs':
      return docsCommand(rest);
    case 'coverage':
      return coverageCommand(rest);
    case 'proxy':
      return (await import('./proxy/cli.js')).proxyCommand(rest);
    case '-v':
    case '--version':
    case 'version':
      console.log(packageVersion());
      return;
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(HELP);
      return;
    default:
      fail(`unknown command "${command}"\n\n${HELP}`);
  }
}
