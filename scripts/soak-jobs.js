#!/usr/bin/env node
// `npm run soak:jobs` (issue 18): many CI jobs sharing one `tusk serve` without seeing each other.
// Each job creates its own account (POST /__tusk/accounts), runs a scenario with the controls
// scoped to it (moves its clock a day, creates an instance, sets its metrics, injects a fault for
// itself and takes it away, resets its account), runs the whole conformance suite (`tusk test`)
// with its account's keys, and checks what it can see: its clock, its outbox, its journal and its
// instances are its own. The jobs start a moment apart, so that one job's scenario runs while the
// others' suites run. Afterwards: the server's clock never moved, no answer was a 5xx (read from
// the server's request log). Prints the figures, writes reports/soak-jobs.json; exits 1 when a job
// failed or saw another's data.
//
//   node scripts/soak-jobs.js [--jobs 20] [--stagger-ms 500] [--rate-limit 150/1] [--out reports/soak-jobs.json]
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, startServer } from './load-driver.js';

const { values: flags } = parseArgs({
  options: {
    jobs: { type: 'string', default: '20' },
    'stagger-ms': { type: 'string', default: '500' },
    // Low enough that the suite's rate-limit test reaches it while 20 jobs share the CPU (the
    // default 1000/1 is more than one key's share of a loaded server), high enough for its traffic.
    'rate-limit': { type: 'string', default: '150/1' },
    out: { type: 'string', default: join(ROOT, 'reports', 'soak-jobs.json') },
  },
});
const JOBS = Number(flags.jobs);
const STAGGER = Number(flags['stagger-ms']);
const DAY = 86_400_000;

const started = Date.now();
const server = await startServer(['--log', 'json', '--provision-delay', '0', '--rate-limit', flags['rate-limit']], {
  quiet: false,
});
const { customerUrl, instanceUrl } = server;

const basic = (key) => 'Basic ' + Buffer.from(`:${key}`).toString('base64');
async function call(base, path, { method = 'GET', key, body } = {}) {
  const headers = {};
  if (key) headers.authorization = basic(key);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  let parsed;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, body: parsed, headers: res.headers };
}
const control = (path, init) => call(customerUrl, `/__tusk${path}`, init);

/** Runs `tusk test` against the server with one account's keys; resolves with its exit code and summary line. */
function runSuite(job, keys) {
  return new Promise((resolve) => {
    const roleKeys = Object.entries(keys)
      .filter(([role]) => role !== 'admin')
      .map(([role, k]) => `${role}=${k}`)
      .join(',');
    const child = spawn(
      process.execPath,
      [
        join(ROOT, 'bin', 'tusk.js'),
        'test',
        '--customer-url',
        customerUrl,
        '--instance-url',
        instanceUrl,
        '--api-key',
        keys.admin,
        '--role-keys',
        roleKeys,
      ],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      if (code !== 0) {
        mkdirSync(join(dirname(flags.out), 'soak-jobs'), { recursive: true });
        writeFileSync(join(dirname(flags.out), 'soak-jobs', `job-${job}.log`), out);
      }
      const total = /total\s+\d+ files: (\d+) passed, (\d+) failed, (\d+) skipped/.exec(out);
      resolve({
        code,
        passed: Number(total?.[1] ?? 0),
        failed: Number(total?.[2] ?? 0),
        skipped: Number(total?.[3] ?? 0),
        tail: code === 0 ? '' : out.slice(out.indexOf('Conformance summary')).split('\n').slice(0, 30).join('\n'),
      });
    });
  });
}

