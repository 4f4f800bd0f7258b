// Every operation of both documents, Tusk against `prism mock` in the same run (issue 20): for each
// operationId a valid request, sent a fixed number of times (so that writes stay bounded) by
// `concurrency` clients over kept-alive connections; req/s, p50 and p99 per server and the ratio.
// Tusk's requests act on data of their own, made before the measurement: creates rotate over enough
// instances (or accounts) to stay under every cap, deletes and removals take a resource made for
// each request, key rotations run one after the other with the key the previous answer gave.
// Prism answers each request from the documents' examples (any key works, ids are not looked up).
//
// Used by bench/run.js (`npm run bench -- --only operations`).
import { Agent, request } from 'node:http';

const basic = (key) => 'Basic ' + Buffer.from(`:${key}`).toString('base64');
const DAY = 86_400_000;
const stamp = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const NEW_INSTANCE = { plan: 'hippo', region: 'amazon-web-services::us-east-1' };

/** One HTTP request over `agent`; resolves { status, text, ms }. */
function send(agent, base, r) {
  return new Promise((resolve) => {
    const url = new URL(base + r.path);
    const body = r.body === undefined ? undefined : JSON.stringify(r.body);
    const headers = { ...(r.key ? { authorization: basic(r.key) } : {}), ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}) };
    const t0 = performance.now();
    const req = request({ hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: r.method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString(), ms: performance.now() - t0 }));
    });
    req.on('error', (err) => resolve({ status: 0, text: err.message, ms: performance.now() - t0 }));
    req.end(body);
  });
}

const percentile = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : null);

/**
 * Sends `count` requests (`make(i)` gives the i-th) with `concurrency` in flight, or one after the
 * other when `chain` (make(i, previousAnswer)). Returns req/s, p50, p99 and the non-2xx count.
 */
async function drive(agent, base, { count, make, chain = false }, concurrency) {
  const latencies = [];
  let non2xx = 0;
  let firstBad;
  const t0 = performance.now();
  if (chain) {
    let previous;
    for (let i = 0; i < count; i++) {
      previous = await send(agent, base, make(i, previous));
      latencies.push(previous.ms);
      if (previous.status < 200 || previous.status >= 300) (non2xx++, (firstBad ??= previous));
    }
  } else {
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(concurrency, count) }, async () => {
        while (next < count) {
          const r = await send(agent, base, make(next++));
          latencies.push(r.ms);
          if (r.status < 200 || r.status >= 300) (non2xx++, (firstBad ??= r));
        }
      }),
    );
  }
  const seconds = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return { rps: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), non2xx, ...(firstBad ? { firstBad: `${firstBad.status} ${firstBad.text.slice(0, 160)}` } : {}) };
}

