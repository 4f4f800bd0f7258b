// README cannot rot: its shell blocks marked `<!-- readme-test: ... -->` run against a live
// stand-in (every curl must answer 2xx), `tusk serve` lines start a real server with their flags,
// and every script, flag and CI step the README names exists. The two commands themselves
// (npm ci && npm start / npm test) are what .ci/run runs.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { TEST_ENV } from '../src/conformance/args.js';
import { readFlags } from '../src/cli/flags.js';
import { SERVE } from '../src/cli/tables/index.js';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
import { startTusk, type RunningTusk } from '../src/server.js';
import { freePort } from '../src/core/net.js';
import { exec, run, start } from './support/processes.js';
import { tempDir } from './support/temp.js';

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
const BIN = join(PROJECT_ROOT, 'bin', 'tusk.js');

/** The fenced blocks after a `<!-- readme-test: KIND -->` marker. */
function blocks(kind: string): string[] {
  const re = new RegExp(
    `<!-- readme-test: ${kind} -->\\n\`\`\`(?:sh|bash|yaml|dockerfile)\\n([\\s\\S]*?)\\n\`\`\``,
    'g',
  );
  return [...README.matchAll(re)].map((m) => m[1]!);
}

/** The fenced YAML blocks of the README. */
const yamlBlocks = () => [...README.matchAll(/```yaml\n([\s\S]*?)\n```/g)].map((m) => m[1]!);

let tusk: RunningTusk;
let receiverPort: number;
beforeAll(async () => {
  tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off' });
  receiverPort = await freePort();
});
afterAll(() => tusk?.close());

interface Container {
  image: string;
  args: string[];
  readinessProbe: { httpGet: { path: string; port: number } };
  livenessProbe: { httpGet: { path: string; port: number } };
}

/** The block with the README's addresses replaced by those of `server`. */
function localiseTo(script: string, server: RunningTusk): string {
  return script
    .replace(/(http:\/\/)?(127\.0\.0\.1|localhost):4010/g, server.customerUrl)
    .replace(/(http:\/\/)?(127\.0\.0\.1|localhost):4011/g, server.instanceUrl);
}

/** The block with the README's addresses replaced by the test server's. */
function localise(script: string): string {
  return script
    .replace(/(http:\/\/)?(127\.0\.0\.1|localhost):4010/g, tusk.customerUrl)
    .replace(/(http:\/\/)?(127\.0\.0\.1|localhost):4011/g, tusk.instanceUrl)
    .replace(/4099/g, String(receiverPort));
}

/**
 * Runs a block with bash -e. The script runs in a process group of its own that is ended when the
 * test finishes, whatever its outcome, so its background jobs (a receiver, tusk proxy) never
 * outlive the test, also when a step fails before the block's own `kill`; coreutils timeout ends a
 * script that hangs (`limitS`, generous: it is a guard, not a measure of speed).
 */
async function bash(script: string, limitS = 120): Promise<string> {
  const cwd = tempDir('tusk-readme-');
  const { code, stdout, stderr } = await run(
    'timeout',
    ['-k', '5', String(limitS), 'bash', '-e', '-o', 'pipefail', '-c', script],
    { cwd },
  );
  if (code !== 0)
    throw new Error(
      `the block exited with ${code}${code === 124 ? ` (still running after ${limitS} s)` : ''}:\n${stdout}\n${stderr}`,
    );
  return stdout;
}

/** One process spinning on each core until the test finishes (support/processes.ts stops it). */
function busyLoops(): void {
  for (let i = 0; i < availableParallelism(); i++) start(process.execPath, ['-e', 'for (;;) {}']);
}

