// Every operation of both documents, Tusk against `prism mock` in the same run (issue 20): for each
// operationId a valid request over `concurrency` kept-alive connections; req/s, p50 and p99 per
// server and the ratio. A request that can be sent again and again (reads, updates, restores) runs
// for a time after a warm-up, with wrk when it is on PATH (bench/load.js); one that makes or uses up
// a resource runs a fixed number of times (so that writes stay bounded), after a warm-up of the same
// kind, over connections opened before the clock starts (connectedLoad). Tusk's
// requests act on data of their own, made before the measurement: creates rotate over enough
// instances (or accounts) to stay under every cap, deletes and removals take a resource made for
// each request, key rotations run one after the other with the key the previous answer gave. The
// list reads run on an account of their own with a few instances (the heavy reads, at 1,000
// instances and a busy month, are measured against the physical limit in bench/run.js).
// Prism answers each request from the documents' examples (any key works, ids are not looked up).
//
// Used by bench/run.js (`npm run bench -- --only operations`).
import { request } from 'node:http';
import { autocannonLoad, connectedLoad, hasWrk, wrkLoad } from './load.js';

const basic = (key) => 'Basic ' + Buffer.from(`:${key}`).toString('base64');
const DAY = 86_400_000;
const stamp = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const NEW_INSTANCE = { plan: 'hippo', region: 'amazon-web-services::us-east-1' };

/** One HTTP request (the set-up); resolves { status, text }. */
function send(base, r) {
  return new Promise((resolve) => {
    const url = new URL(base + r.path);
    const body = r.body === undefined ? undefined : JSON.stringify(r.body);
    const headers = { ...(r.key ? { authorization: basic(r.key) } : {}), ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) };
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: r.method, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
    });
    req.on('error', (err) => resolve({ status: 0, text: err.message }));
    req.end(body);
  });
}

/** An operation's request as bench/load.js sends it. */
const wire = (r) => ({
  method: r.method,
  path: r.path,
  headers: { ...(r.key ? { authorization: basic(r.key) } : {}), ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}) },
  ...(r.body !== undefined ? { body: JSON.stringify(r.body) } : {}),
});

/** Distinct requests a repeatable operation cycles through. */
const VARIANTS = 64;

/**
 * Requests sent before a fixed-count measurement, from the same supply: as many as are measured.
 * A long-running stand-in is warm; a fresh code path is not (createInstance: 1,900 req/s over its
 * first 2,000 requests, 11,000 over its fourth 2,000, JIT and heap sizing).
 */
export const warmCount = (count) => count;

/**
 * One operation on one server: a repeatable one for `seconds` after `warmup` seconds (wrk when there
 * is one, else autocannon); the others `count` times after warmCount(count), over resources
 * make(0 ..), on connections opened before (connectedLoad). `chain`: one after the other, the key
 * of each from the previous answer's `apikey`, starting from chain.warm (the warm-up) and
 * chain.measure.
 */
async function drive(origin, { make, count, repeatable, chain }, { seconds, warmup, concurrency, useWrk }) {
  if (repeatable) {
    const requests = Array.from({ length: VARIANTS }, (_, i) => wire(make(i)));
    const spec = { origin, requests, connections: concurrency };
    const run = (secs) => (useWrk ? wrkLoad({ ...spec, seconds: secs }) : autocannonLoad({ ...spec, seconds: secs }));
    if (warmup > 0) await run(warmup);
    return run(seconds);
  }
  const warm = warmCount(count);
  if (chain) {
    const run = (first, amount) => connectedLoad({ origin, make: (i, previous) => wire({ ...make(i), key: previous ? JSON.parse(previous).apikey : first }), amount, connections: 1, chain: true });
    if (warm > 0) await run(chain.warm, warm);
    return run(chain.measure, count);
  }
  // Items [0, warm) warm up, the next `count` are measured.
  if (warm > 0) await connectedLoad({ origin, make: (i) => wire(make(i)), amount: warm, connections: concurrency });
  return connectedLoad({ origin, make: (i) => wire(make(warm + i)), amount: count, connections: concurrency });
}

