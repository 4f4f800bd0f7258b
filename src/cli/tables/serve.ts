// The flags of `tusk serve` and their variables (TUSK_<FLAG>; see index.ts for the names).
import { parseEngineSpec } from '../../databases/engine.js';
import { parseRateLimit } from '../../http/rate-limit.js';
import { DEFAULTS } from '../../server.js';
import { parseFaultFlag } from '../../domain/fault-rules.js';
import type { Command } from '../flags.js';
import { atLeast8, HELP, notEmpty, parses, PORT, RATE_LIMIT } from './checks.js';

export const SERVE: Command = {
  name: 'serve',
  about: `Runs the stateful stand-in: the customer API and the instance API on two ports. Each port also
serves its API reference at /docs and its OpenAPI document at /openapi.json and /openapi.yaml
(no key needed), and the simulation controls under /__tusk/ (no key; see the README).
GET /__tusk/health answers 200 once everything served is ready and 503 until then (or when the
databases failed, with the reason); GET /__tusk/live answers 200 while the process serves.`,
  flags: [
    { name: 'host', arg: 'HOST', env: 'TUSK_HOST', help: 'address to listen on', default: DEFAULTS.host },
    {
      name: 'customer-port',
      arg: 'PORT',
      env: 'TUSK_CUSTOMER_PORT',
      integer: PORT,
      help: 'port of the customer API (0: any free port)',
      default: String(DEFAULTS.customerPort),
    },
    {
      name: 'instance-port',
      arg: 'PORT',
      env: 'TUSK_INSTANCE_PORT',
      integer: PORT,
      help: 'port of the instance API (0: any free port)',
      default: String(DEFAULTS.instancePort),
    },
    {
      name: 'api-key',
      arg: 'KEY',
      env: 'TUSK_API_KEY',
      check: atLeast8,
      help: "the seeded account's admin key (8+ characters; the key tusk test uses against it)",
      default: DEFAULTS.apiKey,
    },
    {
      name: 'seed',
      arg: 'N',
      env: 'TUSK_SEED',
      integer: [0, 2 ** 31 - 1],
      help: 'seed of the fixture randomness',
      default: String(DEFAULTS.seed),
    },
    {
      name: 'provision-delay',
      arg: 'MS',
      env: 'TUSK_PROVISION_DELAY',
      integer: [0, 86_400_000],
      help: 'ms until a new instance is ready',
      default: String(DEFAULTS.provisionDelayMs),
    },
    {
      name: 'rate-limit',
      arg: 'N/S',
      env: 'TUSK_RATE_LIMIT',
      check: parses(parseRateLimit, RATE_LIMIT),
      help: 'requests per S seconds (or per a duration: 100/1m) and API key',
      default: DEFAULTS.rateLimit,
    },
    {
      name: 'state',
      arg: 'FILE',
      env: 'TUSK_STATE',
      check: notEmpty,
      help: 'keep the whole state in FILE across restarts (loaded at start if it exists, written after changes)',
      default: 'none: in memory',
    },
    {
      name: 'fault',
      arg: 'RULE',
      env: 'TUSK_FAULT',
      multiple: true,
      check: (value) => {
        try {
          parseFaultFlag(value);
          return undefined;
        } catch (err) {
          return `is not a fault rule (${(err as Error).message})`;
        }
      },
      help: "inject a fault, repeatable (in the variable: rules separated by ;): [api/]OPERATION or *, a colon, then latency=200ms, latency=100-300ms, error=500[@RATE] or reset[@RATE]; e.g. '*:error=500@0.1' (see /__tusk/faults)",
      default: 'none',
    },
    {
      name: 'control-key',
      arg: 'KEY',
      env: 'TUSK_CONTROL_KEY',
      check: atLeast8,
      help: "the /__tusk/ controls need KEY as the password of HTTP Basic (an instance's metrics and events also take an admin key of its account)",
      default: 'none: no key on loopback',
    },
    {
      name: 'control-open',
      env: 'TUSK_CONTROL_OPEN',
      help: 'allow a non-loopback --host without --control-key (anyone who reaches the port can reset and read every account)',
      default: 'off',
    },
    {
      name: 'databases',
      arg: 'embedded|off|URL',
      env: 'TUSK_DATABASES',
      check: parses(parseEngineSpec, 'must be off, embedded or a postgres:// URL of an existing server'),
      help: "a real Postgres database behind every instance: on an embedded server started in the background, on an existing server (postgres://ADMIN:PW@HOST:PORT/postgres; roles and databases under a prefix of this process, dropped on delete, reset and shutdown; with a postgres:// --state, by default the state's server, under a prefix of the team, never dropped on shutdown), or off (records only)",
      default: 'embedded',
    },
    {
      name: 'answers',
      arg: 'default|production',
      env: 'TUSK_ANSWERS',
      choices: ['default', 'production'],
      help: "success codes where the documents allow several: the reference implementation's, or production's (201 on creates, 204 on deletes; per request: header Tusk-Answers)",
      default: 'default',
    },
    {
      name: 'vary-success',
      env: 'TUSK_VARY_SUCCESS',
      help: 'each call of an operation with several documented success codes answers the next one',
      default: 'off',
    },
    {
      name: 'strict-fields',
      env: 'TUSK_STRICT_FIELDS',
      help: 'refuse body fields the schema does not name with a 400 instead of ignoring them (per request: header Tusk-Strict-Fields: true)',
      default: 'off',
    },
    {
      name: 'coverage',
      arg: 'FILE',
      env: 'TUSK_COVERAGE',
      check: notEmpty,
      help: 'on shutdown, write the API coverage of the traffic served (GET /__tusk/coverage) to FILE as JSON and beside it as HTML (FILE.html, or FILE with .json replaced)',
      default: 'none',
    },
    {
      name: 'log',
      arg: 'text|json',
      env: 'TUSK_LOG',
      choices: ['text', 'json'],
      help: 'format of every line printed: text, or one JSON object per line with time, level and msg (start-up, requests, databases, shutdown)',
      default: DEFAULTS.log,
    },
    {
      name: 'quiet',
      env: 'TUSK_QUIET',
      help: 'no request log (the start-up and shutdown lines stay)',
      default: 'off',
    },
    HELP,
  ],
};
