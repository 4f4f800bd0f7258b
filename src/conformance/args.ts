// The arguments of `tusk test`: its help text, its flags and the environment variables that stand
// in for them, checked into TestOptions (a UsageError names what is wrong), and the variables the
// harness reads (targetEnv), which the runner sets from those options.
import { parseArgs } from 'node:util';
import { parseRateLimit } from '../http/rate-limit.js';

export const TEST_HELP = `Usage: tusk test [flags] [file filter ...]

Runs the conformance suite (contract-tests/) against a deployment of both interfaces, or, without
URLs, against the reference implementation started in-process.

Flags:
  --customer-url URL     base URL of the customer API (with --instance-url and --api-key)
  --instance-url URL     base URL of the instance API
  --api-key KEY          an admin key of the customer API
  --role-keys LIST       keys of other team roles: 'monitor=KEY,billing manager=KEY'
                         (tests that need a role without a key are skipped)
  --callback-host HOST   host name under which the deployment reaches callbacks the tests serve
  --allow-destructive    also run *.destructive.test.ts (key rotation of the given key, running
                         maintenance, ...); without it they are left out
  --check-databases      also check the databases behind the instances by their data: the url
                         connects, a backup restored brings its rows back, a fork is an
                         independent copy, a point-in-time recovery or copy holds the data of
                         that time, rotate-password refuses the old password (for a deployment
                         whose instance URLs the runner can reach; in-process: an embedded server)
  --rate-limit N/S       the deployment's documented rate limit per key (N requests per S
                         seconds), for the 429 check: without a 429 it is a departure only once
                         the runner got more than 2N requests answered within S seconds, else
                         inconclusive (skipped, naming the rate reached); without the flag a
                         missing 429 is always inconclusive
  --junit FILE           also write a JUnit XML report to FILE
  -h, --help             this help

Environment (a flag wins over its variable; secrets stay off the command line):
  TUSK_CUSTOMER_URL, TUSK_INSTANCE_URL, TUSK_API_KEY, TUSK_ROLE_KEYS, TUSK_CALLBACK_HOST
                         the values of --customer-url, --instance-url, --api-key, --role-keys,
                         --callback-host
  TUSK_ALLOW_DESTRUCTIVE=1, TUSK_CHECK_DATABASES=1
                         as --allow-destructive, --check-databases (also "true")
  TUSK_RATE_LIMIT        the value of --rate-limit
  TUSK_CALLBACK_PORT     the port of the suite's callback receiver (default: any free port)
  TUSK_CALLBACK_TIMEOUT_MS
                         how long a test waits for a callback to arrive (default 60000)

Test files are grouped by what they do to the target: *.readonly.test.ts only read;
*.test.ts create their own resources and remove them afterwards; *.destructive.test.ts change
what they did not create. File filters select test files whose path contains one of them.
Exit code: 0 when every test passed, 1 when one failed or departed from the contract, 2 on usage errors,
128 plus the signal's number when SIGINT, SIGTERM or SIGHUP stopped the run.
`;

export interface TestOptions {
  customerUrl?: string;
  instanceUrl?: string;
  apiKey?: string;
  roleKeys?: string;
  callbackHost?: string;
  allowDestructive: boolean;
  /** --check-databases: the instances' URLs are real databases the runner can reach. */
  checkDatabases?: boolean;
  /** --rate-limit N/S: the deployment's documented rate limit per key. */
  rateLimit?: string;
  junit?: string;
  filters: string[];
}

export class UsageError extends Error {}

/** The flags `tusk test` also takes from the environment (TEST_HELP), by flag. */
export const TEST_ENV = {
  'customer-url': 'TUSK_CUSTOMER_URL',
  'instance-url': 'TUSK_INSTANCE_URL',
  'api-key': 'TUSK_API_KEY',
  'role-keys': 'TUSK_ROLE_KEYS',
  'callback-host': 'TUSK_CALLBACK_HOST',
  'allow-destructive': 'TUSK_ALLOW_DESTRUCTIVE',
  'check-databases': 'TUSK_CHECK_DATABASES',
  'rate-limit': 'TUSK_RATE_LIMIT',
} as const;

