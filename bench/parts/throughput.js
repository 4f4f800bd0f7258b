// The throughput part (`--only throughput`): the same workloads on Tusk, Prism and the two
// references, one server at a time, several rounds alternating the servers; medians per workload
// and server into results.throughput.
import { median } from '../load.js';
import { measure, round1 } from '../lib/measure.js';
import { flags, log, opts } from '../lib/options.js';
import { settle } from '../lib/processes.js';
import { ADMIN_KEY, basic, STARTERS } from '../lib/starters.js';
import { POST_INSTANCES, prepareTusk, preparePosts } from '../lib/tusk-setup.js';

const ALARM_BODY = JSON.stringify({ type: 'cpu', value_threshold: 80, time_threshold: 300 });

const WORKLOADS = {
  'get-alarms': { title: 'GET /api/alarms', servers: ['tusk', 'prism', 'bare-hono', 'raw-http'] },
  'post-alarms': { title: 'POST /api/alarms', servers: ['tusk', 'prism'] },
  'list-instances': { title: 'GET /api/instances (1,000 instances)', servers: ['tusk'] },
  'get-backup': { title: 'GET /api/backup', servers: ['tusk'] },
  'auditlog-csv': { title: 'GET /api/auditlog/csv (busy month)', servers: ['tusk'] },
};
/** The order Tusk's workloads run in: POST /api/alarms last (it adds instances to the account). */
const TUSK_ORDER = ['get-alarms', 'list-instances', 'get-backup', 'auditlog-csv', 'post-alarms'];

function workloadsOf(server, state) {
  const json = { 'content-type': 'application/json' };
  if (server.name === 'tusk') {
    return {
      'get-alarms': {
        url: `${server.instance}/api/alarms`,
        method: 'GET',
        headers: { authorization: basic(state.getKey) },
      },
      'post-alarms': {
        url: `${server.instance}/api/alarms`,
        method: 'POST',
        headers: json,
        body: ALARM_BODY,
        prepare: preparePosts,
      },
      'list-instances': {
        url: `${server.customer}/api/instances`,
        method: 'GET',
        headers: { authorization: basic(ADMIN_KEY) },
      },
      'get-backup': {
        url: `${server.instance}/api/backup`,
        method: 'GET',
        headers: { authorization: basic(state.getKey) },
      },
      'auditlog-csv': {
        url: `${server.customer}/api/auditlog/csv`,
        method: 'GET',
        headers: { authorization: basic(ADMIN_KEY) },
      },
    };
  }
  if (server.name === 'prism') {
    const auth = { authorization: basic('any-key-works') };
    return {
      'get-alarms': { url: `${server.instance}/api/alarms`, method: 'GET', headers: auth },
      'post-alarms': {
        url: `${server.instance}/api/alarms`,
        method: 'POST',
        headers: { ...auth, ...json },
        body: ALARM_BODY,
      },
    };
  }
  return { 'get-alarms': { url: `${server.instance}/api/alarms`, method: 'GET', headers: {} } };
}

export async function throughput(results) {
  const servers = ['tusk', 'prism', 'bare-hono', 'raw-http'];
  const samples = {}; // workload -> server -> [figures]
  for (let r = 0; r < opts.rounds; r++) {
    // Alternate: each round starts with another server.
    const order = servers.map((_, i) => servers[(i + r) % servers.length]);
    log(`\nround ${r + 1}/${opts.rounds}: ${order.join(', ')}`);
    for (const name of order) {
      const server = await STARTERS[name]({ profile: flags.profile });
      try {
        let state = {};
        if (name === 'tusk') {
          const t0 = performance.now();
          state = await prepareTusk(server);
          results.tuskSetup = {
            ...state,
            getKey: undefined,
            postInstances: POST_INSTANCES,
            ms: Math.round(performance.now() - t0),
          };
          log(
            `  tusk: ${state.instances} instances, ${state.auditRows} audit rows this month, ${state.backups} backups listed (set-up ${results.tuskSetup.ms} ms)`,
          );
          // The set-up's garbage is collected before the first workload, not during it.
          await settle(server.proc.pid);
        }
        const ws = workloadsOf(server, state);
        const ids = name === 'tusk' ? TUSK_ORDER : Object.keys(ws);
        for (const id of ids) {
          const w = ws[id];
          if (w.prepare) w.auths = await w.prepare(server);
          const f = await measure(w);
          ((samples[id] ??= {})[name] ??= []).push(f);
          log(
            `  ${name.padEnd(9)} ${WORKLOADS[id].title.padEnd(38)} ${f.rps.toFixed(0).padStart(7)} req/s  p50 ${f.p50.toFixed(2)} ms  p99 ${f.p99.toFixed(2)} ms${f.non2xx ? `  non-2xx ${f.non2xx}` : ''}${f.errors ? `  errors ${f.errors}` : ''}`,
          );
        }
      } finally {
        await server.proc.stop();
      }
    }
  }
  results.throughput = {};
  for (const [id, byServer] of Object.entries(samples)) {
    results.throughput[id] = { title: WORKLOADS[id].title };
    for (const [name, fs] of Object.entries(byServer)) {
      results.throughput[id][name] = {
        rps: Math.round(median(fs.map((f) => f.rps))),
        p50: round1(median(fs.map((f) => f.p50))),
        p99: round1(median(fs.map((f) => f.p99))),
        non2xx: fs.reduce((s, f) => s + f.non2xx, 0),
        errors: fs.reduce((s, f) => s + f.errors, 0),
        rounds: fs.map((f) => Math.round(f.rps)),
      };
    }
  }
}