/** Tusk's API for the set-up (throws on a non-2xx). */
async function api(base, method, path, key, body) {
  const r = await send(undefined, base, { method, path, key, body });
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
  const delAccount = await account('bench deletes');
  const toDelete = await instancesOf(delAccount, deletes, 'delete');
  const holders = await instancesOf(delAccount, Math.ceil(deletes / 45), 'holder');
  const per = (i, n) => holders[Math.floor(i / n)].apikey;
  const delAlarms = await pool(deletes, 16, async (i) => ({ key: per(i, 45), id: (await api(t.instance, 'POST', '/api/alarms', per(i, 45), { type: 'notice' })).id }));
  const delRecipients = await pool(deletes, 16, async (i) => ({ key: per(i, 45), id: (await api(t.instance, 'POST', '/api/alarms/recipients', per(i, 45), { type: 'email', value: `d${i}@example.com` })).id }));
  const delLogs = await pool(deletes, 16, async (i) => ({ key: per(i, 45), id: (await api(t.instance, 'POST', '/api/integrations/logs/logs_e', per(i, 45), { token: `t-${i}` })).id }));
  const delMetrics = await pool(deletes, 16, async (i) => ({ key: per(i, 45), id: (await api(t.instance, 'POST', '/api/integrations/metrics/metrics_d_v3', per(i, 45), { license_key: `l-${i}` })).id }));
  const removeAccount = await account('bench removals');
  const removals = await pool(deletes, 16, async (i) => {
    const email = `removed-${i}@example.com`;
    await api(t.customer, 'POST', '/api/team/invite', removeAccount, { email });
    return email;
  });
  // Maintenance items to run, one per request: every instance has scheduled ones.
  const runHosts = await instancesOf(delAccount, deletes, 'run');
  const runs = [];
  for (const x of runHosts) {
    if (runs.length >= deletes) break;
    for (const m of await api(t.instance, 'GET', '/api/maintenance', x.apikey)) if (m.status === 'scheduled' && runs.length < deletes) runs.push({ key: x.apikey, id: m.id });
  }
  const chainKeys = { customer: await account('bench key rotation'), instance: (await instancesOf(main, 1, 'rotation'))[0].apikey };
  return { deleteAccountKey: delAccount, main, adminKey, k, alarm, recipient, log, metric, backup, maintenance, member, invoice, alarmKeys, recipientKeys, logKeys, metricKeys, backupKeys, instanceAccounts, inviteAccounts, toDelete, delAlarms, delRecipients, delLogs, delMetrics, removeAccount, removals, runs, chainKeys, probeId: probe.id, probe };
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
    listInstances: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/instances', key: d.main }) },
    createInstance: { api: 'customer', tusk: (i) => ({ method: 'POST', path: '/api/instances', key: rot(d.instanceAccounts, i), body: { name: `created-${i}`, ...NEW_INSTANCE } }) },
    getInstance: { api: 'customer', tusk: () => ({ method: 'GET', path: `/api/instances/${d.probeId}`, key: d.main }) },
    updateInstance: { api: 'customer', tusk: (i) => ({ method: 'PUT', path: `/api/instances/${d.probeId}`, key: d.main, body: { name: `renamed-${i}` } }) },
    deleteInstance: { api: 'customer', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/instances/${d.toDelete[i].id}`, key: d.deleteAccountKey }) },
    listInvoices: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/invoices', key: d.adminKey }) },
    getInvoiceForPeriod: { api: 'customer', tusk: () => ({ method: 'GET', path: `/api/invoices/period${q(period)}`, key: d.adminKey }) },
    getInvoice: { api: 'customer', tusk: () => ({ method: 'GET', path: `/api/invoices/${d.invoice.id}`, key: d.adminKey }) },
    getAuditLogCsv: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/auditlog/csv', key: d.main }) },
    listRegions: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/regions', key: d.main }) },
    listTeamMembers: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/team', key: d.main }) },
    inviteTeamMember: { api: 'customer', tusk: (i) => ({ method: 'POST', path: '/api/team/invite', key: rot(d.inviteAccounts, i), body: { email: `invited-${i}@example.com` } }) },
    removeTeamMember: { api: 'customer', count: 'deletes', tusk: (i) => ({ method: 'POST', path: '/api/team/remove', key: d.removeAccount, body: { email: d.removals[i] } }) },
    updateTeamMember: { api: 'customer', tusk: (i) => ({ method: 'PUT', path: `/api/team/${d.member.id}`, key: d.main, body: { role: 'member', tags: `t${i % 7}` } }) },
    rotateApiKey: { api: 'customer', count: 'deletes', chain: true, tusk: (i, prev) => ({ method: 'POST', path: '/api/apikeys/rotate-apikey', key: prev ? JSON.parse(prev.text).apikey : d.chainKeys.customer }) },
    listPlans: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/plans', key: d.main }) },
    // ---- instance ----
    listBackups: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/backup', key: d.k }) },
    createBackup: { api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/backup', key: rot(d.backupKeys, i), body: {} }) },
    restoreBackup: { api: 'instance', tusk: () => ({ method: 'POST', path: '/api/backup/restore', key: d.k, body: { backup_id: d.backup.id } }) },
    recoverToPointInTime: { api: 'instance', tusk: () => ({ method: 'POST', path: '/api/backup/pitr', key: d.k, body: { pit: stamp(now - 60 * 60_000).slice(0, 16) } }) },
    rotatePassword: { api: 'instance', tusk: () => ({ method: 'POST', path: '/api/account/rotate-password', key: d.k }) },
    rotateInstanceApiKey: { api: 'instance', count: 'deletes', chain: true, tusk: (i, prev) => ({ method: 'POST', path: '/api/account/rotate-apikey', key: prev ? JSON.parse(prev.text).apikey : d.chainKeys.instance }) },
    createRecipient: { api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/alarms/recipients', key: rot(d.recipientKeys, i), body: { type: 'email', value: `r${i}@example.com` } }) },
    listRecipients: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/alarms/recipients', key: d.k }) },
    getRecipient: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/alarms/recipients/${d.recipient.id}`, key: d.k }) },
    updateRecipient: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/alarms/recipients/${d.recipient.id}`, key: d.k, body: { type: 'email', value: `u${i % 10}@example.com` } }) },
    deleteRecipient: { api: 'instance', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/alarms/recipients/${d.delRecipients[i].id}`, key: d.delRecipients[i].key }) },
    createAlarm: { api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/alarms', key: rot(d.alarmKeys, i), body: { type: 'cpu', value_threshold: 80, time_threshold: 300 } }) },
    listAlarms: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/alarms', key: d.k }) },
    getAlarm: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/alarms/${d.alarm.id}`, key: d.k }) },
    updateAlarm: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/alarms/${d.alarm.id}`, key: d.k, body: { type: d.alarm.type, value_threshold: 80 + (i % 10) } }) },
    deleteAlarm: { api: 'instance', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/alarms/${d.delAlarms[i].id}`, key: d.delAlarms[i].key }) },
    listLogIntegrations: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/integrations/logs', key: d.k }) },
    getLogIntegration: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/integrations/logs/${d.log.id}`, key: d.k }) },
    createLogIntegration: { api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/integrations/logs/logs_e', key: rot(d.logKeys, i), body: { token: `token-${i}` } }) },
    updateLogIntegration: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/integrations/logs/${d.log.id}`, key: d.k, body: { token: `token-u${i % 10}` } }) },
    deleteLogIntegration: { api: 'instance', count: 'deletes', tusk: (i) => ({ method: 'DELETE', path: `/api/integrations/logs/${d.delLogs[i].id}`, key: d.delLogs[i].key }) },
    updateLogIntegrationWithSystem: { api: 'instance', tusk: (i) => ({ method: 'PUT', path: `/api/integrations/logs/logs_e/${d.log.id}`, key: d.k, body: { token: `token-s${i % 10}` } }) },
    listMetricsIntegrations: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/integrations/metrics', key: d.k }) },
    getMetricsIntegration: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/integrations/metrics/${d.metric.id}`, key: d.k }) },
    createMetricsIntegration: { api: 'instance', tusk: (i) => ({ method: 'POST', path: '/api/integrations/metrics/metrics_d_v3', key: rot(d.metricKeys, i), body: { license_key: `l-${i}` } }) },
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
export async function operationsBench({ t, prism, adminKey, operationIds, count = 2000, deletes = 300, concurrency = 50, log = console.log }) {
  const now = Date.now();
  const t0 = performance.now();
  const d = await prepare(t, adminKey, { count, deletes });
  log(`  set-up of the per-operation data: ${Math.round(performance.now() - t0)} ms`);
  const ops = operations(d, now);
  const missing = operationIds.filter((id) => !ops[id]);
  if (missing.length) throw new Error(`bench/operations.js has no request for: ${missing.join(', ')}`);
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const rows = [];
  try {
    for (const id of operationIds) {
      const op = ops[id];
      const n = op.count === 'deletes' ? deletes : count;
      const tusk = await drive(agent, t[op.api], { count: n, make: op.tusk, chain: op.chain }, concurrency);
      let p;
      if (prism) {
        const fromTusk = op.tusk;
        p = await drive(agent, prism[op.api], { count: Math.min(n, 1000), make: (i, prev) => forPrism(fromTusk(i, op.chain && prev ? { text: JSON.stringify({ apikey: 'any-key-works' }) } : undefined)), chain: op.chain }, concurrency);
      }
      const row = { operation: id, api: op.api, requests: n, sequential: Boolean(op.chain), tusk, ...(p ? { prism: p, ratio: tusk.rps / p.rps } : {}) };
      rows.push(row);
      log(`  ${id.padEnd(36)} tusk ${tusk.rps.toFixed(0).padStart(6)} req/s p50 ${tusk.p50.toFixed(2)} p99 ${tusk.p99.toFixed(2)} ms${tusk.non2xx ? ` NON-2XX ${tusk.non2xx} (${tusk.firstBad})` : ''}${p ? `  prism ${p.rps.toFixed(0).padStart(5)} req/s p99 ${p.p99.toFixed(2)} ms${p.non2xx ? ` non-2xx ${p.non2xx}` : ''}  ${row.ratio.toFixed(1)}x` : ''}`);
    }
  } finally {
    agent.destroy();
  }
  return rows;
}
