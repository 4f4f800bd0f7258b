// `tusk test`: the runner's argument handling, grouping and summary, and two end-to-end runs of
// the built CLI: the generated authentication checks pass against the reference implementation
// in-process, and against a broken deployment (a server that answers 200 to everything) they
// fail with exit code 1 and a summary that names each departure, with a JUnit report.
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
import { run } from './support/processes.js';
import { startTusk, type RunningTusk } from '../src/server.js';
import { parseTestArgs, targetEnv, TEST_HELP, UsageError } from '../src/conformance/args.js';
import { formatSummary, type RunSummary } from '../src/conformance/report.js';
import { groupOf, suiteFiles } from '../src/conformance/suite.js';
import { tempDir } from './support/temp.js';

describe('tusk test: arguments', () => {
  it('runs in-process without URLs', () => {
    expect(parseTestArgs([], {})).toMatchObject({
      customerUrl: undefined,
      instanceUrl: undefined,
      allowDestructive: false,
      filters: [],
    });
  });

  it('takes a deployment, role keys, a callback host, the destructive and database flags, JUnit and filters', () => {
    const o = parseTestArgs(
      [
        '--customer-url',
        'http://c:1',
        '--instance-url',
        'https://i',
        '--api-key',
        'K',
        '--role-keys',
        'monitor=M,billing manager=B',
        '--callback-host',
        'me.local',
        '--allow-destructive',
        '--check-databases',
        '--rate-limit',
        '1000/1',
        '--junit',
        'r.xml',
        'derived/',
      ],
      {},
    );
    expect(o).toEqual({
      customerUrl: 'http://c:1',
      instanceUrl: 'https://i',
      apiKey: 'K',
      roleKeys: 'monitor=M,billing manager=B',
      callbackHost: 'me.local',
      allowDestructive: true,
      checkDatabases: true,
      rateLimit: '1000/1',
      junit: 'r.xml',
      filters: ['derived/'],
    });
    expect(targetEnv(o as Exclude<typeof o, 'help'>)).toMatchObject({
      TUSK_CUSTOMER_URL: 'http://c:1',
      TUSK_API_KEY: 'K',
      TUSK_ROLE_KEYS: 'monitor=M,billing manager=B',
      TUSK_ALLOW_DESTRUCTIVE: '1',
      TUSK_CHECK_DATABASES: '1',
      TUSK_RATE_LIMIT: '1000/1',
    });
    expect(() => parseTestArgs(['--rate-limit', 'fast'], {})).toThrow(
      /--rate-limit \(or TUSK_RATE_LIMIT\) must look like N\/S/,
    );
    expect(
      parseTestArgs(['--customer-url', 'http://c:1', '--instance-url', 'https://i'], {
        TUSK_API_KEY: 'K',
        TUSK_RATE_LIMIT: '5/60',
      }),
    ).toMatchObject({
      rateLimit: '5/60',
    });
    expect(parseTestArgs([], {})).toMatchObject({ checkDatabases: false });
  });

  it('refuses half a deployment, a deployment without key, a key without deployment, bad URLs and bad role keys', () => {
    expect(() => parseTestArgs(['--customer-url', 'http://c'], {})).toThrow(UsageError);
    expect(() => parseTestArgs(['--customer-url', 'http://c', '--instance-url', 'http://i'], {})).toThrow(
      /--api-key \(or TUSK_API_KEY\) is required/,
    );
    expect(() => parseTestArgs(['--api-key', 'K'], {})).toThrow(/TUSK_API_KEY\) needs --customer-url/);
    expect(() =>
      parseTestArgs(['--customer-url', 'ftp://c', '--instance-url', 'http://i', '--api-key', 'K'], {}),
    ).toThrow(/http\(s\) URL/);
    expect(() => parseTestArgs(['--role-keys', 'monitor'], {})).toThrow(/role-keys/);
    expect(() => parseTestArgs(['--bogus'], {})).toThrow(UsageError);
    expect(parseTestArgs(['-h'], {})).toBe('help');
  });

  it('takes the deployment, its keys and the destructive and database switches from TUSK_* variables, a flag winning over its variable', () => {
    const env = {
      TUSK_CUSTOMER_URL: 'http://c:1',
      TUSK_INSTANCE_URL: 'https://i',
      TUSK_API_KEY: 'K',
      TUSK_ROLE_KEYS: 'monitor=M',
      TUSK_CALLBACK_HOST: 'me.local',
      TUSK_ALLOW_DESTRUCTIVE: '1',
      TUSK_CHECK_DATABASES: 'true',
    };
    expect(parseTestArgs([], env)).toEqual({
      customerUrl: 'http://c:1',
      instanceUrl: 'https://i',
      apiKey: 'K',
      roleKeys: 'monitor=M',
      callbackHost: 'me.local',
      allowDestructive: true,
      checkDatabases: true,
      junit: undefined,
      filters: [],
    });
    expect(parseTestArgs(['--api-key', 'FLAG', '--customer-url', 'http://other'], env)).toMatchObject({
      apiKey: 'FLAG',
      customerUrl: 'http://other',
      instanceUrl: 'https://i',
    });
    expect(parseTestArgs([], { ...env, TUSK_ALLOW_DESTRUCTIVE: '0', TUSK_CHECK_DATABASES: '' })).toMatchObject({
      allowDestructive: false,
      checkDatabases: false,
    });
    // an empty variable is unset; errors name the variable too
    expect(parseTestArgs([], { TUSK_CUSTOMER_URL: '', TUSK_INSTANCE_URL: '', TUSK_API_KEY: '' })).toMatchObject({
      customerUrl: undefined,
      apiKey: undefined,
    });
    expect(() => parseTestArgs([], { TUSK_CUSTOMER_URL: 'http://c', TUSK_INSTANCE_URL: 'http://i' })).toThrow(
      /--api-key \(or TUSK_API_KEY\) is required/,
    );
    expect(() => parseTestArgs([], { ...env, TUSK_INSTANCE_URL: 'nope' })).toThrow(
      /--instance-url \(or TUSK_INSTANCE_URL\) must be an http\(s\) URL/,
    );
    expect(() => parseTestArgs([], { TUSK_ROLE_KEYS: 'monitor' })).toThrow(/TUSK_ROLE_KEYS/);
  });

  it('tusk test --help names every variable it reads', () => {
    for (const name of [
      'TUSK_CUSTOMER_URL',
      'TUSK_INSTANCE_URL',
      'TUSK_API_KEY',
      'TUSK_ROLE_KEYS',
      'TUSK_CALLBACK_HOST',
      'TUSK_ALLOW_DESTRUCTIVE',
      'TUSK_CHECK_DATABASES',
      'TUSK_RATE_LIMIT',
      'TUSK_CALLBACK_PORT',
      'TUSK_CALLBACK_TIMEOUT_MS',
    ])
      expect(TEST_HELP).toContain(name);
  });

  it('groups test files by name: read-only, creating and removing, destructive', () => {
    expect(groupOf('derived/auth.readonly.test.ts')).toBe('read-only');
    expect(groupOf('customer/apikeys.destructive.test.ts')).toBe('destructive');
    expect(groupOf('instance/alarms.test.ts')).toBe('creates and removes');
    expect(suiteFiles()).toContain('derived/auth.readonly.test.ts');
    expect(suiteFiles().some((f) => f.startsWith('harness/'))).toBe(false);
  });

  it('the summary names each departure: operation, request, expected and got', () => {
    const summary: RunSummary = {
      files: [
        { file: 'derived/auth.readonly.test.ts', group: 'read-only', passed: 3, failed: 1, skipped: 0, errors: 0 },
        { file: 'instance/x.test.ts', group: 'creates and removes', passed: 2, failed: 0, skipped: 1, errors: 0 },
      ],
      departures: [
        {
          operation: 'customer listRegions',
          request: 'GET /api/regions',
          expected: '401',
          got: '200 application/json',
          violations: ['a request without credentials: expected 401, got 200'],
          tests: ['derived/auth.readonly.test.ts > a', 'b'],
        },
      ],
      failures: [{ test: 'instance/x.test.ts > y', message: 'boom' }],
      unhandled: [],
    };
    const text = formatSummary(summary, ['customer/apikeys.destructive.test.ts'], 'the moon');
    expect(text).toContain('read-only            1 files (1 failing): 3 tests passed, 1 failed, 0 skipped');
    expect(text).toContain('destructive          not run (1 files; pass --allow-destructive)');
    expect(text).toContain('1. customer listRegions  GET /api/regions\n     expected 401; got 200 application/json');
    expect(text).toContain('(and 1 more)');
    expect(text).toContain('Other failures (1)');
    expect(text).toMatch(/RESULT: the target departs/);
  });

  it('the summary lists inconclusive checks apart, with why; they do not fail the run', () => {
    const note =
      'inconclusive: no 429 after 5000 requests with one key; at most 300 were answered within 1 s (300 per second)';
    const summary: RunSummary = {
      files: [
        {
          file: 'derived/rate-limit.test.ts',
          group: 'creates and removes',
          passed: 0,
          failed: 0,
          skipped: 2,
          errors: 0,
        },
      ],
      departures: [],
      failures: [],
      unhandled: [],
      inconclusive: [{ test: 'derived/rate-limit.test.ts > a', note }],
    };
    const text = formatSummary(summary, [], 'the moon');
    expect(text).toContain(
      `Inconclusive checks (1; skipped, not departures):\n  1. derived/rate-limit.test.ts > a\n      ${note}`,
    );
    expect(text).toContain(
      'RESULT: the target conforms to the contract in every check that ran (1 inconclusive, listed above)',
    );
  });
});