/** Tusk's API for the set-up (throws on a non-2xx). */
async function api(base, method, path, key, body) {
  const r = await send(base, { method, path, key, body });
  if (r.status < 200 || r.status >= 300) throw new Error(`set-up ${method} ${path}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  return r.text ? JSON.parse(r.text) : undefined;
}

async function pool(n, width, fn) {
  let next = 0;
  const out = new Array(n);
  await Promise.all(Array.from({ length: Math.min(width, n) }, async () => { while (next < n) { const i = next++; out[i] = await fn(i); } }));
  return out;
}

/**
 * The data Tusk's requests act on, made through its API and controls: a fresh account per kind of
 * write (so each stays under the account caps), instances for creates to rotate over, one resource
 * per delete.
 */
async function prepare(t, adminKey, { count, deletes }) {
  const account = async (name) => (await api(t.customer, 'POST', '/__tusk/accounts', undefined, { name })).admin_key;
  const instancesOf = async (key, n, prefix) => pool(n, 16, async (i) => api(t.customer, 'POST', '/api/instances', key, { name: `${prefix}-${i}`, ...NEW_INSTANCE }));
  const main = await account('bench operations');
  const [probe] = await instancesOf(main, 1, 'probe');
  const k = probe.apikey;
  const alarm = (await api(t.instance, 'GET', '/api/alarms', k))[0];
  const recipient = await api(t.instance, 'POST', '/api/alarms/recipients', k, { type: 'email', value: 'probe@example.com' });
  const log = await api(t.instance, 'POST', '/api/integrations/logs/logs_e', k, { token: 'tcp-token-0123456789abcdef' });
  const metric = await api(t.instance, 'POST', '/api/integrations/metrics/metrics_d_v3', k, { license_key: 'l' });
  const backup = (await api(t.instance, 'GET', '/api/backup', k))[0];
  const maintenance = (await api(t.instance, 'GET', '/api/maintenance', k))[0];
  const member = (await api(t.customer, 'GET', '/api/team', main)).find((m) => m.roles.includes('member'));
  const invoices = await api(t.customer, 'GET', '/api/invoices', adminKey);
  const invoice = invoices[0];
  // Creates rotate over instances with room for count / instances each (caps: 100 alarms, 100 recipients, 50 integrations per kind, 1,000 backups).
  const rotation = async (perInstance, prefix) => (await instancesOf(main, Math.ceil(count / perInstance), prefix)).map((x) => x.apikey);
  const alarmKeys = await rotation(90, 'alarms');
  const recipientKeys = await rotation(90, 'recipients');
  const logKeys = await rotation(45, 'logs');
  const metricKeys = await rotation(45, 'metrics');
  const backupKeys = await rotation(900, 'backups');
  const instanceAccounts = await Promise.all(Array.from({ length: Math.ceil(count / 5000) }, (_, i) => account(`bench creates ${i}`)));
  const inviteAccounts = await Promise.all(Array.from({ length: Math.ceil(count / 900) }, (_, i) => account(`bench invites ${i}`)));
  // One resource per delete.
  // An account holds at most 10,000 instances: the instances to delete spread over accounts of 5,000.
  const delAccounts = await Promise.all(Array.from({ length: Math.ceil(deletes / 5000) }, (_, i) => account(`bench deletes ${i}`)));
  const toDelete = (await Promise.all(delAccounts.map((key, a) => instancesOf(key, Math.min(5000, deletes - a * 5000), `delete-${a}`)))).flat().map((x, i) => ({ ...x, key: delAccounts[Math.floor(i / 5000)] }));
  const holders = await instancesOf(await account('bench deletes of items'), Math.ceil(deletes / 45), 'holder');
  const per = (i, n) => holders[Math.floor(i / n)].apikey;
  const delAlarms = await pool(deletes, 16, async (i) => ({ key: per(i, 45), id: (await api(t.instance, 'POST', '/api/alarms', per(i, 45), { type: 'notice' })).id }));
  const delRecipients = await pool(deletes, 16, async (i) => ({ key: per(i, 45), id: (await api(t.instance, 'POST', '/api/alarms/recipients', per(i, 45), { type: 'email', value: `d${i}@example.com` })).id }));
  const delLogs = await pool(deletes, 16, async (i) => ({ key: per(i, 45), id: (await api(t.instance, 'POST', '/api/integrations/logs/logs_e', per(i, 45), { token: `t-${i}` })).id }));
  const delMetrics = await pool(deletes, 16, async (i) => ({ key: per(i, 45), id: (await api(t.instance, 'POST', '/api/integrations/metrics/metrics_d_v3', per(i, 45), { license_key: `l-${i}` })).id }));
  // A team holds at most 1,000 members: the removals spread over accounts of 900 invitations each.
  const removeAccounts = await Promise.all(Array.from({ length: Math.ceil(deletes / 900) }, (_, i) => account(`bench removals ${i}`)));
  const removals = await pool(deletes, 16, async (i) => {
    const email = `removed-${i}@example.com`;
    const key = removeAccounts[Math.floor(i / 900)];
    await api(t.customer, 'POST', '/api/team/invite', key, { email });
    return { key, email };
  });
  // Maintenance items to run, one per request: every instance has scheduled ones.
  const runs = [];
  const runAccount = await account('bench maintenance runs');
  for (let batch = 0; runs.length < deletes; batch++) {
    const hosts = await instancesOf(runAccount, 50, `run-${batch}`);
    const lists = await pool(hosts.length, 16, async (i) => (await api(t.instance, 'GET', '/api/maintenance', hosts[i].apikey)).map((m) => ({ ...m, key: hosts[i].apikey })));
    for (const m of lists.flat()) if (m.status === 'scheduled' && runs.length < deletes) runs.push({ key: m.key, id: m.id });
  }
  // The list reads: an account with a few instances (as a client's test account has).
  const reader = await account('bench reads');
  await instancesOf(reader, 3, 'read');
  // Key rotations: one chain of keys for the warm-up, another for the measurement.
  const rotations = await instancesOf(main, 2, 'rotation');
  const chainKeys = {
    customer: { warm: await account('bench key rotation warm-up'), measure: await account('bench key rotation') },
    instance: { warm: rotations[0].apikey, measure: rotations[1].apikey },
  };
  return { reader, main, adminKey, k, alarm, recipient, log, metric, backup, maintenance, member, invoice, alarmKeys, recipientKeys, logKeys, metricKeys, backupKeys, instanceAccounts, inviteAccounts, toDelete, delAlarms, delRecipients, delLogs, delMetrics, removals, runs, chainKeys, probeId: probe.id, probe };
}

/**
 * The request of every operation: `tusk(i)` against Tusk's prepared data `d`, `prism(i)` against Prism.
 * `count: 'deletes'` takes the smaller count of one-resource-per-request operations.
 */
function operations(d, now) {
  const rot = (keys, i) => keys[i % keys.length];
  const maintenanceAt = stamp(now + 2 * DAY) + ' +0000';
  const [year, month] = (d?.invoice?.period ?? '2026/1').split('/');
  const period = { year: Number(year), month: `${year}-${month.padStart(2, '0')}` };
  const q = (o) => '?' + new URLSearchParams(Object.entries(o).map(([k, v]) => [k, String(v)])).toString();
  return {
    // ---- customer ----
    listInstances: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/instances', key: d.reader }) },
    createInstance: { bounded: true, api: 'customer', tusk: (i) => ({ method: 'POST', path: '/api/instances', key: rot(d.instanceAccounts, i), body: { name: `created-${i}`, ...NEW_INSTANCE } }) },
    getInstance: { api: 'customer', tusk: () => ({ method: 'GET', path: `/api/instances/${d.probeId}`, key: d.main }) },
    updateInstance: { api: 'customer', tusk: (i) => ({ method: 'PUT', path: `/api/instances/${d.probeId}`, key: d.main, body: { name: `renamed-${i}` } }) },
    deleteInstance: { api: 'customer', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/instances/${d.toDelete[i].id}`, key: d.toDelete[i].key }) },
    listInvoices: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/invoices', key: d.adminKey }) },
    getInvoiceForPeriod: { api: 'customer', tusk: () => ({ method: 'GET', path: `/api/invoices/period${q(period)}`, key: d.adminKey }) },
    getInvoice: { api: 'customer', tusk: () => ({ method: 'GET', path: `/api/invoices/${d.invoice.id}`, key: d.adminKey }) },
    getAuditLogCsv: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/auditlog/csv', key: d.reader }) },
    listRegions: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/regions', key: d.main }) },
    listTeamMembers: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/team', key: d.reader }) },
    inviteTeamMember: { bounded: true, api: 'customer', tusk: (i) => ({ method: 'POST', path: '/api/team/invite', key: rot(d.inviteAccounts, i), body: { email: `invited-${i}@example.com` } }) },
    removeTeamMember: { api: 'customer', count: 'deletes', tusk: (i) => ({ method: 'POST', path: '/api/team/remove', key: d.removals[i].key, body: { email: d.removals[i].email } }) },
    updateTeamMember: { api: 'customer', tusk: (i) => ({ method: 'PUT', path: `/api/team/${d.member.id}`, key: d.main, body: { role: 'member', tags: `t${i % 7}` } }) },
    rotateApiKey: { api: 'customer', count: 'deletes', chain: d.chainKeys.customer, tusk: () => ({ method: 'POST', path: '/api/apikeys/rotate-apikey' }) },
    listPlans: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/plans', key: d.main }) },
    // ---- instance ----
    listBackups: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/backup', key: d.k }) },
    createBackup: { bounded: true, api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/backup', key: rot(d.backupKeys, i), body: {} }) },
    restoreBackup: { api: 'instance', tusk: () => ({ method: 'POST', path: '/api/backup/restore', key: d.k, body: { backup_id: d.backup.id } }) },
    recoverToPointInTime: { api: 'instance', tusk: () => ({ method: 'POST', path: '/api/backup/pitr', key: d.k, body: { pit: stamp(now - 60 * 60_000).slice(0, 16) } }) },
    rotatePassword: { api: 'instance', tusk: () => ({ method: 'POST', path: '/api/account/rotate-password', key: d.k }) },
    rotateInstanceApiKey: { api: 'instance', count: 'deletes', chain: d.chainKeys.instance, tusk: () => ({ method: 'POST', path: '/api/account/rotate-apikey' }) },
    createRecipient: { bounded: true, api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/alarms/recipients', key: rot(d.recipientKeys, i), body: { type: 'email', value: `r${i}@example.com` } }) },
    listRecipients: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/alarms/recipients', key: d.k }) },
    getRecipient: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/alarms/recipients/${d.recipient.id}`, key: d.k }) },
    updateRecipient: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/alarms/recipients/${d.recipient.id}`, key: d.k, body: { type: 'email', value: `u${i % 10}@example.com` } }) },
    deleteRecipient: { api: 'instance', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/alarms/recipients/${d.delRecipients[i].id}`, key: d.delRecipients[i].key }) },
    createAlarm: { bounded: true, api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/alarms', key: rot(d.alarmKeys, i), body: { type: 'cpu', value_threshold: 80, time_threshold: 300 } }) },
    listAlarms: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/alarms', key: d.k }) },
    getAlarm: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/alarms/${d.alarm.id}`, key: d.k }) },
    updateAlarm: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/alarms/${d.alarm.id}`, key: d.k, body: { type: d.alarm.type, value_threshold: 80 + (i % 10) } }) },
    deleteAlarm: { api: 'instance', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/alarms/${d.delAlarms[i].id}`, key: d.delAlarms[i].key }) },
    listLogIntegrations: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/integrations/logs', key: d.k }) },
    getLogIntegration: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/integrations/logs/${d.log.id}`, key: d.k }) },
    createLogIntegration: { bounded: true, api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/integrations/logs/logs_e', key: rot(d.logKeys, i), body: { token: `token-${i}` } }) },
    updateLogIntegration: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/integrations/logs/${d.log.id}`, key: d.k, body: { token: `token-u${i % 10}` } }) },
    deleteLogIntegration: { api: 'instance', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/integrations/logs/${d.delLogs[i].id}`, key: d.delLogs[i].key }) },
    updateLogIntegrationWithSystem: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/integrations/logs/logs_e/${d.log.id}`, key: d.k, body: { token: `token-s${i % 10}` } }) },
    listMetricsIntegrations: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/integrations/metrics', key: d.k }) },
    getMetricsIntegration: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/integrations/metrics/${d.metric.id}`, key: d.k }) },
    createMetricsIntegration: { bounded: true, api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/integrations/metrics/metrics_d_v3', key: rot(d.metricKeys, i), body: { license_key: `l-${i}` } }) },
    updateMetricsIntegration: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/integrations/metrics/${d.metric.id}`, key: d.k, body: { license_key: `l-u${i % 10}` } }) },
    deleteMetricsIntegration: { api: 'instance', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/integrations/metrics/${d.delMetrics[i].id}`, key: d.delMetrics[i].key }) },
    updateMetricsIntegrationWithSystem: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/integrations/metrics/metrics_d_v3/${d.metric.id}`, key: d.k, body: { license_key: `l-s${i % 10}` } }) },
    listMaintenance: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/maintenance', key: d.k }) },
    rescheduleMaintenance: { api: 'instance', tusk: () => ({ method: 'PUT', path: `/api/maintenance/${d.maintenance.id}`, key: d.k, body: { scheduled_by: maintenanceAt } }) },
    runMaintenance: { api: 'instance', count: 'deletes', tusk: (i) => ({ method: 'POST', path: `/api/maintenance/${d.runs[i].id}`, key: d.runs[i].key }) },
  };
}

