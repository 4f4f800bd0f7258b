// The `tusk` command: `tusk serve` runs the stand-in; `tusk --help` lists commands and flags.
import { parseArgs } from 'node:util';
import { DEFAULTS, startTusk } from './server.js';

const SERVE_HELP = `Usage: tusk serve [flags]

Runs the stateful stand-in: the customer API and the instance API on two ports.

Flags:
  --host HOST              address to listen on (default ${DEFAULTS.host})
  --customer-port PORT     port of the customer API (default ${DEFAULTS.customerPort})
  --instance-port PORT     port of the instance API (default ${DEFAULTS.instancePort})
  --api-key KEY            the seeded account's admin key (default ${DEFAULTS.apiKey})
  --seed N                 seed of the fixture randomness (default ${DEFAULTS.seed})
  --provision-delay MS     ms until a new instance is ready (default ${DEFAULTS.provisionDelayMs})
  --rate-limit N/S         requests per S seconds and API key (default ${DEFAULTS.rateLimit})
  --log text|json          request log format (default ${DEFAULTS.log})
  --quiet                  no request log
  -h, --help               this help
`;

const HELP = `Usage: tusk <command> [flags]

Commands:
  serve     run the stateful stand-in of both interfaces (tusk serve --help)

Flags:
  -h, --help   this help
`;

function fail(message: string): never {
  console.error(`tusk: ${message}`);
  process.exit(2);
}

function integer(name: string, value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) fail(`--${name} must be an integer from ${min} to ${max}, got "${value}"`);
  return n;
}

async function serveCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        host: { type: 'string' },
        'customer-port': { type: 'string' },
        'instance-port': { type: 'string' },
        'api-key': { type: 'string' },
        seed: { type: 'string' },
        'provision-delay': { type: 'string' },
        'rate-limit': { type: 'string' },
        log: { type: 'string' },
        quiet: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    fail(`${(err as Error).message}\n\n${SERVE_HELP}`);
  }
  if (values.help) {
    process.stdout.write(SERVE_HELP);
    return;
  }
  if (values.log !== undefined && values.log !== 'text' && values.log !== 'json') fail(`--log must be text or json, got "${values.log}"`);
  if (values['api-key'] !== undefined && values['api-key'].length < 8) fail('--api-key must have at least 8 characters');
  const options = {
    host: values.host,
    customerPort: integer('customer-port', values['customer-port'], 0, 65535),
    instancePort: integer('instance-port', values['instance-port'], 0, 65535),
    apiKey: values['api-key'],
    seed: integer('seed', values.seed, 0, 2 ** 31 - 1),
    provisionDelayMs: integer('provision-delay', values['provision-delay'], 0, 86_400_000),
    rateLimit: values['rate-limit'],
    log: values.quiet ? ('off' as const) : (values.log as 'text' | 'json' | undefined),
  };
  const defined = Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
  let tusk;
  try {
    tusk = await startTusk(defined);
  } catch (err) {
    fail((err as Error).message);
  }
  const o = { ...DEFAULTS, ...defined };
  console.log(`tusk: customer API  ${tusk.customerUrl}`);
  console.log(`tusk: instance API  ${tusk.instanceUrl}`);
  console.log(`tusk: admin key     ${tusk.registry.adminKey}   (curl -u :${tusk.registry.adminKey} ${tusk.customerUrl}/api/instances)`);
  console.log(`tusk: seed          ${o.seed}, provision delay ${o.provisionDelayMs} ms, rate limit ${o.rateLimit} per key`);
  console.log('tusk: ready');
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    console.log(`tusk: ${signal}, shutting down`);
    void tusk.close().then(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serveCommand(rest);
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
