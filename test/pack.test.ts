// The package installs and runs without a clone: `npm pack` (of the build that `npm test` made just
// before: --ignore-scripts skips the prepack build), install the tarball into a temporary project
// (its dependencies come from the registry or npm's cache), run the installed `tusk serve`, and use
// the exports a client project imports: the bundled documents and the generated types.
// The installed `tusk test` runs part of the suite against the installed `tusk serve`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/openapi/documents.js';

const exec = promisify(execFile);
const work = mkdtempSync(join(tmpdir(), 'tusk-pack-'));
const project = join(work, 'client');
let tarball: string;
let files: string[];
let server: ChildProcess | undefined;

beforeAll(async () => {
  const { stdout } = await exec('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024 });
  const [info] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info!.filename);
  files = info!.files.map((f) => f.path);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'tusk-pack-client', version: '1.0.0', private: true, type: 'module' }));
  await exec('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: project, maxBuffer: 64 * 1024 * 1024 });
}, 180_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  rmSync(work, { recursive: true, force: true });
});

describe('the npm package tusk-mock', () => {
  it('packs the CLI, the compiled code, the bundled documents and the renderer, and neither the tests nor built docs', () => {
    for (const path of ['bin/tusk.js', 'dist/tusk.cjs', 'dist/tusk.cjs.cache', 'dist/src/cli.js', 'dist/src/server.js', 'dist/src/generated/customer.d.ts', 'dist/openapi/customer.json', 'dist/openapi/instance.json', 'dist/vendor/redoc/bundles/redoc.standalone.js', 'dist/vendor/redoc/LICENSE', 'openapi/customer.yaml', 'package.json']) {
      expect(files, path).toContain(path);
    }
    expect(files.filter((f) => f.startsWith('test/') || f.startsWith('dist/docs/') || f.startsWith('dist/dist/') || f.startsWith('examples/'))).toEqual([]);
  });

  it('installed, runs tusk serve: the document, the reference and an authenticated call answer', async () => {
    server = spawn(join(project, 'node_modules', '.bin', 'tusk'), ['serve', '--customer-port', '0', '--instance-port', '0', '--quiet'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    server.stderr!.on('data', (d) => (out += d));
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the installed tusk serve did not get ready:\n${out}`)), 20_000);
      server!.once('exit', (code) => reject(new Error(`the installed tusk serve exited with ${code}:\n${out}`)));
      server!.stdout!.on('data', (d) => {
        out += d;
        if (out.includes('tusk: ready')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const customer = /customer API\s+(http:\/\/\S+)/.exec(out)![1]!;
    const instance = /instance API\s+(http:\/\/\S+)/.exec(out)![1]!;
    const doc = (await (await fetch(`${customer}/openapi.json`)).json()) as { info: { title: string } };
    expect(doc.info.title).toBe('Customer API');
    expect((await fetch(`${instance}/openapi.yaml`)).status).toBe(200);
    const page = await fetch(`${customer}/docs`);
    expect(page.status).toBe(200);
    expect((await fetch(`${customer}/docs/redoc.standalone.js`)).status).toBe(200);
    const plans = await fetch(`${customer}/api/plans`, { headers: { authorization: 'Basic ' + Buffer.from(':tusk-admin-key').toString('base64') } });
    expect(plans.status).toBe(200);
    expect(Array.isArray(await plans.json())).toBe(true);
    // The installed tusk test checks the installed tusk serve (two files of the suite, for time).
    const suite = await exec(join(project, 'node_modules', '.bin', 'tusk'), ['test', '--customer-url', customer, '--instance-url', instance, '--api-key', 'tusk-admin-key', 'customer/regions', 'customer/plans'], { cwd: project, maxBuffer: 16 * 1024 * 1024 }).catch((e: { code: number; stdout: string; stderr: string }) => e);
    expect(suite.stdout + suite.stderr).toMatch(/PASS .*customer\/regions/);
    expect(suite.stdout + suite.stderr).toMatch(/PASS .*customer\/plans/);
    expect((suite as { code?: number }).code ?? 0).toBe(0);
    const exited = new Promise<number | null>((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

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
    writeFileSync(join(project, 'client.ts'), `
      import type { paths as CustomerPaths, components } from 'tusk-mock/types/customer';
      import type { paths as InstancePaths } from 'tusk-mock/types/instance';
      type Plans = CustomerPaths['/api/plans']['get']['responses'][200]['content']['application/json'];
      const plan: Plans[number] = {} as components['schemas']['Plan'];
      type Alarms = InstancePaths['/api/alarms']['get'];
      export const used: [typeof plan, Alarms | undefined] = [plan, undefined];
    `);
    writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['client.ts'] }));
    await exec(process.execPath, [join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'], { cwd: project });
  });
});
