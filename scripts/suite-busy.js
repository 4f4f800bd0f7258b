#!/usr/bin/env node
// `npm run suite:busy` (issue 32, point 3): the proof that the conformance suite never reports a
// departure because a machine is slow. `npm start` (tusk serve with its embedded Postgres) runs,
// `tusk proxy` sits in front of it, and another process keeps every core busy (one busy loop per
// core, at normal priority); then the whole suite (`tusk test` with the role keys,
// --allow-destructive, --check-databases and --rate-limit 1000/1, as .ci/run runs it) goes through
// the proxy, run after run. A run passes when the suite exits 0 and the proxy saw no departure of
// the server's answers. Between runs the server is reset (POST /__tusk/reset: the destructive tests
// rotate the admin key) and a fresh proxy started. Prints one line per run and the figures (time,
// tests, inconclusive checks with the 429 rate reached, the load), writes reports/suite-busy.json;
// exits 1 unless every run passed. Not part of npm test: ten runs take the better part of an hour.
//
//   node scripts/suite-busy.js [--runs 10] [--burners N (default: one per core; 0 for none)]
//                              [--answers production (npm start's success codes)] [--out reports/suite-busy.json]
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, TUSK_BIN } from './load-driver.js';

const { values: flags } = parseArgs({
  options: {
    runs: { type: 'string', default: '10' },
    burners: { type: 'string', default: String(availableParallelism()) },
    answers: { type: 'string', default: 'default' },
    out: { type: 'string', default: join(ROOT, 'reports', 'suite-busy.json') },
  },
});
const RUNS = Number(flags.runs);
const ADMIN = 'tusk-admin-key';
const ROLE_KEYS =
  'devops=tusk-devops-key,member=tusk-member-key,monitor=tusk-monitor-key,billing manager=tusk-billing-key';

/** Every process this script starts, each in a group of its own: stopped on every way out. */
const started = new Set();
/**
 * SIGKILL to the group a child leads, and to what is left of it once the child has exited, unless
 * its pid names another process by then (pids wrap around: that process's group is not ours).
 */