/** `tusk test ...args` with none of this run's TUSK_ and VITEST variables (stopped with the test if it outlives it). */
async function runCli(args: string[]): Promise<{ code: number; out: string }> {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('TUSK_') || k.startsWith('VITEST')) delete env[k];
  const { code, out } = await run(process.execPath, [join(PROJECT_ROOT, 'bin', 'tusk.js'), 'test', ...args], {
    cwd: PROJECT_ROOT,
    env,
  });
  return { code: code ?? -1, out };
}

describe('tusk test: end to end', () => {
  let broken: Server;
  let url: string;

  beforeAll(async () => {
    if (!existsSync(join(PROJECT_ROOT, 'dist', 'src', 'cli.js')))
      throw new Error('the built CLI is missing: run npm run build first');
    broken = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('[]');
    });
    await new Promise<void>((r) => broken.listen(0, '127.0.0.1', () => r()));
    url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((r) => (broken ? broken.close(() => r()) : r())));

  it('passes against the reference implementation in-process, with a progress line per file and exit code 0', async () => {
    const { code, out } = await runCli(['derived/auth']);
    expect(out).toMatch(/^PASS {2}\[read-only\] +derived\/auth\.readonly\.test\.ts {2}\(94 passed\)$/m);
    expect(out).toContain('RESULT: the target conforms');
    expect(code).toBe(0);
  }, 120_000);

  it('fails against a broken deployment with exit code 1, naming the departures, and writes JUnit', async () => {
    const junit = join(tempDir('tusk-junit-'), 'contract.xml');
    const { code, out } = await runCli([
      '--customer-url',
      url,
      '--instance-url',
      url,
      '--api-key',
      'whatever-key',
      '--junit',
      junit,
      'derived/auth',
    ]);
    expect(code).toBe(1);
    expect(out).toMatch(/^FAIL {2}\[read-only\] +derived\/auth\.readonly\.test\.ts/m);
    expect(out).toContain('Departures from the contract');
    expect(out).toMatch(/customer listRegions {2}GET \/api\/regions\n {5}expected 401; got 200 application\/json/);
    expect(out).toMatch(/instance createAlarm {2}POST \/api\/alarms/);
    const xml = readFileSync(junit, 'utf8');
    expect(xml).toContain('<testsuites');
    expect(xml).toMatch(/failures="[1-9]/);
  }, 120_000);
});