/** Prism's version of a request: the same method, path (ids stay numbers), query and body; any key. */
const forPrism = (r) => ({ ...r, key: 'any-key-works' });

/**
 * Runs the table. `t`: Tusk's URLs ({ customer, instance }); `prism`: Prism's ({ customer, instance })
 * or undefined. Returns one row per operationId, in document order.
 */
export async function operationsBench({ t, prism, adminKey, operationIds, count = 5000, deletes = 5000, seconds = 3, warmup = 1, concurrency = 50, useWrk = hasWrk, log = console.log }) {
  const now = Date.now();
  const t0 = performance.now();
  // Each fixed-count operation also warms up on as many resources of its own.
  const supply = (n) => warmCount(n) + n;
  const d = await prepare(t, adminKey, { count: supply(count), deletes: supply(deletes) });
  log(`  set-up of the per-operation data: ${Math.round(performance.now() - t0)} ms`);
  const ops = operations(d, now);
  const missing = operationIds.filter((id) => !ops[id]);
  if (missing.length) throw new Error(`bench/operations.js has no request for: ${missing.join(', ')}`);
  const rows = [];
  const timing = { seconds, warmup, concurrency, useWrk };
  for (const id of operationIds) {
    const op = ops[id];
    const repeatable = !op.bounded && !op.chain && op.count !== 'deletes';
    const n = op.count === 'deletes' ? deletes : count;
    // Tusk's event-loop delay over its measurement (and warm-up): how long one request held up the others.
    await fetch(`${t.customer}/__tusk/runtime`, { method: 'DELETE' });
    const tusk = await drive(t[op.api], { count: n, make: op.tusk, repeatable, chain: op.chain }, timing);
    const delay = (await (await fetch(`${t.customer}/__tusk/runtime`)).json()).event_loop_delay_ms;
    tusk.eventLoopDelayMs = { p99: delay.p99, max: delay.max };
    let p;
    if (prism) {
      // Prism takes any key and looks no id up: the same requests, a placeholder key.
      const any = forPrism({}).key;
      p = await drive(prism[op.api], { count: n, make: (i) => forPrism(op.tusk(i)), repeatable, chain: op.chain && { warm: any, measure: any } }, timing);
    }
    const row = { operation: id, api: op.api, mode: repeatable ? `${seconds} s` : `${n} requests`, tool: tusk.tool, sequential: Boolean(op.chain), tusk, ...(p ? { prism: p, ratio: tusk.rps / p.rps } : {}) };
    rows.push(row);
    log(`  ${id.padEnd(36)} tusk ${tusk.rps.toFixed(0).padStart(6)} req/s p50 ${tusk.p50.toFixed(2)} p99 ${tusk.p99.toFixed(2)} ms (loop delay p99 ${tusk.eventLoopDelayMs.p99}, max ${tusk.eventLoopDelayMs.max})${tusk.non2xx ? ` NON-2XX ${tusk.non2xx} (${tusk.firstBad ?? 'see wrk'})` : ''}${p ? `  prism ${p.rps.toFixed(0).padStart(5)} req/s p99 ${p.p99.toFixed(2)} ms${p.non2xx ? ` non-2xx ${p.non2xx}` : ''}  ${row.ratio.toFixed(1)}x` : ''}  (${row.mode}, ${tusk.tool})`);
  }
  return rows;
}