export function parseTestArgs(args: string[], env: NodeJS.ProcessEnv = process.env): TestOptions | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        'customer-url': { type: 'string' },
        'instance-url': { type: 'string' },
        'api-key': { type: 'string' },
        'role-keys': { type: 'string' },
        'callback-host': { type: 'string' },
        'allow-destructive': { type: 'boolean' },
        'check-databases': { type: 'boolean' },
        'rate-limit': { type: 'string' },
        junit: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values: flags, positionals } = parsed;
  if (flags.help) return 'help';
  // A flag wins over its variable; an empty variable counts as unset.
  const fromEnv = (flag: keyof typeof TEST_ENV) => env[TEST_ENV[flag]] || undefined;
  const envFlag = (flag: keyof typeof TEST_ENV) => ['1', 'true'].includes((fromEnv(flag) ?? '').toLowerCase());
  const values = {
    ...flags,
    ...Object.fromEntries(
      (['customer-url', 'instance-url', 'api-key', 'role-keys', 'callback-host', 'rate-limit'] as const).map((f) => [
        f,
        flags[f] ?? fromEnv(f),
      ]),
    ),
    'allow-destructive': flags['allow-destructive'] === true || envFlag('allow-destructive'),
    'check-databases': flags['check-databases'] === true || envFlag('check-databases'),
  } as typeof flags;
  const external = [values['customer-url'], values['instance-url']].filter((v) => v !== undefined).length;
  if (external === 1)
    throw new UsageError(
      'give both --customer-url and --instance-url (or TUSK_CUSTOMER_URL and TUSK_INSTANCE_URL), or neither to test the in-process reference implementation',
    );
  if (external === 2 && !values['api-key'])
    throw new UsageError('--api-key (or TUSK_API_KEY) is required with --customer-url and --instance-url');
  if (external === 0 && values['api-key'] !== undefined)
    throw new UsageError(
      '--api-key (or TUSK_API_KEY) needs --customer-url and --instance-url (the in-process reference implementation has its own key)',
    );
  for (const name of ['customer-url', 'instance-url'] as const) {
    const v = values[name];
    if (v === undefined) continue;
    let url: URL;
    try {
      url = new URL(v);
    } catch {
      throw new UsageError(`--${name} (or ${TEST_ENV[name]}) must be an http(s) URL, got "${v}"`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new UsageError(`--${name} (or ${TEST_ENV[name]}) must be an http(s) URL, got "${v}"`);
  }
  if (values['role-keys'] !== undefined) {
    for (const part of values['role-keys'].split(',')) {
      if (part.trim() && !/^[^=]+=.+$/.test(part.trim()))
        throw new UsageError(
          `--role-keys (or TUSK_ROLE_KEYS) must look like 'monitor=KEY,billing manager=KEY', got "${part.trim()}"`,
        );
    }
  }
  if (values['rate-limit'] !== undefined) {
    try {
      parseRateLimit(values['rate-limit']);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
  }
  return {
    customerUrl: values['customer-url'],
    instanceUrl: values['instance-url'],
    apiKey: values['api-key'],
    roleKeys: values['role-keys'],
    callbackHost: values['callback-host'],
    allowDestructive: values['allow-destructive'] === true,
    checkDatabases: values['check-databases'] === true,
    ...(values['rate-limit'] !== undefined ? { rateLimit: values['rate-limit'] } : {}),
    junit: values.junit,
    filters: positionals,
  };
}

/** The variables the harness reads (contract-tests/harness/target.ts). */
export function targetEnv(o: TestOptions): Record<string, string | undefined> {
  return {
    TUSK_CUSTOMER_URL: o.customerUrl,
    TUSK_INSTANCE_URL: o.instanceUrl,
    TUSK_API_KEY: o.apiKey,
    TUSK_ROLE_KEYS: o.roleKeys,
    TUSK_CALLBACK_HOST: o.callbackHost,
    TUSK_ALLOW_DESTRUCTIVE: o.allowDestructive ? '1' : undefined,
    TUSK_CHECK_DATABASES: o.checkDatabases ? '1' : undefined,
    TUSK_RATE_LIMIT: o.rateLimit,
  };
}
