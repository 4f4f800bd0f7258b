// `tusk serve` as a user runs it: a separate process that prints its URLs and key when ready,
// answers on both ports, and shuts down cleanly on SIGTERM. Needs `npm run build` (npm test runs it).
import { chmodSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, packageVersion } from '../src/openapi/documents.js';
import { serveUntilReady } from './support/serve.js';
import { run as runProcess, running, start } from './support/processes.js';
import { tempDir } from './support/temp.js';
import { createServer, type AddressInfo } from 'node:net';
import { freePort } from '../src/core/net.js';

const BIN = join(PROJECT_ROOT, 'bin', 'tusk.js');

const run = (args: string[]) => runProcess(process.execPath, [BIN, ...args]);

describe('the tusk command', () => {
  it('tusk serve prints both URLs and the admin key when ready, serves, and exits 0 on SIGTERM', async () => {
    const served = await serveUntilReady(['--api-key', 'cli-test-admin-key', '--quiet']);
    const out = served.output();
    const customer = /customer API\s+(http:\/\/\S+)/.exec(out)?.[1];
    const instance = /instance API\s+(http:\/\/\S+)/.exec(out)?.[1];
    expect(customer).toBeDefined();
    expect(instance).toBeDefined();
    expect(out).toContain('cli-test-admin-key');
    expect(out).toContain(`customer docs  ${customer}/docs`);
    expect(out).toContain(`instance docs  ${instance}/docs`);
    expect((await fetch(`${customer}/docs`)).status).toBe(200);
    const res = await fetch(`${customer}/api/plans`, {
      headers: { authorization: 'Basic ' + Buffer.from(':cli-test-admin-key').toString('base64') },
    });
    expect(res.status).toBe(200);
    expect((await fetch(`${instance}/api/alarms`)).status).toBe(401);
    // The default engine: an embedded Postgres server, named with its address, that goes away with the process.
    expect(out).toMatch(/tusk: databases +embedded Postgres, starting in the background on 127\.0\.0\.1:\d+/);
    expect(await served.stop()).toBe(0);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith(`tusk-pg-${served.child.pid}-`))).toEqual([]);
  });

  it('tusk serve --help lists every flag with its default and its variable', async () => {
    const { code, out } = await run(['serve', '--help']);
    expect(code).toBe(0);
    for (const [flag, env] of [
      ['--host', 'TUSK_HOST'],
      ['--customer-port', 'TUSK_CUSTOMER_PORT'],
      ['--instance-port', 'TUSK_INSTANCE_PORT'],
      ['--api-key', 'TUSK_API_KEY'],
      ['--seed', 'TUSK_SEED'],
      ['--provision-delay', 'TUSK_PROVISION_DELAY'],
      ['--rate-limit', 'TUSK_RATE_LIMIT'],
      ['--state', 'TUSK_STATE'],
      ['--log', 'TUSK_LOG'],
      ['--quiet', 'TUSK_QUIET'],
    ]) {
      // The flag's line, its help wrapped below it, then its default and its variable.
      expect(out).toMatch(new RegExp(`^  ${flag}\\b.*\\n(?: {10,}.*\\n)*? {10,}\\(default [^)]+; env ${env}\\)$`, 'm'));
    }
    expect(out).toMatch(/^  -h, --help +this help$/m);
    expect(out).toMatch(/\(default 4010; env TUSK_CUSTOMER_PORT\)/);
    expect(out).toMatch(/\(default 4011; env TUSK_INSTANCE_PORT\)/);
    expect(out).toMatch(/\(default tusk-admin-key; env TUSK_API_KEY\)/);
    expect(out).toContain('/docs');
    for (const line of out.split('\n')) expect(line.length, line).toBeLessThanOrEqual(100);
  });

  it('tusk --help lists the commands, and tusk docs --help its flags with their defaults', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^  serve /m);
    expect(help.out).toMatch(/^  docs /m);
    expect(help.out).toMatch(/--help .*\(default off\)/);
    const docs = await run(['docs', '--help']);
    expect(docs.code).toBe(0);
    expect(docs.out).toMatch(/^  --out DIR .*\n +\(default dist\/docs; env TUSK_DOCS_OUT\)$/m);
  });

  it('tusk --version and tusk -v print the version of package.json', async () => {
    for (const flag of ['--version', '-v']) {
      const { code, out } = await run([flag]);
      expect(code).toBe(0);
      expect(out).toBe(`${packageVersion()}\n`);
    }
    expect(packageVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('refuses a malformed flag value with exit code 2 and a message', async () => {
    const { code, out } = await run(['serve', '--rate-limit', 'lots']);
    expect(code).toBe(2);
    expect(out).toMatch(/--rate-limit \(or TUSK_RATE_LIMIT\) must look like N\/S/);
  });

  it('import and replay name a missing required flag with its variable, and replay its one recording, exit code 2', async () => {
    const replay = await run(['replay']);
    expect(replay.code).toBe(2);
    expect(replay.out).toMatch(/tusk replay: give one recording \(FILE\), got 0/);
    const url = await run(['replay', 'a.har']);
    expect(url.out).toMatch(/--customer-url \(or TUSK_REPLAY_CUSTOMER_URL\) is required/);
    const imported = await run(['import', '--customer-url', 'http://127.0.0.1:1']);
    expect(imported.code).toBe(2);
    expect(imported.out).toMatch(/tusk import: --instance-url \(or TUSK_IMPORT_INSTANCE_URL\) is required/);
  });

  it('refuses an embedded server for each replica of a team (a postgres:// --state), naming what to give', async () => {
    const { code, out } = await run([
      'serve',
      '--state',
      'postgres://tusk@127.0.0.1:1/tusk',
      '--databases',
      'embedded',
    ]);
    expect(code).toBe(2);
    expect(out).toMatch(
      /with a postgres:\/\/ --state, --databases embedded would give each replica a server of its own/,
    );
  });
});

describe('tusk serve and tusk proxy configured by the environment alone (as a container or a compose file does)', () => {
  it('serve takes host, ports, key, seed, rate limit, log format, databases and quiet from TUSK_*; proxy its targets and ports from TUSK_PROXY_*', async () => {
    const [customerPort, instancePort, proxyCustomer, proxyInstance] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const served = start(process.execPath, [BIN, 'serve'], {
      env: {
        ...process.env,
        TUSK_HOST: '127.0.0.1',
        TUSK_CUSTOMER_PORT: String(customerPort),
        TUSK_INSTANCE_PORT: String(instancePort),
        TUSK_API_KEY: 'env-admin-key',
        TUSK_SEED: '42',
        TUSK_RATE_LIMIT: '77/1',
        TUSK_LOG: 'json',
        TUSK_DATABASES: 'off',
        TUSK_QUIET: '1',
        TUSK_ANSWERS: 'production',
      },
    });
    const out = await served.until(/"tusk: ready"/);
    const lines = out
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { msg: string }).msg);
    expect(lines).toContain(`tusk: customer API   http://127.0.0.1:${customerPort}`);
    expect(lines).toContain(`tusk: instance API   http://127.0.0.1:${instancePort}`);
    expect(lines).toContain('tusk: seed           42, provision delay 1000 ms, rate limit 77/1 per key');
    expect(lines).toContain('tusk: databases      off (instances are records only)');
    expect(lines).toContain('tusk: modes          answers production');
    const key = { authorization: 'Basic ' + Buffer.from(':env-admin-key').toString('base64') };
    const plans = await fetch(`http://127.0.0.1:${customerPort}/api/plans`, { headers: key });
    expect(plans.status).toBe(200);
    expect(served.output()).not.toContain('GET /api/plans'); // quiet: no request log

    const proxy = start(process.execPath, [BIN, 'proxy'], {
      env: {
        ...process.env,
        TUSK_PROXY_CUSTOMER_TARGET: `http://127.0.0.1:${customerPort}`,
        TUSK_PROXY_INSTANCE_TARGET: `http://127.0.0.1:${instancePort}`,
        TUSK_PROXY_CUSTOMER_PORT: String(proxyCustomer),
        TUSK_PROXY_INSTANCE_PORT: String(proxyInstance),
        TUSK_PROXY_ANNOTATE: 'true',
      },
    });
    await proxy.until(/tusk proxy: ready/);
    const through = await fetch(`http://127.0.0.1:${proxyCustomer}/api/instances`, {
      method: 'POST',
      headers: { ...key, 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(through.status).toBe(400);
    expect(through.headers.get('tusk-departures')).toMatch(/request plan required/); // --annotate, from its variable
    expect(await proxy.stop()).toBe(0);
    expect(await served.stop()).toBe(0);
  });

  it('a flag given wins over its variable, and a bad variable is refused naming it, with exit code 2', async () => {
    const env = { ...process.env, TUSK_CUSTOMER_PORT: 'none', TUSK_DATABASES: 'off' };
    const bad = await runProcess(process.execPath, [BIN, 'serve'], { env });
    expect(bad.code).toBe(2);
    expect(bad.out).toMatch(
      /^tusk: --customer-port \(or TUSK_CUSTOMER_PORT\) must be an integer from 0 to 65535, got "none"$/m,
    );
    const served = start(process.execPath, [BIN, 'serve', '--customer-port', '0', '--instance-port', '0'], { env });
    await served.until(/tusk: ready/);
    expect(await served.stop()).toBe(0);
  });
});

describe('tusk serve and signals', () => {
  it('a SIGTERM sent the moment tusk: ready is read, on a busy machine, stops it cleanly (exit code 0), every time', async () => {
    // Until a handler is installed, SIGTERM ends a process where it stands: the handler is installed
    // before the start, not after the line (4 of 25 such stops were killed before, on this machine).
    for (let i = 0; i < availableParallelism() + 1; i++) start(process.execPath, ['-e', 'for (;;) {}']);
    for (let i = 0; i < 10; i++) {
      const served = start(process.execPath, [BIN, 'serve', '--customer-port', '0', '--instance-port', '0'], {
        env: { ...process.env, TUSK_DATABASES: 'off' },
      });
      await served.until(/tusk: ready/);
      expect(await served.stop(), served.output()).toBe(0);
      expect(served.output()).toMatch(/tusk: SIGTERM, shutting down\n$/);
    }
  }, 120_000);
});

describe('tusk serve on a port another process has', () => {
  it('says which port, of which API, is taken and how to choose another, with exit code 2', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', () => resolve()));
    const port = (taken.address() as AddressInfo).port;
    try {
      for (const [args, api, flag] of [
        [
          ['--customer-port', String(port), '--instance-port', '0'],
          'customer',
          '--customer-port (or TUSK_CUSTOMER_PORT)',
        ],
        [
          ['--customer-port', '0', '--instance-port', String(port)],
          'instance',
          '--instance-port (or TUSK_INSTANCE_PORT)',
        ],
      ] as const) {
        const { code, stderr } = await runProcess(process.execPath, [BIN, 'serve', '--databases', 'off', ...args]);
        expect(code).toBe(2);
        expect(stderr).toBe(
          `tusk: port ${port} on 127.0.0.1 (the ${api} API) is taken by another process: stop it, or choose another port with ${flag}; 0 picks a free one\n`,
        );
      }
    } finally {
      await new Promise((r) => taken.close(r));
    }
  });
});

/** Starts `tusk serve` in a process group of its own (as a terminal runs it; support/processes.ts): its output so far and a stop. */
function serveInGroup(args: string[], env?: NodeJS.ProcessEnv) {
  const s = start(process.execPath, [BIN, 'serve', '--customer-port', '0', '--instance-port', '0', ...args], { env });
  return {
    p: s.child,
    stdout: s.stdout,
    stderr: s.stderr,
    exited: s.exit,
    /** Kills the whole group, whatever happened (a failed assertion included; the test's end does it too). */
    kill: () => void s.stop('SIGKILL', 0),
  };
}

async function until<T>(what: string, check: () => Promise<T | undefined> | T | undefined, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await Promise.resolve()
      .then(check)
      .catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const ADMIN = { authorization: 'Basic ' + Buffer.from(':tusk-admin-key').toString('base64') };

/** Waits for `tusk: ready` in the output, then for the databases (GET /__tusk/health), and makes an instance's database. */
async function readyWithDatabases(s: ReturnType<typeof serveInGroup>): Promise<string> {
  const customer = await until('the customer URL', () => /customer API\s+(http:\/\/[\d.:]+)/.exec(s.stdout())?.[1]);
  await until('tusk: ready', () => (s.stdout().includes('tusk: ready') ? true : undefined));
  await until('the databases', async () =>
    ((await (await fetch(`${customer}/__tusk/health`)).json()) as { ready: boolean }).ready ? true : undefined,
  );
  const created = await fetch(`${customer}/api/instances`, {
    method: 'POST',
    headers: { ...ADMIN, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'stop-me', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
  });
  const { id } = (await created.json()) as { id: number };
  await until('the instance', async () =>
    ((await (await fetch(`${customer}/api/instances/${id}`, { headers: ADMIN })).json()) as { ready: boolean }).ready
      ? true
      : undefined,
  );
  return customer;
}

describe('stopping tusk serve', () => {
  it('Ctrl-C (SIGINT to the process group, the embedded Postgres server included) stops it with exit code 0 and not one error line', async () => {
    const s = serveInGroup(['--quiet']);
    try {
      await readyWithDatabases(s);
      process.kill(-s.p.pid!, 'SIGINT');
      expect(await s.exited).toBe(0);
      expect(s.stdout()).toMatch(/tusk: SIGINT, shutting down\n$/);
      expect(s.stderr()).toBe('');
    } finally {
      s.kill();
    }
  });

  it('SIGKILL (which no handler sees) to tusk alone: its embedded Postgres server stops and its data directory goes within seconds', async () => {
    // A temporary folder of its own: a Tusk that other tests start meanwhile clears the servers of
    // dead Tusk processes in the shared one (and the postgres system user must enter it, as root).
    const tmp = tempDir('tusk-watchdog-');
    chmodSync(tmp, 0o755);
    const s = serveInGroup(['--quiet'], { ...process.env, TMPDIR: tmp });
    try {
      await readyWithDatabases(s);
      const [data] = readdirSync(tmp).filter((n) => n.startsWith(`tusk-pg-${s.p.pid}-`));
      const dir = join(tmp, data!);
      const server = Number(readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      expect(running(server)).toBe(true);
      process.kill(s.p.pid!, 'SIGKILL');
      await until('the server to stop', () => (running(server) ? undefined : true), 20_000);
      await until('the data directory to go', () => (existsSync(dir) ? undefined : true), 20_000);
    } finally {
      s.kill();
    }
  });
});

describe('tusk serve --log json', () => {
  it('prints every line as one JSON object with time, level and msg: start-up, requests, databases, shutdown (SIGTERM, no error)', async () => {
    const s = serveInGroup(['--log', 'json']);
    try {
      const customer = await readyWithDatabases(s);
      await fetch(`${customer}/api/plans`, { headers: ADMIN });
      s.p.kill('SIGTERM');
      expect(await s.exited).toBe(0);
      expect(s.stderr()).toBe('');
      const lines = s
        .stdout()
        .trimEnd()
        .split('\n')
        .map((l) => JSON.parse(l) as { time: string; level: string; msg: string; path?: string; status?: number });
      for (const line of lines) {
        expect(new Date(line.time).toISOString()).toBe(line.time);
        expect(['info', 'warn', 'error']).toContain(line.level);
        expect(typeof line.msg).toBe('string');
      }
      const messages = lines.map((l) => l.msg);
      expect(messages[0]).toMatch(/^tusk: customer API +http:/);
      expect(messages).toContain('tusk: ready');
      expect(messages.some((m) => /^tusk: databases +ready \(PostgreSQL/.test(m))).toBe(true);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'info', msg: 'GET /api/plans 200', path: '/api/plans', status: 200 }),
      );
      expect(messages.at(-1)).toBe('tusk: SIGTERM, shutting down');
      expect(lines.filter((l) => l.level !== 'info')).toEqual([]);
    } finally {
      s.kill();
    }
  });
});