async function job(i) {
  await new Promise((r) => setTimeout(r, i * STAGGER));
  const problems = [];
  const expect = (ok, what) => {
    if (!ok) problems.push(what);
  };
  const t0 = Date.now();
  const created = await control('/accounts', { method: 'POST', body: { name: `soak job ${i}` } });
  expect(created.status === 201, `create account: ${created.status}`);
  const { account_id: account, admin_key: admin, keys } = created.body;

  // The scenario, with the controls scoped to this account by its admin key.
  const before = (await control('/clock', { key: admin })).body;
  const moved = await control('/clock', { method: 'POST', key: admin, body: { advance: '1d' } });
  expect(
    moved.status === 200 && Date.parse(moved.body.now) - Date.parse(before.now) >= DAY,
    `advance its clock: ${moved.status}`,
  );
  const inst = await call(customerUrl, '/api/instances', {
    method: 'POST',
    key: admin,
    body: { name: `job-${i}-db`, plan: 'hippo', region: 'amazon-web-services::us-east-1' },
  });
  expect(inst.status === 200, `create instance: ${inst.status}`);
  const metrics = await control(`/instances/${inst.body?.id}/metrics`, {
    method: 'PUT',
    key: admin,
    body: { cpu: 95 },
  });
  expect(metrics.status === 200 && metrics.body.instance.account === account, `set metrics: ${metrics.status}`);
  const fault = await control('/faults', {
    method: 'PUT',
    key: admin,
    body: { rules: ['customer/listRegions:error=429'] },
  });
  expect(fault.status === 200, `inject a fault: ${fault.status}`);
  const faulted = await call(customerUrl, '/api/regions', { key: admin });
  expect(faulted.status === 429 && faulted.headers.get('tusk-fault') === 'error', `its own fault: ${faulted.status}`);
  expect((await control('/faults', { method: 'DELETE', key: admin })).status === 204, 'clear its fault');
  const outbox = (await control('/outbox', { key: admin })).body.entries;
  expect(
    outbox.every((e) => e.account === account),
    'its outbox holds only its entries',
  );
  const reset = await control('/reset', { method: 'POST', key: admin });
  expect(
    reset.status === 200 && reset.body.accounts.length === 1 && reset.body.accounts[0].account_id === account,
    `reset its account: ${reset.status}`,
  );
  expect(
    (await call(customerUrl, '/api/instances', { key: admin })).body.length === 0,
    'its account is empty after the reset',
  );

  // The whole conformance suite with this account's keys, while the other jobs run theirs.
  const suite = await runSuite(i, keys);
  expect(suite.code === 0, `conformance suite: exit ${suite.code}\n${suite.tail}`);

  // What it sees afterwards is its own.
  const clock = (await control('/clock', { key: admin })).body;
  expect(
    Date.parse(clock.now) - Date.now() >= DAY - 60_000 && clock.follows_server === false,
    'its clock is still a day ahead',
  );
  const journal = (await control('/requests?limit=1000', { key: admin })).body.entries;
  expect(
    journal.every((e) => e.account === account),
    'its journal holds only its requests',
  );
  const names = (await call(customerUrl, '/api/instances', { key: admin })).body.map((x) => x.name);
  expect(
    !names.some((n) => /^job-\d+-db$/.test(n)),
    `its instances are its own: ${names.filter((n) => /^job-/.test(n)).join(', ')}`,
  );
  return {
    job: i,
    account,
    ms: Date.now() - t0,
    suite: { passed: suite.passed, failed: suite.failed, skipped: suite.skipped },
    problems,
  };
}

let results;
let serverClock;
try {
  results = await Promise.all(Array.from({ length: JOBS }, (_, i) => job(i)));
  serverClock = (await control('/clock')).body;
} finally {
  server.child.kill('SIGTERM');
}
const log = server
  .output()
  .split('\n')
  .filter((l) => l.startsWith('{'))
  .map((l) => JSON.parse(l));
const fiveXX = log.filter((l) => l.status >= 500);
const failed = results.filter((r) => r.problems.length);
const serverMoved = serverClock.offset_ms !== 0 || serverClock.pinned;
const report = {
  jobs: JOBS,
  seconds: Math.round((Date.now() - started) / 100) / 10,
  requests: log.length,
  five_xx: fiveXX.length,
  jobs_failed: failed.length,
  tests_passed: results.reduce((n, r) => n + r.suite.passed, 0),
  tests_failed: results.reduce((n, r) => n + r.suite.failed, 0),
  per_job: results,
  server_clock_moved: serverMoved,
};
mkdirSync(dirname(flags.out), { recursive: true });
writeFileSync(flags.out, JSON.stringify(report, null, 2));
console.log(
  `soak:jobs: ${JOBS} jobs on one tusk serve in ${report.seconds} s: ${JOBS - failed.length} passed, ${failed.length} failed; ${report.tests_passed} suite tests passed, ${report.tests_failed} failed; ${report.requests} requests, 5xx: ${report.five_xx}`,
);
for (const r of failed) console.log(`job ${r.job} (${r.account}):\n  ${r.problems.join('\n  ')}`);
for (const l of fiveXX.slice(0, 10)) console.log(`5xx: ${l.method} ${l.path} ${l.status}`);
console.log(`report: ${flags.out}`);
if (serverMoved) console.log(`the server's clock moved: ${JSON.stringify(serverClock)}`);
process.exit(failed.length || fiveXX.length || serverMoved ? 1 : 0);
