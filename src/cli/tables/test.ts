// The flags of `tusk test` and their variables (TUSK_<FLAG>; see index.ts for the names).
import { parseRateLimit } from '../../http/rate-limit.js';
import type { Command } from '../flags.js';
import { HELP, httpUrl, notEmpty, parses, PORT, RATE_LIMIT } from './checks.js';

export const TEST: Command = {
  name: 'test',
  usage: '[flags] [file filter ...]',
  positionals: true,
  about: `Runs the conformance suite (contract-tests/) against a deployment of both interfaces, or, without
URLs, against the reference implementation started in-process. Its runner (vitest, supertest) is
not installed with tusk-mock: where it is missing, tusk test names the command that installs it.`,
  flags: [
    {
      name: 'customer-url',
      arg: 'URL',
      env: 'TUSK_CUSTOMER_URL',
      check: httpUrl,
      help: 'base URL of the customer API (with --instance-url and --api-key)',
      default: 'none: in-process',
    },
    {
      name: 'instance-url',
      arg: 'URL',
      env: 'TUSK_INSTANCE_URL',
      check: httpUrl,
      help: 'base URL of the instance API',
      default: 'none: in-process',
    },
    {
      name: 'api-key',
      arg: 'KEY',
      env: 'TUSK_API_KEY',
      help: 'an admin key of the customer API (against tusk serve: its --api-key)',
      default: 'none',
    },
    {
      name: 'role-keys',
      arg: 'LIST',
      env: 'TUSK_ROLE_KEYS',
      check: (value) =>
        value
          .split(',')
          .map((part) => part.trim())
          .some((part) => part && !/^[^=]+=.+$/.test(part))
          ? "must look like 'monitor=KEY,billing manager=KEY'"
          : undefined,
      help: "keys of other team roles: 'monitor=KEY,billing manager=KEY' (tests that need a role without a key are skipped)",
      default: 'none',
    },
    {
      name: 'callback-host',
      arg: 'HOST',
      env: 'TUSK_CALLBACK_HOST',
      help: 'host name under which the deployment reaches callbacks the tests serve (the receiver then listens on all interfaces)',
      default: 'none: 127.0.0.1, on loopback',
    },
    {
      name: 'callback-port',
      arg: 'PORT',
      env: 'TUSK_CALLBACK_PORT',
      integer: PORT,
      help: "port of the suite's callback receiver (0: any free port)",
      default: '0',
    },
    {
      name: 'callback-timeout',
      arg: 'MS',
      env: 'TUSK_CALLBACK_TIMEOUT_MS',
      integer: [1, 3_600_000],
      help: 'how long a test waits for a callback to arrive (in-process: 30000)',
      default: '60000',
    },
    {
      name: 'allow-destructive',
      env: 'TUSK_ALLOW_DESTRUCTIVE',
      help: 'also run *.destructive.test.ts (key rotation of the given key, running maintenance, ...); without it they are left out',
      default: 'off',
    },
    {
      name: 'check-databases',
      env: 'TUSK_CHECK_DATABASES',
      help: 'also check the databases behind the instances by their data: the url connects, a backup restored brings its rows back, a fork is an independent copy, a point-in-time recovery or copy holds the data of that time, rotate-password refuses the old password (for a deployment whose instance URLs the runner can reach; in-process: an embedded server)',
      default: 'off',
    },
    {
      name: 'rate-limit',
      arg: 'N/S',
      env: 'TUSK_RATE_LIMIT',
      check: parses(parseRateLimit, RATE_LIMIT),
      help: "the deployment's documented rate limit per key (N requests per S seconds; against tusk serve: its --rate-limit), for the 429 check: without a 429 it is a departure only once the runner got more than 2N requests answered within S seconds, else inconclusive (skipped, naming the rate reached); without it a missing 429 is always inconclusive",
      default: 'none',
    },
    {
      name: 'junit',
      arg: 'FILE',
      env: 'TUSK_JUNIT',
      check: notEmpty,
      help: 'also write a JUnit XML report to FILE',
      default: 'none',
    },
    HELP,
  ],
  after: `Test files are grouped by what they do to the target: *.readonly.test.ts only read;
*.test.ts create their own resources and remove them afterwards; *.destructive.test.ts change
what they did not create. File filters select test files whose path contains one of them.
Exit code: 0 when every test passed, 1 when one failed or departed from the contract, 2 on usage
errors and when the runner is not installed, 128 plus the signal's number when SIGINT, SIGTERM or
SIGHUP stopped the run.`,
};
