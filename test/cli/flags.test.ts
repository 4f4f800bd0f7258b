// Every flag of every `tusk` command from its environment variable (src/cli/tables.ts, read by
// src/cli/flags.ts): each variable sets its flag, a flag given wins over it, an empty variable is
// unset, a switch's variable says yes or no (and --no-FLAG overrides it), a repeatable flag's
// variable holds several values, and a bad value is refused naming the flag and the variable; the
// help of each command is made from the same rows, so it names every flag and every variable.
import { describe, expect, it } from 'vitest';
import { flagLines, helpOf, readFlags, UsageError, type Command, type Flag } from '../../src/cli/flags.js';
import { COMMANDS, PROXY, SERVE, TEST } from '../../src/cli/tables/index.js';
import { serveOptions } from '../../src/cli/serve.js';
import { parseTestArgs, TEST_ENV } from '../../src/conformance/args.js';

/** A valid value of a flag that takes one, different from its default. */
function sample(flag: Flag): string {
  if (flag.choices) return flag.choices.at(-1)!;
  if (flag.integer) return String(flag.integer[0] + 7);
  const by: Record<string, string> = {
    'rate-limit': '5/60',
    databases: 'postgres://admin:pw@db.example:5432/postgres',
    fault: 'listAlarms:latency=200ms',
    'role-keys': 'monitor=M,billing manager=B',
    url: 'http://tusk.example:4010',
  };
  if (by[flag.name]) return by[flag.name]!;
  if (flag.check?.('x')) return flag.arg === 'URL' ? 'https://api.example' : 'value-of-8-or-more';
  return `value-of-${flag.name}`;
}

const withEnv = (command: Command) => command.flags.filter((f) => f.env);