function killGroup(child) {
  const exited = child.exitCode !== null || child.signalCode !== null;
  if (exited && pidInUse(child.pid)) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* the group is empty */
  }
}
function pidInUse(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
function start(command, args, name) {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exit = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const p = {
    name,
    child,
    exit,
    output: () => out,
    async until(pattern, ms = 180_000) {
      const end = Date.now() + ms;
      while (!pattern.test(out)) {
        if (child.exitCode !== null || Date.now() > end) throw new Error(`${name} did not print ${pattern}:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return out;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await Promise.race([exit, new Promise((r) => setTimeout(r, 15_000))]);
      }
      killGroup(child);
      started.delete(p);
    },
  };
  started.add(p);
  return p;
}
const stopAll = () => Promise.all([...started].map((p) => p.stop()));
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void stopAll().then(() => process.exit(130)));
process.once('exit', () => {
  for (const p of started) killGroup(p.child);
});

const urls = (out) => ({
  customer: /customer API\s+(http:\/\/\S+)/.exec(out)[1],
  instance: /instance API\s+(http:\/\/\S+)/.exec(out)[1],
});

/** The figures of one suite run from its summary. */
function figures(out) {
  const total = /^ {2}total +(\d+) files: (\d+) passed, (\d+) failed, (\d+) skipped/m.exec(out);
  const rates = [...out.matchAll(/at most (\d+) were answered within ([\d.]+) s \((\d+) per second\)/g)].map((m) =>
    Number(m[3]),
  );
  return {
    files: Number(total?.[1] ?? 0),
    passed: Number(total?.[2] ?? 0),
    failed: Number(total?.[3] ?? 0),
    skipped: Number(total?.[4] ?? 0),
    inconclusive: Number(/Inconclusive checks \((\d+)/.exec(out)?.[1] ?? 0),
    rate_limit_reached_per_s: rates,
    departures: Number(/Departures from the contract \((\d+)\)/.exec(out)?.[1] ?? 0),
  };
}

async function main() {
  const began = Date.now();
  console.log(
    `suite:busy: ${RUNS} runs of the whole suite through tusk proxy against npm start (--answers ${flags.answers}), ${flags.burners} busy loops on ${cpus().length} cores`,
  );
  const server = start(
    'npm',
    [
      'start',
      '--',
      '--customer-port',
      '0',
      '--instance-port',
      '0',
      '--quiet',
      '--api-key',
      ADMIN,
      '--answers',
      flags.answers,
    ],
    'npm start',
  );
  const target = urls(await server.until(/tusk: ready/));
  const burners = Array.from({ length: Number(flags.burners) }, (_, i) =>
    start(process.execPath, ['-e', 'for (;;) {}'], `busy loop ${i + 1}`),
  );
  const runs = [];
  try {
    for (let n = 1; n <= RUNS; n++) {
      const reset = await fetch(`${target.customer}/__tusk/reset`, { method: 'POST' });
      if (reset.status !== 200) throw new Error(`POST /__tusk/reset answered ${reset.status}`);
      const proxy = start(
        process.execPath,
        [
          TUSK_BIN,
          'proxy',
          '--customer-target',
          target.customer,
          '--instance-target',
          target.instance,
          '--customer-port',
          '0',
          '--instance-port',
          '0',
        ],
        'tusk proxy',
      );
      const via = urls(await proxy.until(/tusk proxy: ready/));
      const t0 = Date.now();
      const suite = start(
        process.execPath,
        [
          TUSK_BIN,
          'test',
          '--customer-url',
          via.customer,
          '--instance-url',
          via.instance,
          '--api-key',
          ADMIN,
          '--role-keys',
          ROLE_KEYS,
          '--allow-destructive',
          '--check-databases',
          '--rate-limit',
          '1000/1',
        ],
        'tusk test',
      );
      const code = await suite.exit;
      const seconds = Math.round((Date.now() - t0) / 1000);
      const listed = await (await fetch(`${via.customer}/__tusk/departures`)).json();
      await proxy.stop();
      const gateway = proxy
        .output()
        .split('\n')
        .filter((l) => /^tusk proxy: 50[24] /.test(l));
      const responseDepartures = listed.departures.filter((d) => d.side === 'response');
      const run = {
        run: n,
        exit_code: code,
        seconds,
        load_1m: Math.round(loadavg()[0] * 10) / 10,
        ...figures(suite.output()),
        response_departures: responseDepartures.length,
        passed_run: code === 0 && responseDepartures.length === 0,
      };
      runs.push(run);
      console.log(
        `run ${n}: ${run.passed_run ? 'PASS' : 'FAIL'}  exit ${code}, ${seconds} s, ${run.passed} passed, ${run.failed} failed, ${run.skipped} skipped (${run.inconclusive} inconclusive${run.rate_limit_reached_per_s.length ? `; 429 check reached ${run.rate_limit_reached_per_s.join(' and ')} requests/s` : ''}), departures ${run.departures}, server departures seen by the proxy ${run.response_departures}, load ${run.load_1m}`,
      );
      if (!run.passed_run) {
        console.log(suite.output().slice(suite.output().indexOf('Conformance summary')));
        for (const d of responseDepartures.slice(0, 10))
          console.log(
            `  proxy: ${d.operation_id} ${d.method} ${d.path} ${d.status}: ${d.field ?? '-'} ${d.rule}: ${d.message}`,
          );
        for (const line of gateway.slice(0, 10)) console.log(`  ${line}`);
      }
    }
  } finally {
    await Promise.all(burners.map((b) => b.stop()));
    await server.stop();
  }
  const passed = runs.filter((r) => r.passed_run).length;
  const report = {
    runs: RUNS,
    passed,
    burners: Number(flags.burners),
    answers: flags.answers,
    cores: cpus().length,
    minutes: Math.round((Date.now() - began) / 6000) / 10,
    seconds_per_run: { min: Math.min(...runs.map((r) => r.seconds)), max: Math.max(...runs.map((r) => r.seconds)) },
    inconclusive_runs: runs.filter((r) => r.inconclusive > 0).length,
    per_run: runs,
  };
  mkdirSync(dirname(flags.out), { recursive: true });
  writeFileSync(flags.out, JSON.stringify(report, null, 2) + '\n');
  console.log(
    `suite:busy: ${passed} of ${RUNS} runs passed in ${report.minutes} min (a run ${report.seconds_per_run.min}-${report.seconds_per_run.max} s; ${report.inconclusive_runs} runs with inconclusive checks); ${flags.out}`,
  );
  return passed === RUNS ? 0 : 1;
}

main().then(
  async (code) => {
    await stopAll();
    process.exit(code);
  },
  async (err) => {
    console.error(`suite:busy: ${err.stack ?? err}`);
    await stopAll();
    process.exit(1);
  },
);
