// The scale part (`--only scale`): Tusk's memory with --scale-instances instances, and the cost of
// GET /api/alarms at that size against 10 instances, two processes measured in turn, into
// results.scale.
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from '../load.js';
import { measure, round1 } from '../lib/measure.js';
import { log, opts, quick } from '../lib/options.js';
import { rssMb, settle } from '../lib/processes.js';
import { ADMIN_KEY, basic, SEEDED_INSTANCE_KEY, startTusk } from '../lib/starters.js';
import { api, growTo } from '../lib/tusk-setup.js';

const round3 = (x) => Math.round(x * 1000) / 1000;
/** One scale measurement's figures as the results file keeps them. */
const scaleRound = (f) => ({
  rps: Math.round(f.rps),
  p99: round1(f.p99),
  cpuUsPerRequest: f.cpuUs === undefined ? null : round1(f.cpuUs),
});

/**
 * GET /api/alarms on the same probe instance in two Tusk processes, one holding 10 instances and
 * one grown to opts.scaleInstances through the API, measured in turn like Tusk and Prism in the
 * operations table: a slower minute of the shared machine falls on both sizes. (One size after the
 * other, one slow minute decided the figure: 0.92x to 1.14x with the same code. Deleting the bulk to
 * alternate in one process left it slower for minutes.)
 */
export async function scale(results) {
  const [small, large] = [await startTusk(), await startTusk()];
  try {
    // The same probe in both: the 10th instance of the admin account, made the same way.
    const probeOf = async (t) => (await growTo(t, 10, 'small')).at(-1)?.apikey ?? SEEDED_INSTANCE_KEY;
    const probes = [await probeOf(small), await probeOf(large)];
    // The small one makes as many instances, in an account of its own that it then resets: both
    // processes have run the same code as often (V8 compiles what ran), and only what they hold
    // differs. (Without this the small one, which had run less, took 6-29 % more CPU per request.)
    const twin = (await api(small.customer, 'POST', '/__tusk/accounts', undefined, { name: 'bench scale twin' })).json()
      .admin_key;
    await growTo(small, opts.scaleInstances - 10, 'scale', twin);
    await api(small.customer, 'POST', '/__tusk/reset', twin);
    await settle(small.proc.pid);
    const t0 = performance.now();
    const bulk = await growTo(large, opts.scaleInstances, 'scale');
    const createMs = performance.now() - t0;
    const instances = (await api(large.customer, 'GET', '/api/instances', ADMIN_KEY)).json().length;
    // What each instance holds: default alarms, recipient, backups, maintenance.
    const held = {};
    for (const [k, path] of [
      ['alarms', '/api/alarms'],
      ['recipients', '/api/alarms/recipients'],
      ['backups', '/api/backup'],
      ['maintenance', '/api/maintenance'],
    ]) {
      held[k] = (await api(large.instance, 'GET', path, bulk.at(-1).apikey)).json().length;
    }
    await sleep(2000);
    const first = { instances, createMs, held, rss: rssMb(large.proc.pid) };
    log(
      `  ${instances} instances created through the API in ${(createMs / 1000).toFixed(1)} s; each holds ${JSON.stringify(held)}; RSS ${first.rss.toFixed(0)} MB`,
    );
    await settle(large.proc.pid);
    const sides = [
      { label: '10', t: small, key: probes[0], runs: [] },
      { label: String(opts.scaleInstances), t: large, key: probes[1], runs: [] },
    ];
    // Each size's first measurement warms up for 10 s (a fresh process's JIT; the collection of
    // the growth); then the sizes take turns, each round starting with the other one. At least 5
    // rounds each (one figure moved by 20 % between full runs with 3).
    const take = async (side, warm) => {
      const w = { url: `${side.t.instance}/api/alarms`, method: 'GET', headers: { authorization: basic(side.key) } };
      const f = await measure(w, side.t.proc.pid, warm ? Math.max(opts.warmup, 10) : opts.warmup);
      side.runs.push(f);
      log(
        `  GET /api/alarms at ${side.label.padStart(5)} instances  ${f.rps.toFixed(0).padStart(7)} req/s  p99 ${f.p99.toFixed(2)} ms  ${f.cpuUs === undefined ? '' : `${f.cpuUs.toFixed(1)} µs CPU/request`}`,
      );
    };
    const rounds = quick ? opts.rounds : Math.max(opts.rounds, 5);
    for (let r = 0; r < rounds; r++) for (const side of r % 2 ? [...sides].reverse() : sides) await take(side, r === 0);
    const [at10, atBig] = [sides[0].runs, sides[1].runs];
    const rps10 = median(at10.map((f) => f.rps));
    const rpsBig = median(atBig.map((f) => f.rps));
    const cpu10 = at10.every((f) => f.cpuUs !== undefined) ? median(at10.map((f) => f.cpuUs)) : undefined;
    const cpuBig = atBig.every((f) => f.cpuUs !== undefined) ? median(atBig.map((f) => f.cpuUs)) : undefined;
    const byCpu = cpu10 !== undefined && cpuBig !== undefined;
    // The per-request cost at scale over that at 10 instances, per round: server CPU per request
    // where the platform gives it (requests/s, the fallback, moves with the machine's other load).
    const ratios = at10.map((f, r) => (byCpu ? atBig[r].cpuUs / f.cpuUs : f.rps / atBig[r].rps));
    results.scale = {
      instances: first.instances,
      createSeconds: round1(first.createMs / 1000),
      perInstance: first.held,
      rssMb: Math.round(first.rss),
      peakRssMb:
        Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${large.proc.pid}/status`, 'utf8'))?.[1]) / 1024) ||
        null,
      getAlarmsAt10: {
        rps: Math.round(rps10),
        p99: round1(median(at10.map((f) => f.p99))),
        cpuUsPerRequest: cpu10 === undefined ? null : round1(cpu10),
        rounds: at10.map(scaleRound),
      },
      getAlarmsAtScale: {
        rps: Math.round(rpsBig),
        p99: round1(median(atBig.map((f) => f.p99))),
        cpuUsPerRequest: cpuBig === undefined ? null : round1(cpuBig),
        rounds: atBig.map(scaleRound),
      },
      // Each round's two windows are next to each other in time: the figure is the median of the
      // rounds' ratios, so that a slow minute is compared with itself.
      costRatio: round3(median(ratios)),
      costRatios: ratios.map(round3),
      costMeasure: `${byCpu ? 'server CPU per request' : 'inverse requests/s'}, median of the rounds`,
      rpsRatio: Math.round((rpsBig / rps10) * 1000) / 1000,
    };
  } finally {
    await Promise.all([small.proc.stop(), large.proc.stop()]);
  }
}