describe('the tables of flags', () => {
  it('give every flag but --help a variable, each named once per command and after its command', () => {
    for (const command of COMMANDS) {
      const names = withEnv(command).map((f) => f.env!);
      expect(command.flags.filter((f) => !f.env).map((f) => f.name)).toEqual(['help']);
      expect(new Set(names).size, command.name).toBe(names.length);
      const prefix = {
        serve: 'TUSK_',
        test: 'TUSK_',
        proxy: 'TUSK_PROXY_',
        coverage: 'TUSK_COVERAGE_',
        docs: 'TUSK_DOCS_',
        import: 'TUSK_IMPORT_',
        replay: 'TUSK_REPLAY_',
      }[command.name]!;
      for (const name of names) expect(name, command.name).toMatch(new RegExp(`^${prefix}[A-Z_]+$`));
    }
    // serve and test share two names, with the same value in practice: the key and the rate limit.
    const serve = new Set(withEnv(SERVE).map((f) => f.env));
    expect(
      withEnv(TEST)
        .filter((f) => serve.has(f.env))
        .map((f) => f.name),
    ).toEqual(['api-key', 'rate-limit']);
    // the variables tusk test already read keep their names
    expect(TEST_ENV).toMatchObject({
      'customer-url': 'TUSK_CUSTOMER_URL',
      'instance-url': 'TUSK_INSTANCE_URL',
      'api-key': 'TUSK_API_KEY',
      'role-keys': 'TUSK_ROLE_KEYS',
      'callback-host': 'TUSK_CALLBACK_HOST',
      'callback-port': 'TUSK_CALLBACK_PORT',
      'callback-timeout': 'TUSK_CALLBACK_TIMEOUT_MS',
      'allow-destructive': 'TUSK_ALLOW_DESTRUCTIVE',
      'check-databases': 'TUSK_CHECK_DATABASES',
      'rate-limit': 'TUSK_RATE_LIMIT',
    });
  });

  for (const command of COMMANDS) {
    it(`tusk ${command.name}: every variable sets its flag, and the flag given wins over it`, () => {
      for (const flag of withEnv(command)) {
        const value = flag.arg ? sample(flag) : true;
        const expected = flag.multiple ? [value] : value;
        expect(readFlags(command, [], { [flag.env!]: String(value === true ? '1' : value) }).values[flag.name]).toEqual(
          expected,
        );
        if (flag.arg) {
          const given = readFlags(command, [`--${flag.name}`, value as string], { [flag.env!]: 'ignored' }).values;
          expect(given[flag.name], flag.name).toEqual(expected);
          expect(readFlags(command, [], { [flag.env!]: '' }).values[flag.name], `${flag.env}=''`).toBeUndefined();
        } else {
          expect(readFlags(command, [`--no-${flag.name}`], { [flag.env!]: 'yes' }).values[flag.name]).toBe(false);
          expect(readFlags(command, [`--${flag.name}`], { [flag.env!]: 'off' }).values[flag.name]).toBe(true);
        }
      }
    });

    it(`tusk ${command.name} --help names every flag and every variable, within 100 columns`, () => {
      const help = helpOf(command);
      for (const flag of command.flags) {
        expect(help).toMatch(new RegExp(`^  (-\\w, )?--${flag.name}\\b`, 'm'));
        if (flag.env) expect(help).toContain(`; env ${flag.env})`);
      }
      for (const line of help.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
    });
  }

  it("reads a switch's variable as yes or no, and refuses anything else naming the variable", () => {
    const quiet = (v: string) => readFlags(SERVE, [], { TUSK_QUIET: v }).values.quiet;
    for (const yes of ['1', 'true', 'TRUE', 'yes', 'on']) expect(quiet(yes)).toBe(true);
    for (const no of ['0', 'false', 'no', 'off']) expect(quiet(no)).toBe(false);
    expect(quiet('')).toBeUndefined();
    expect(() => quiet('maybe')).toThrow(UsageError);
    expect(() => quiet('maybe')).toThrow(
      /^TUSK_QUIET must be one of 1, true, .* \(as --quiet \(or TUSK_QUIET\)\), got "maybe"$/,
    );
  });

  it("splits a repeatable flag's variable at ; and new lines; the flags given replace it", () => {
    const env = { TUSK_FAULT: 'listAlarms:latency=200ms; *:error=500@0.1\ninstance/*:reset@5%;' };
    expect(readFlags(SERVE, [], env).values.fault).toEqual([
      'listAlarms:latency=200ms',
      '*:error=500@0.1',
      'instance/*:reset@5%',
    ]);
    expect(readFlags(SERVE, ['--fault', 'getAlarm:reset'], env).values.fault).toEqual(['getAlarm:reset']);
  });

  it('refuses a bad value from the command line or the environment, naming the flag and its variable', () => {
    const cases: [Command, Record<string, string>, string[], RegExp][] = [
      [
        SERVE,
        { TUSK_CUSTOMER_PORT: '70000' },
        [],
        /^--customer-port \(or TUSK_CUSTOMER_PORT\) must be an integer from 0 to 65535, got "70000"$/,
      ],
      [SERVE, {}, ['--seed', '1.5'], /^--seed \(or TUSK_SEED\) must be an integer/],
      [SERVE, { TUSK_LOG: 'xml' }, [], /^--log \(or TUSK_LOG\) must be text or json, got "xml"$/],
      [SERVE, { TUSK_ANSWERS: 'all' }, [], /must be default or production/],
      [SERVE, { TUSK_API_KEY: 'short' }, [], /^--api-key \(or TUSK_API_KEY\) must have at least 8 characters/],
      [SERVE, { TUSK_CONTROL_KEY: 'short' }, [], /^--control-key \(or TUSK_CONTROL_KEY\) must have at least 8/],
      [
        SERVE,
        { TUSK_DATABASES: 'mysql://x' },
        [],
        /^--databases \(or TUSK_DATABASES\) must be off, embedded or a postgres/,
      ],
      [
        SERVE,
        { TUSK_FAULT: 'nonsense' },
        [],
        /^--fault \(or TUSK_FAULT\) is not a fault rule \(a fault rule looks like/,
      ],
      [SERVE, { TUSK_RATE_LIMIT: 'fast' }, [], /^--rate-limit \(or TUSK_RATE_LIMIT\) must look like N\/S/],
      [SERVE, {}, ['--state', ''], /^--state \(or TUSK_STATE\) needs a file name/],
      [SERVE, {}, ['--no-state'], /Unknown option '--no-state'/],
      [
        PROXY,
        { TUSK_PROXY_CUSTOMER_TARGET: 'ftp://x' },
        [],
        /^--customer-target \(or TUSK_PROXY_CUSTOMER_TARGET\) must be an http\(s\) URL/,
      ],
      [
        PROXY,
        { TUSK_PROXY_INSTANCE_PORT: '-1' },
        [],
        /^--instance-port \(or TUSK_PROXY_INSTANCE_PORT\) must be an integer/,
      ],
      [
        TEST,
        { TUSK_CALLBACK_TIMEOUT_MS: 'soon' },
        [],
        /^--callback-timeout \(or TUSK_CALLBACK_TIMEOUT_MS\) must be an integer/,
      ],
      [SERVE, {}, ['--bogus'], /Unknown option '--bogus'/],
    ];
    for (const [command, env, args, message] of cases)
      expect(() => readFlags(command, args, env), JSON.stringify({ env, args })).toThrow(message);
  });

  it('tusk serve: the variables become the options of the server, as their flags would', () => {
    const env = {
      TUSK_HOST: '0.0.0.0',
      TUSK_CUSTOMER_PORT: '5010',
      TUSK_INSTANCE_PORT: '5011',
      TUSK_API_KEY: 'env-admin-key',
      TUSK_SEED: '42',
      TUSK_PROVISION_DELAY: '0',
      TUSK_RATE_LIMIT: '10/1',
      TUSK_STATE: '/tmp/tusk-state.json',
      TUSK_FAULT: 'listAlarms:latency=200ms',
      TUSK_CONTROL_KEY: 'env-control-key',
      TUSK_DATABASES: 'off',
      TUSK_ANSWERS: 'production',
      TUSK_VARY_SUCCESS: 'true',
      TUSK_STRICT_FIELDS: '1',
      TUSK_COVERAGE: 'reports/coverage.json',
      TUSK_LOG: 'json',
    };
    const fromEnv = serveOptions(readFlags(SERVE, [], env).values);
    expect(fromEnv).toEqual({
      host: '0.0.0.0',
      customerPort: 5010,
      instancePort: 5011,
      apiKey: 'env-admin-key',
      seed: 42,
      provisionDelayMs: 0,
      rateLimit: '10/1',
      state: '/tmp/tusk-state.json',
      faults: ['listAlarms:latency=200ms'],
      controlKey: 'env-control-key',
      databases: 'off',
      answers: 'production',
      varySuccess: true,
      strictFields: true,
      coverageFile: 'reports/coverage.json',
      log: 'json',
    });
    const flags = Object.entries(env).flatMap(([name, value]) => {
      const flag = SERVE.flags.find((f) => f.env === name)!;
      return flag.arg ? [`--${flag.name}`, value] : [`--${flag.name}`];
    });
    expect(serveOptions(readFlags(SERVE, flags, {}).values)).toEqual(fromEnv);
    expect(serveOptions(readFlags(SERVE, [], { TUSK_QUIET: '1', TUSK_LOG: 'json' }).values).log).toBe('off');
    // every variable of the table is in the set above or is the quiet switch and the open controls
    expect(SERVE.flags.flatMap((f) => (f.env ? [f.env] : [])).sort()).toEqual(
      [...Object.keys(env), 'TUSK_QUIET', 'TUSK_CONTROL_OPEN'].sort(),
    );
  });

  it('tusk serve refuses a reachable host without a control key, or says --control-open (also from variables)', () => {
    const read = (env: Record<string, string>) => serveOptions(readFlags(SERVE, [], env).values);
    expect(() => read({ TUSK_HOST: '0.0.0.0' })).toThrow(
      /give --control-key KEY \(or TUSK_CONTROL_KEY\), or --control-open/,
    );
    expect(read({ TUSK_HOST: '0.0.0.0', TUSK_CONTROL_OPEN: '1' })).toMatchObject({ host: '0.0.0.0' });
    expect(read({ TUSK_HOST: '127.0.0.2' })).toMatchObject({ host: '127.0.0.2' });
  });

  it('tusk test: the variables it always read keep their meaning, and the new ones reach the harness', () => {
    expect(
      parseTestArgs([], {
        TUSK_CALLBACK_PORT: '4099',
        TUSK_CALLBACK_TIMEOUT_MS: '3000',
        TUSK_JUNIT: 'reports/contract.xml',
      }),
    ).toMatchObject({ callbackPort: 4099, callbackTimeoutMs: 3000, junit: 'reports/contract.xml' });
  });

  it('prints a flag without a default or variable on one line', () => {
    expect(flagLines([{ name: 'help', short: 'h', help: 'this help', default: '' }])).toBe('  -h, --help  this help\n');
  });
});
