// The measurement of a workload ({ url, method, headers, body, auths (rotated Authorization values) })
// with the load generator of bench/load.js: warm-up, then load for a time, with the server's CPU
// time per request when its pid is given. Also round1, the rounding of the figures in the results.
import { autocannonLoad, wrkLoad } from '../load.js';
import { opts, tool } from './options.js';
import { cpuMs } from './processes.js';

export const round1 = (x) => (x == null ? null : Math.round(x * 10) / 10);

/** A workload as the list of requests load.js sends: one, or one per rotated Authorization value. */
function requestsOf(w) {
  const url = new URL(w.url);
  const one = {
    method: w.method,
    path: url.pathname + url.search,
    headers: { ...w.headers },
    ...(w.body !== undefined ? { body: w.body } : {}),
  };
  return w.auths ? w.auths.map((a) => ({ ...one, headers: { ...one.headers, authorization: a } })) : [one];
}

/** `w` for `seconds` with the run's tool and connections (`connections` overrides them). */
export async function load(w, seconds, connections = opts.connections) {
  const spec = { origin: new URL(w.url).origin, requests: requestsOf(w), seconds, connections };
  return tool === 'wrk' ? wrkLoad(spec) : autocannonLoad(spec);
}

/**
 * Warm-up, then the measurement. With `pid`, also the server's CPU time per request over the
 * measurement (cpuUs): what a request costs the server, which a shared machine's other load
 * moves far less than requests/s. `others` ({ name: () => CPU ms so far }) adds the CPU time per
 * request of other processes the server asks (cpuUsOf[name]: a team's Postgres).
 */
export async function measure(w, pid, warmup = opts.warmup, others = {}) {
  if (warmup > 0) await load(w, warmup);
  const before = pid ? cpuMs(pid) : undefined;
  const othersBefore = Object.entries(others).map(([name, ms]) => [name, ms()]);
  const f = await load(w, opts.duration);
  const after = pid ? cpuMs(pid) : undefined;
  if (before !== undefined && after !== undefined && f.total > 0) f.cpuUs = ((after - before) * 1000) / f.total;
  if (othersBefore.length && f.total > 0)
    f.cpuUsOf = Object.fromEntries(othersBefore.map(([name, ms]) => [name, ((others[name]() - ms) * 1000) / f.total]));
  return f;
}
