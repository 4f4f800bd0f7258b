// `tusk proxy` as a command in front of Tusk itself: the whole conformance suite run through it
// passes and the proxy reports no departure of the server's answers (the client departures it
// reports are the suite's deliberate bad requests); on SIGTERM it writes the JSON, JUnit and
// coverage reports and, with --fail-on-departure, exits 1 when it saw a departure and 0 when not.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { startTusk, type RunningTusk } from '../../src/server.js';

const BIN = join(PROJECT_ROOT, 'bin', 'tusk.js');
const dir = mkdtempSync(join(tmpdir(), 'tusk-proxy-'));
let tusk: RunningTusk;

beforeAll(async () => {
  // A rate limit the suite's rate-limit test reaches through the proxy even on a loaded machine
  // (the default 1000/1 needs 1,000 requests within one second through two processes).
  tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', provisionDelayMs: 0, rateLimit: '500/1' });
});
afterAll(async () => {
  await tusk.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Proxy {
  child: ChildProcess;
  customer: string;
  instance: string;
  output: () => string;
  exit: Promise<number | null>;
}

async function startProxy(extra: string[]): Promise<Proxy> {
  const child = spawn(process.execPath, [BIN, 'proxy', '--customer-target', tusk.customerUrl, '--instance-target', tusk.instanceUrl, '--customer-port', '0', '--instance-port', '0', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await expect.poll(() => out, { timeout: 15_000 }).toMatch(/tusk proxy: ready/);
  return {
    child,
    customer: /customer API\s+(http:\/\/\S+)/.exec(out)![1]!,
    instance: /instance API\s+(http:\/\/\S+)/.exec(out)![1]!,
    output: () => out,
    exit,
  };
}

function runSuite(customer: string, instance: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'test', '--customer-url', customer, '--instance-url', instance, '--api-key', tusk.registry.adminKey], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

describe('tusk proxy in front of Tusk', () => {
  it('the whole conformance suite passes through it, with no departure of the server\'s answers; the reports are written on exit', async () => {
    const files = { report: join(dir, 'departures.json'), junit: join(dir, 'proxy.xml'), coverage: join(dir, 'coverage.json') };
    const proxy = await startProxy(['--report', files.report, '--junit', files.junit, '--coverage', files.coverage, '--fail-on-departure']);
    const suite = await runSuite(proxy.customer, proxy.instance);
    expect(suite.code, suite.out.slice(-3000)).toBe(0);
    const listed = (await (await fetch(`${proxy.customer}/__tusk/departures`)).json()) as { count: number; departures: { side: string }[] };
    expect(listed.departures.filter((d) => d.side === 'response')).toEqual([]);
    // The suite sends bad requests on purpose: those are the client's departures.
    expect(listed.departures.length).toBeGreaterThan(0);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit).toBe(1);
    const report = JSON.parse(readFileSync(files.report, 'utf8')) as { count: number; exchanges: number };
    expect(report.count).toBe(listed.count);
    expect(report.exchanges).toBeGreaterThan(1000);
    const junit = readFileSync(files.junit, 'utf8');
    expect(junit).toMatch(/<testsuite name="tusk proxy customer" tests="\d+" failures="\d+">/);
    expect(junit).toMatch(/<testcase classname="instance" name="listAlarms">/);
    const coverage = JSON.parse(readFileSync(files.coverage, 'utf8')) as { interfaces: Record<string, { operations: number; operations_exercised: number }> };
    expect(coverage.interfaces.customer!.operations_exercised).toBe(coverage.interfaces.customer!.operations);
    expect(readFileSync(join(dir, 'coverage.html'), 'utf8')).toMatch(/<h1>API coverage/);
  }, 180_000);

  it('with --fail-on-departure, exits 0 when nothing departed', async () => {
    const proxy = await startProxy(['--fail-on-departure']);
    const res = await fetch(`${proxy.customer}/api/plans`, { headers: { authorization: `Basic ${Buffer.from(`:${tusk.registry.adminKey}`).toString('base64')}` } });
    expect(res.status).toBe(200);
    proxy.child.kill('SIGTERM');
    expect(await proxy.exit).toBe(0);
    expect(proxy.output()).toMatch(/1 exchanges, 0 departures/);
  });

  it('refuses a target that is not a URL with exit code 2 and a message', async () => {
    const child = spawn(process.execPath, [BIN, 'proxy', '--customer-target', 'nowhere', '--instance-target', tusk.instanceUrl], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    expect(await new Promise((r) => child.on('exit', r))).toBe(2);
    expect(err).toMatch(/--customer-target must be an http\(s\) URL/);
  });
});