describe('tusk test: checks that depend on speed (issue 32)', () => {
  // A deployment whose limit no runner reaches: 1,000,000 requests per second and key.
  let tusk: RunningTusk;
  beforeAll(async () => {
    tusk = await startTusk({
      customerPort: 0,
      instancePort: 0,
      log: 'off',
      provisionDelayMs: 0,
      rateLimit: '1000000/1',
    });
  });
  afterAll(() => tusk?.close());
  const against = (...args: string[]) =>
    runCli([
      '--customer-url',
      tusk.customerUrl,
      '--instance-url',
      tusk.instanceUrl,
      '--api-key',
      tusk.registry.adminKey,
      ...args,
      'derived/rate-limit',
    ]);

  it('a 429 check that could not reach the documented limit is inconclusive, naming the rate reached and what was needed, and the run passes', async () => {
    const { code, out } = await against('--rate-limit', '1000000/1');
    expect(out).toMatch(/Inconclusive checks \(2; skipped, not departures\)/);
    expect(out).toMatch(
      /inconclusive: no 429 after \d+ requests with one key; at most \d+ were answered within 1 s \(\d+ per second\); proving the documented limit of 1000000 per 1 s needs more than 2000000 within 1 s/,
    );
    expect(out).not.toContain('Departures from the contract');
    expect(code).toBe(0);
  }, 180_000);

  it('a target that admits more than twice its documented limit without a 429 departs', async () => {
    const { code, out } = await against('--rate-limit', '5/60');
    expect(out).toMatch(/Departures from the contract \(2\)/);
    expect(out).toMatch(/more than twice the documented limit of 5 per 60 s/);
    expect(code).toBe(1);
  }, 180_000);
});