describe('the README', () => {
  it('walkthrough: creates an instance, uses its key on the instance API and receives the restore callback', async () => {
    const [walkthrough] = blocks('walkthrough');
    expect(walkthrough).toBeDefined();
    const out = await bash(localise(walkthrough!));
    expect(out).toMatch(/hippo postgresql shared=false/);
    expect(out).toMatch(/"apikey":"[^"]+"/);
    expect(out.match(/"type":"(cpu|memory|disk|notice)"/g)).toHaveLength(4);
    expect(out).toMatch(/^204$/m);
    expect(out).toMatch(/\{"action":"restore","backup_id":\d+,"account_id":"[0-9a-f-]{36}"\}/);
    expect(out).toMatch(/"event":"restore".*"status":"delivered"/);
  });

  it('every curl of the control, alarm and fault examples answers 2xx, and tusk serve starts with the documented flags', async () => {
    const scripts = blocks('run');
    expect(scripts.length).toBeGreaterThanOrEqual(3);
    for (const script of scripts) {
      const lines = script.split('\n');
      for (const serve of lines.filter((l) => l.startsWith('tusk serve'))) {
        const flags = [...serve.matchAll(/--(\S+) '([^']*)'|--(\S+)/g)].flatMap((m) =>
          m[1] ? [`--${m[1]}`, m[2]!] : [`--${m[3]}`],
        );
        // Stopped here, or when the test finishes if it fails first (support/processes.ts).
        const p = start(process.execPath, [
          BIN,
          'serve',
          ...flags,
          '--customer-port',
          '0',
          '--instance-port',
          '0',
          '--quiet',
          '--databases',
          'off',
        ]);
        await p.until(/tusk: ready/);
        await p.stop();
      }
      const curls = lines
        .filter((l) => !l.startsWith('tusk serve'))
        .join('\n')
        .replace(/\bcurl /g, 'curl -sSf -o /dev/null ');
      await bash(localise(curls));
    }
  });

  it('parallel CI jobs: a job creates its account, passes the suite with its keys, and moves, reads and resets only its own', async () => {
    const [block] = blocks('jobs');
    expect(block).toBeDefined();
    // A server of its own: the other blocks move the shared one's clock.
    const own = await startTusk({ customerPort: 0, instancePort: 0, log: 'off' });
    let out: string[];
    try {
      const script = block!
        .replace(/(http:\/\/)?(127\.0\.0\.1|localhost):4010/g, own.customerUrl)
        .replace(/(http:\/\/)?(127\.0\.0\.1|localhost):4011/g, own.instanceUrl);
      // The whole suite against a live server, file after file: about 60 s on a loaded 2-core machine,
      // minutes on a busier one (the limit is a hang guard, not a measure of speed).
      // A failing suite shows its summary (README's block only says nothing then).
      const shown = script.replace(
        '> suite.log && echo "suite passed"',
        '> suite.log && echo "suite passed" || { sed -n "/^Conformance summary/,\\$p" suite.log >&2; exit 1; }',
      );
      out = (await bash(shown.replace(/\bnpx tusk /g, `${process.execPath} ${BIN} `), 600)).trim().split('\n');
    } finally {
      await own.close();
    }
    expect(out[0]).toBe('suite passed');
    const [moved, server, outbox, reset] = out.slice(1).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(moved).toMatchObject({ follows_server: false });
    expect(Date.parse(String(moved!.now)) - Date.now()).toBeGreaterThan(86_400_000 - 60_000);
    expect(server).toMatchObject({ offset_ms: 0 });
    expect((outbox!.entries as { account: string }[]).every((e) => e.account === moved!.account)).toBe(true);
    expect(reset!.accounts).toEqual([{ account_id: moved!.account, name: 'ci job 7' }]);
  }, 660_000);

  it("proxy: forwards, reports the client's departure, writes the reports and exits 1", async () => {
    const [block] = blocks('proxy');
    expect(block).toBeDefined();
    const [c, i] = [await freePort(), await freePort()];
    const script = localise(block!)
      .replace(/\btusk proxy /g, `${process.execPath} ${BIN} proxy `)
      .replace(/4020/g, String(c))
      .replace(/4021/g, String(i))
      .replace(/tusk-admin-key/g, tusk.registry.adminKey);
    const out = (await bash(script)).trim().split('\n');
    expect(out[0]).toBe('400');
    const listed = JSON.parse(out[1]!) as {
      count: number;
      departures: { operation_id: string; side: string; field: string; rule: string }[];
    };
    // Both fields the request lacks, each a departure.
    expect(listed.departures).toEqual(
      ['plan', 'region'].map((field) =>
        expect.objectContaining({ operation_id: 'createInstance', side: 'request', field, rule: 'required' }),
      ),
    );
    expect(out.at(-1)).toBe('exit 1');
  }, 60_000);

  it('coverage: the JSON report and the table of tusk coverage', async () => {
    const [block] = blocks('coverage');
    expect(block).toBeDefined();
    const script = localise(block!)
      .replace(/\bnpx tusk /g, `${process.execPath} ${BIN} `)
      .replace(/tusk-admin-key/g, tusk.registry.adminKey);
    const out = await bash(script);
    expect(out).toMatch(/^customer interface: \d+ of \d+ operations/m);
    expect(out).toMatch(/^ {2}listPlans +200 ok \(\d+\)/m);
  }, 60_000);

  it('databases: an instance is a real database; a backup and a restore bring a table back, on a busy machine too', async () => {
    const [block] = blocks('databases');
    expect(block).toBeDefined();
    // Besides the rest of the suite running beside it (npm test), one busy loop per core: the
    // block must not race its server (a backup is listed only once its snapshot is made), as it
    // must not on a user's loaded laptop.
    busyLoops();
    const withDatabases = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', databases: 'embedded' });
    // And a snapshot that takes 3 s more, as the copy of a larger database on a busy disk would:
    // a block that took the list's first backup right after moving the clock would take a seeded
    // one then, and wait forever for its table.
    const admin = withDatabases.deps.databases!.admin;
    const snapshot = admin.snapshot.bind(admin);
    admin.snapshot = async (database, copy) => {
      await new Promise((r) => setTimeout(r, 3_000));
      return snapshot(database, copy);
    };
    try {
      const script = block!
        .replace(/(http:\/\/)?(127\.0\.0\.1|localhost):4010/g, withDatabases.customerUrl)
        .replace(/(http:\/\/)?(127\.0\.0\.1|localhost):4011/g, withDatabases.instanceUrl);
      const out = await bash(script, 240);
      expect(out.trim().split('\n')).toEqual(['204', '204', 'kept']);
    } finally {
      await withDatabases.close();
    }
  }, 300_000);

  it('environment: tusk serve and tusk test configured by variables alone', async () => {
    const [block] = blocks('environment');
    expect(block).toBeDefined();
    const [c, i] = [await freePort(), await freePort()];
    const script = block!
      .replace(/4010/g, String(c))
      .replace(/4011/g, String(i))
      .replace(/\btusk (serve|test)\b/g, `${process.execPath} ${BIN} $1`);
    expect((await bash(script)).trim()).toBe('suite passed');
  }, 120_000);

  it('health checks: the shell wait, the Kubernetes probes and the Docker HEALTHCHECK judge by the status code', async () => {
    const [wait] = blocks('wait');
    const [kubernetes] = blocks('kubernetes');
    const [docker] = blocks('docker');
    expect([wait, kubernetes, docker]).not.toContain(undefined);
    const [container] = (parse(kubernetes!) as { containers: Container[] }).containers;
    // The container runs what the image runs: serve, with flags it takes.
    expect(container!.image).toBe('localhost/tusk-mock:0.1.0');
    expect(container!.args[0]).toBe('serve');
    readFlags(SERVE, container!.args.slice(1), {});
    const cmd = /CMD (.*)$/s.exec(docker!.replace(/\\\n\s*/g, ''))![1]!;
    const healthcheck = () => run('sh', ['-c', cmd.replace(/127\.0\.0\.1:4010/g, new URL(starting.customerUrl).host)]);
    const probe = async (p: { httpGet: { path: string; port: number } }) => {
      expect(p.httpGet.port).toBe(4010); // the customer port
      return (await fetch(`${starting.customerUrl}${p.httpGet.path}`)).status;
    };
    // A Tusk whose databases are still starting: not ready, alive.
    const starting = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', databases: 'embedded' });
    try {
      expect(await probe(container!.readinessProbe)).toBe(503);
      expect(await probe(container!.livenessProbe)).toBe(200);
      expect((await healthcheck()).code).toBe(1);
      // The shell wait returns once they are ready.
      await bash(localiseTo(wait!, starting));
      expect(await probe(container!.readinessProbe)).toBe(200);
      expect((await healthcheck()).code).toBe(0);
    } finally {
      await starting.close();
    }
  }, 120_000);

  it('the GitHub Action example: inputs action.yml has, and the prose names every input', () => {
    const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as {
      inputs: Record<string, unknown>;
    };
    const example = yamlBlocks().find((b) => b.includes('OWNER/REPOSITORY@REF'));
    const { steps } = parse(example!) as { steps: { uses?: string; with?: Record<string, string> }[] };
    const step = steps.find((s) => s.uses?.startsWith('OWNER'));
    for (const input of Object.keys(step!.with!)) expect(Object.keys(action.inputs)).toContain(input);
    const prose = /the inputs are `action.yml`'s: ([^)]*)\)/.exec(README)![1]!;
    expect([...prose.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]).sort()).toEqual(Object.keys(action.inputs).sort());
  });

  it('names only npm scripts that exist', () => {
    const named = [...README.matchAll(/npm run (?:-s )?([a-z:]+)/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(5);
    for (const script of new Set(named)) expect(pkg.scripts, `npm run ${script}`).toHaveProperty(script);
    for (const slash of README.matchAll(/`npm run lint` \/ ((?:`[a-z:]+`(?: \/ )?)+)/g)) {
      for (const m of slash[1]!.matchAll(/`([a-z:]+)`/g)) expect(pkg.scripts).toHaveProperty(m[1]!);
    }
  });

  it('names only flags that tusk serve and tusk test have', async () => {
    const serveHelp = (await exec(process.execPath, [BIN, 'serve', '--help'])).stdout;
    const testHelp = (await exec(process.execPath, [BIN, 'test', '--help'])).stdout;
    for (const m of README.matchAll(/tusk serve[^\n`]*/g))
      for (const f of m[0].matchAll(/--[a-z-]+/g)) expect(serveHelp, f[0]).toContain(f[0]);
    for (const m of README.matchAll(/tusk test[^\n]*/g))
      for (const f of m[0].matchAll(/--[a-z-]+/g)) expect(testHelp, f[0]).toContain(f[0]);
    for (const flag of README.slice(README.indexOf('`tusk serve --help` lists'))
      .split('\n\n')[0]!
      .matchAll(/`(--[a-z-]+)/g))
      expect(serveHelp).toContain(flag[1]);
  });

  it('shows a GitHub Actions job whose steps use commands this project has', () => {
    const yaml = yamlBlocks().find((b) => b.startsWith('jobs:'));
    const job = parse(yaml!) as { jobs: { contract: { steps: { run?: string; env?: Record<string, string> }[] } } };
    const runs = job.jobs.contract.steps.flatMap((s) => (s.run ? [s.run] : []));
    // The suite's step takes its target, key and rate limit from variables tusk test reads.
    const variables = job.jobs.contract.steps.flatMap((s) => Object.keys(s.env ?? {}));
    expect(variables).toEqual(expect.arrayContaining(['TUSK_CUSTOMER_URL', 'TUSK_API_KEY', 'TUSK_RATE_LIMIT']));
    for (const name of variables) expect(Object.values(TEST_ENV) as string[]).toContain(name);
    expect(runs).toContain('npm ci');
    expect(runs.some((r) => r.startsWith('npm start'))).toBe(true);
    expect(runs.some((r) => /(tusk test|npm run contract --) .*--junit/.test(r))).toBe(true);
  });

  it('shows the two commands, and .ci/run runs exactly them', () => {
    expect(README).toContain('npm ci && npm start');
    expect(README).toContain('npm ci && npm test');
    const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test$/m);
    expect(ci).toMatch(/npm start -- /);
  });
});
