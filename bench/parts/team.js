// The team part (`--only team`, issue 44): a replica of a team's Tusk (`tusk serve --state
// postgres://...`) against the in-memory default, on the same light read. One Postgres (the embedded
// server Tusk ships), three replicas on it and one in-memory `tusk serve`, all running for the whole
// part; GET /api/alarms with the key of an instance created through the API (on the team, through
// the first replica, and read once through each). Each round measures, in an order that turns from
// round to round: the in-memory process, one replica, and the three replicas at once (the
// connections split over them, one load generator each, no balancer). Medians of the rounds, and
// the ratio replica/in-memory: the median of each round's own ratio, whose two measurements are
// next to each other in time (a slow minute of the shared machine falls on both). The CPU time per
// request of Tusk and of Postgres (its postmaster and backends) shows where a replica's time goes.
// With --team-before DIR (another checkout, built), three replicas of DIR's Tusk on another database
// of the same Postgres too, and one of them measured in the same rounds: before and after a change.
// Into results.team; the machine's load average is kept with it.
import { existsSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { median } from '../load.js';
import { load, measure, round1 } from '../lib/measure.js';
import { flags, log, opts } from '../lib/options.js';
import { startPostgres } from '../lib/postgres.js';
import { cpuMs, settle } from '../lib/processes.js';
import { ADMIN_KEY, basic, startTusk } from '../lib/starters.js';
import { api } from '../lib/tusk-setup.js';

export const REPLICAS = 3;
const TITLE = 'GET /api/alarms';
const NEW_INSTANCE = { name: 'bench-team', plan: 'hippo', region: 'amazon-web-services::us-east-1' };

const round2 = (x) => (x == null ? null : Math.round(x * 100) / 100);
const loads = () => loadavg().map((x) => Math.round(x * 100) / 100);

/** The same request as a workload of one server. */
const alarmsOf = (server, key) => ({
  url: `${server.instance}/api/alarms`,
  method: 'GET',
  headers: { authorization: basic(key) },
});

/** The three replicas at once: the run's connections split over them, one load each; summed. */
async function measureAll(replicas, key, postgres) {
  const shares = replicas.map(
    (_, i) => Math.floor(opts.connections / replicas.length) + (i < opts.connections % replicas.length ? 1 : 0),
  );
  const all = (seconds) => Promise.all(replicas.map((r, i) => load(alarmsOf(r, key), seconds, shares[i])));
  if (opts.warmup > 0) await all(opts.warmup);
  const tusk = () => replicas.reduce((s, r) => s + (cpuMs(r.proc.pid) ?? 0), 0);
  const [tuskBefore, pgBefore] = [tusk(), postgres.cpuMs()];
  const fs = await all(opts.duration);
  const total = fs.reduce((s, f) => s + f.total, 0);
  return {
    rps: fs.reduce((s, f) => s + f.rps, 0),
    p50: Math.max(...fs.map((f) => f.p50)),
    p99: Math.max(...fs.map((f) => f.p99)),
    total,
    non2xx: fs.reduce((s, f) => s + f.non2xx, 0),
    errors: fs.reduce((s, f) => s + f.errors, 0),
    cpuUs: total > 0 ? ((tusk() - tuskBefore) * 1000) / total : undefined,
    cpuUsOf: total > 0 ? { postgres: ((postgres.cpuMs() - pgBefore) * 1000) / total } : undefined,
  };
}

/** Summary of one server's measurements over the rounds. */
function summary(fs) {
  const of = (pick) => round1(median(fs.map(pick)));
  return {
    rps: Math.round(median(fs.map((f) => f.rps))),
    p50: of((f) => f.p50),
    p99: of((f) => f.p99),
    cpuUs: of((f) => f.cpuUs),
    ...(fs.some((f) => f.cpuUsOf) ? { postgresCpuUs: of((f) => f.cpuUsOf?.postgres) } : {}),
    non2xx: fs.reduce((s, f) => s + f.non2xx, 0),
    errors: fs.reduce((s, f) => s + f.errors, 0),
    rounds: fs.map((f) => Math.round(f.rps)),
  };
}

export async function teamPart(results) {
  const beforeBin = flags['team-before'] ? join(resolve(flags['team-before']), 'bin', 'tusk.js') : undefined;
  if (beforeBin && !existsSync(join(resolve(flags['team-before']), 'dist', 'src', 'cli.js')))
    throw new Error(`--team-before ${flags['team-before']}: no built Tusk there (run npm run build in it)`);
  const loadBefore = loads();
  const started = [];
  let postgres;
  try {
    postgres = await startPostgres();
    /** Three replicas on a database of their own; one after another: the first makes the schema and writes the seeded state, the others load it. */
    const team = async (database, prefix, bin) => {
      const state = await postgres.database(database);
      const replicas = [];
      for (let i = 0; i < REPLICAS; i++) {
        const r = await startTusk({ profile: flags.profile, state, name: `${prefix}-${i + 1}`, bin });
        started.push(r);
        replicas.push(r);
      }
      return replicas;
    };
    const replicas = await team('tusk_bench_team', 'replica');
    const before = beforeBin ? await team('tusk_bench_team_before', 'before', beforeBin) : undefined;
    const memory = await startTusk({ profile: flags.profile, name: 'in-memory' });
    started.push(memory);

    const create = async (server) =>
      (await api(server.customer, 'POST', '/api/instances', ADMIN_KEY, NEW_INSTANCE)).json().apikey;
    const memoryKey = await create(memory);
    const teamKey = await create(replicas[0]);
    const beforeKey = before && (await create(before[0]));
    const expected = (await api(memory.instance, 'GET', '/api/alarms', memoryKey)).json().length;
    for (const [r, key] of [...replicas.map((r) => [r, teamKey]), ...(before ?? []).map((r) => [r, beforeKey])]) {
      const got = (await api(r.instance, 'GET', '/api/alarms', key)).json().length;
      if (got !== expected) throw new Error(`${r.name} lists ${got} alarms, the in-memory process ${expected}`);
    }
    for (const s of started) await settle(s.proc.pid);
    log(
      `  postgres ${postgres.url().replace(/:[^:@]*@/, ':***@')}, ${REPLICAS} replicas and one in-memory process; load average ${loadBefore.join(', ')}`,
    );

    const pg = { postgres: () => postgres.cpuMs() };
    const kinds = {
      memory: () => measure(alarmsOf(memory, memoryKey), memory.proc.pid),
      replica: () => measure(alarmsOf(replicas[0], teamKey), replicas[0].proc.pid, opts.warmup, pg),
      team: () => measureAll(replicas, teamKey, postgres),
      ...(before ? { before: () => measure(alarmsOf(before[0], beforeKey), before[0].proc.pid, opts.warmup, pg) } : {}),
    };
    const names = { memory: 'in-memory', replica: 'one replica', team: `${REPLICAS} replicas`, before: 'before: one' };
    const samples = { memory: [], replica: [], team: [], before: [] };
    const order = Object.keys(kinds);
    for (let r = 0; r < opts.rounds; r++) {
      const turn = order.map((_, i) => order[(i + r) % order.length]);
      log(`\nround ${r + 1}/${opts.rounds}: ${turn.map((k) => names[k]).join(', ')}`);
      for (const kind of turn) {
        const f = await kinds[kind]();
        samples[kind].push(f);
        log(
          `  ${names[kind].padEnd(12)} ${TITLE} ${f.rps.toFixed(0).padStart(7)} req/s  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms  Tusk ${f.cpuUs?.toFixed(0) ?? '?'} µs/req${f.cpuUsOf ? `  Postgres ${f.cpuUsOf.postgres.toFixed(0)} µs/req` : ''}${f.non2xx ? `  non-2xx ${f.non2xx}` : ''}${f.errors ? `  errors ${f.errors}` : ''}`,
        );
      }
    }
    const ratios = (kind) => samples[kind].map((f, i) => Math.round((f.rps / samples.memory[i].rps) * 100) / 100);
    results.team = {
      title: `${TITLE} (an instance key)`,
      replicas: REPLICAS,
      memory: summary(samples.memory),
      replica: summary(samples.replica),
      team: summary(samples.team),
      ratio: round2(median(ratios('replica'))),
      ratios: ratios('replica'),
      teamRatio: round2(median(ratios('team'))),
      teamRatios: ratios('team'),
      ...(before
        ? {
            before: {
              tree: resolve(flags['team-before']),
              replica: summary(samples.before),
              ratio: round2(median(ratios('before'))),
              ratios: ratios('before'),
            },
          }
        : {}),
      loadAverage: { before: loadBefore, after: loads() },
    };
    log(
      `\n  replica/in-memory ${results.team.ratio} (rounds: ${results.team.ratios.join(', ')}); ${REPLICAS} replicas at once/in-memory ${results.team.teamRatio}${before ? `; before: replica/in-memory ${results.team.before.ratio} (${results.team.before.ratios.join(', ')})` : ''}`,
    );
  } finally {
    await Promise.allSettled(started.reverse().map((s) => s.proc.stop()));
    await postgres?.stop();
  }
}
