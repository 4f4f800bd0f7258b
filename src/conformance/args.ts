// The arguments of `tusk test`: its flags and the environment variables that stand in for them, read
// by the command's table (src/cli/tables.ts, TEST, which also makes its help), checked into
// TestOptions (a UsageError names what is wrong), and the variables the harness reads (targetEnv),
// which the runner sets from those options.
import { helpOf, readFlags, UsageError } from '../cli/flags.js';
import { TEST } from '../cli/tables/index.js';

export { UsageError };

/** `tusk test --help`, made from the command's table of flags (src/cli/tables.ts). */
export const TEST_HELP = helpOf(TEST);

export interface TestOptions {
  customerUrl?: string;
  instanceUrl?: string;
  apiKey?: string;
  roleKeys?: string;
  callbackHost?: string;
  /** --callback-port: the port of the suite's callback receiver. */
  callbackPort?: number;
  /** --callback-timeout: how long a test waits for a callback (ms). */
  callbackTimeoutMs?: number;
  allowDestructive: boolean;
  /** --check-databases: the instances' URLs are real databases the runner can reach. */
  checkDatabases?: boolean;
  /** --rate-limit N/S: the deployment's documented rate limit per key. */
  rateLimit?: string;
  junit?: string;
  filters: string[];
}

/** The variables of the flags `tusk test` also takes from the environment, by flag. */
export const TEST_ENV = Object.fromEntries(TEST.flags.flatMap((f) => (f.env ? [[f.name, f.env]] : []))) as Record<
  string,
  string
>;

export function parseTestArgs(args: string[], env: NodeJS.ProcessEnv = process.env): TestOptions | 'help' {
  const { values, positionals } = readFlags(TEST, args, env);
  if (values.help) return 'help';
  const str = (name: string) => values[name] as string | undefined;
  const external = [str('customer-url'), str('instance-url')].filter((v) => v !== undefined).length;
  if (external === 1)
    throw new UsageError(
      'give both --customer-url and --instance-url (or TUSK_CUSTOMER_URL and TUSK_INSTANCE_URL), or neither to test the in-process reference implementation',
    );
  if (external === 2 && !str('api-key'))
    throw new UsageError('--api-key (or TUSK_API_KEY) is required with --customer-url and --instance-url');
  if (external === 0 && str('api-key') !== undefined)
    throw new UsageError(
      '--api-key (or TUSK_API_KEY) needs --customer-url and --instance-url (the in-process reference implementation has its own key)',
    );
  const number = (name: string) => (str(name) === undefined ? undefined : Number(str(name)));
  return {
    customerUrl: str('customer-url'),
    instanceUrl: str('instance-url'),
    apiKey: str('api-key'),
    roleKeys: str('role-keys'),
    callbackHost: str('callback-host'),
    ...(str('callback-port') !== undefined ? { callbackPort: number('callback-port') } : {}),
    ...(str('callback-timeout') !== undefined ? { callbackTimeoutMs: number('callback-timeout') } : {}),
    allowDestructive: values['allow-destructive'] === true,
    checkDatabases: values['check-databases'] === true,
    ...(str('rate-limit') !== undefined ? { rateLimit: str('rate-limit') } : {}),
    junit: str('junit'),
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
    TUSK_CALLBACK_PORT: o.callbackPort?.toString(),
    TUSK_CALLBACK_TIMEOUT_MS: o.callbackTimeoutMs?.toString(),
  };
}
