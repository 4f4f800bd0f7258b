// `tusk serve` as a user runs it: a separate process that prints its URLs and key when ready,
// answers on both ports, and shuts down cleanly on SIGTERM. Needs `npm run build` (npm test runs it).
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
import { serveUntilReady } from './support/serve.js';

const BIN = join(PROJECT_ROOT, 'bin', 'tusk.js');

function run(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('exit', (code) => resolve({ code, out }));
  });
}

describe('the tusk command', () => {
  it('tusk serve prints both URLs and the admin key when ready, serves, and exits 0 on SIGTERM', async () => {
    const served = await serveUntilReady(['--api-key', 'cli-test-admin-key', '--quiet']);
    const p = served.process;
    const out = served.out();
    const customer = /customer API\s+(http:\/\/\S+)/.exec(out)?.[1];
    const instance = /instance API\s+(http:\/\/\S+)/.exec(out)?.[1];
    expect(customer).toBeDefined();
    expect(instance).toBeDefined();
    expect(out).toContain('cli-test-admin-key');
    expect(out).toContain(`customer docs  ${customer}/docs`);
    expect(out).toContain(`instance docs  ${instance}/docs`);
    expect((await fetch(`${customer}/docs`)).status).toBe(200);
    const res = await fetch(`${customer}/api/plans`, { headers: { authorization: 'Basic ' + Buffer.from(':cli-test-admin-key').toString('base64') } });
    expect(res.status).toBe(200);
    expect((await fetch(`${instance}/api/alarms`)).status).toBe(401);
    // The default engine: an embedded Postgres server, named with its address, that goes away with the process.
    expect(out).toMatch(/tusk: databases +embedded Postgres, starting in the background on 127\.0\.0\.1:\d+/);
    const exit = new Promise<number | null>((resolve) => p.on('exit', resolve));
    p.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(readdirSync(tmpdir()).filter((n) => n.startsWith(`tusk-pg-${p.pid}-`))).toEqual([]);
  });

  it('tusk serve --help lists every flag with its default', async () => {
    const { code, out } = await run(['serve', '--help']);
    expect(code).toBe(0);
    for (const flag of ['--host', '--customer-port', '--instance-port', '--api-key', '--seed', '--provision-delay', '--rate-limit', '--log', '--quiet', '--help']) {
      expect(out).toMatch(new RegExp(`^  (-\\w, )?${flag}\\b.*\\(default [^)]+\\)$`, 'm'));
    }
    expect(out).toMatch(/default 4010/);
    expect(out).toMatch(/default 4011/);
    expect(out).toMatch(/default tusk-admin-key/);
    expect(out).toContain('/docs');
  });

  it('tusk --help lists the commands, and tusk docs --help its flags with their defaults', async () => {
    const help = await run(['--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^  serve /m);
    expect(help.out).toMatch(/^  docs /m);
    expect(help.out).toMatch(/--help .*\(default off\)/);
    const docs = await run(['docs', '--help']);
    expect(docs.code).toBe(0);
    expect(docs.out).toMatch(/^  --out DIR .*\(default dist\/docs\)$/m);
  });

  it('refuses a malformed flag value with exit code 2 and a message', async () => {
    const { code, out } = await run(['serve', '--rate-limit', 'lots']);
    expect(code).toBe(2);
    expect(out).toMatch(/--rate-limit must look like N\/S/);
  });
});
