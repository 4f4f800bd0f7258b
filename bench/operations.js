// Every operation of both documents, Tusk against `prism mock` in the same run (issue 20): for each
// operationId a valid request over `concurrency` kept-alive connections; req/s, p50 and p99 per
// server and the ratio. A request that can be sent again and again (reads, updates, restores) runs
// for a time after a warm-up, with wrk when it is on PATH (bench/load.js); one that makes or uses up
// a resource runs a fixed number of times (so that writes stay bounded), after a warm-up of the same
// kind, over connections opened before the clock starts (connectedLoad). Tusk's
// requests act on data of their own: a fixed-count operation's supply is made just before it runs
// and its accounts are reset after (so the server holds one operation's data at a time): creates
// rotate over enough instances (or accounts) to stay under every cap, deletes and removals take a
// resource made for each request, key rotations run one after the other with the key the previous
// answer gave. The
// list reads run on an account of their own with a few instances (the heavy reads, at 1,000
// instances and a busy month, are measured against the physical limit in bench/parts/heavy.js).
// Prism answers each request from the documents' examples (any key works, ids are not looked up).
//
// Used by bench/parts/every-operation.js (`npm run bench -- --only operations`).
import { request } from 'node:http';
import { autocannonLoad, connectedLoad, hasWrk, median, wrkLoad } from './load.js';

const basic = (key) => 'Basic ' + Buffer.from(`:${key}`).toString('base64');
const DAY = 86_400_000;
const stamp = (ms) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
const NEW_INSTANCE = { plan: 'hippo', region: 'amazon-web-services::us-east-1' };

/** One HTTP request (the set-up); resolves { status, text }. */
function send(base, r) {
  return new Promise((resolve) => {
    const url = new URL(base + r.path);
    const body = r.body === undefined ? undefined : JSON.stringify(r.body);
    const headers = {
      ...(r.key ? { authorization: basic(r.key) } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } : {}),
    };
    const req = request(
      { hostname: url.hostname, port: url.port, path: url.pathname + url.search, method: r.method, headers },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', (err) => resolve({ status: 0, text: err.message }));
    req.end(body);
  });
}

/** An operation's request as bench/load.js sends it. */
const wire = (r) => ({
  method: r.method,
  path: r.path,
  headers: {
    ...(r.key ? { authorization: basic(r.key) } : {}),
    ...(r.body !== undefined ? { 'content-type': 'application/json' } : {}),
  },
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
 * One operation on one server, as a warm-up and then measurements, one per call of `measure()`: a
 * repeatable one for `warmup` seconds, then `seconds` per measurement (wrk when there is one, else
 * autocannon); the others on warmCount(count) resources, then `count` more per measurement, over
 * resources make(0 ..), on connections opened before (connectedLoad). `chain`: one after the
 * other, the key of each from the previous answer's `apikey`, starting from chain.warm (the
 * warm-up) and chain.measure (the measurements, each going on from the last key of the one before).
 */
function driver(origin, { make, count, repeatable, chain }, { seconds, warmup, concurrency, useWrk }) {
  if (repeatable) {
    const requests = Array.from({ length: VARIANTS }, (_, i) => wire(make(i)));
    const spec = { origin, requests, connections: concurrency };
    const run = (secs) => (useWrk ? wrkLoad({ ...spec, seconds: secs }) : autocannonLoad({ ...spec, seconds: secs }));
    return {
      warm: async () => {
        if (warmup > 0) await run(warmup);
      },
      measure: () => run(seconds),
    };
  }
  const warm = warmCount(count);
  if (chain) {
    const run = (first, amount) =>
      connectedLoad({
        origin,
        make: (i, previous) => wire({ ...make(i), key: previous ? JSON.parse(previous).apikey : first }),
        amount,
        connections: 1,
        chain: true,
      });
    let key = chain.measure;
    return {
      warm: async () => {
        if (warm > 0) await run(chain.warm, warm);
      },
      measure: async () => {
        const r = await run(key, count);
        if (r.last) key = JSON.parse(r.last).apikey;
        return r;
      },
    };
  }
  // Items [0, warm) warm up, each measurement takes the next `count`.
  let next = warm;
  return {
    warm: async () => {
      if (warm > 0) await connectedLoad({ origin, make: (i) => wire(make(i)), amount: warm, connections: concurrency });
    },
    measure: async () => {
      const from = next;
      next += count;
      return connectedLoad({ origin, make: (i) => wire(make(from + i)), amount: count, connections: concurrency });
    },
  };
}

/** The measurements of one server: medians of rps, p50 and p99, the sums of errors, each round's figures. */
function summary(runs) {
  const firstBad = runs.find((r) => r.firstBad)?.firstBad;
  return {
    rps: median(runs.map((r) => r.rps)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    total: runs.reduce((n, r) => n + r.total, 0),
    non2xx: runs.reduce((n, r) => n + r.non2xx, 0),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    tool: runs[0].tool,
    ...(runs.every((r) => r.cpuUs !== undefined) ? { cpuUs: median(runs.map((r) => r.cpuUs)) } : {}),
    rounds: runs.map((r) => ({
      rps: Math.round(r.rps),
      p99: Math.round(r.p99 * 100) / 100,
      ...(r.cpuUs !== undefined ? { cpuUs: r.cpuUs } : {}),
    })),
    ...(firstBad ? { firstBad } : {}),
  };
}

/** Tusk's API for the set-up (throws on a non-2xx). */
async function api(base, method, path, key, body) {
  const r = await send(base, { method, path, key, body });
  if (r.status < 200 || r.status >= 300)
    throw new Error(`set-up ${method} ${path}: HTTP ${r.status} ${r.text.slice(0, 200)}`);
  return r.text ? JSON.parse(r.text) : undefined;
}

/** Runs `fn(i)` for i in [0, n) with at most `width` in flight. */
export async function pool(n, width, fn) {
  let next = 0;
  const out = new Array(n);
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}

/**
 * The data every operation shares, made through Tusk's API and controls: an account with a probe
 * instance and one item of each kind, and an account with a few instances for the list reads. What
 * an operation makes or uses up (instances to delete, accounts to create in, keys to rotate) is its
 * own supply (operations() below), made just before it runs and reset after: the server's heap holds
 * one operation's data at a time, as a client's test run does.
 */
async function prepare(t, adminKey) {
  const account = async (name) => (await api(t.customer, 'POST', '/__tusk/accounts', undefined, { name })).admin_key;
  const instancesOf = async (key, n, prefix) =>
    pool(n, 16, async (i) =>
      api(t.customer, 'POST', '/api/instances', key, { name: `${prefix}-${i}`, ...NEW_INSTANCE }),
    );
  const main = await account('bench operations');
  const [probe] = await instancesOf(main, 1, 'probe');
  const k = probe.apikey;
  const alarm = (await api(t.instance, 'GET', '/api/alarms', k))[0];
  const recipient = await api(t.instance, 'POST', '/api/alarms/recipients', k, {
    type: 'email',
    value: 'probe@example.com',
  });
  const log = await api(t.instance, 'POST', '/api/integrations/logs/logs_e', k, {
    token: 'tcp-token-0123456789abcdef',
  });
  const metric = await api(t.instance, 'POST', '/api/integrations/metrics/metrics_d_v3', k, { license_key: 'l' });
  const backup = (await api(t.instance, 'GET', '/api/backup', k))[0];
  const maintenance = (await api(t.instance, 'GET', '/api/maintenance', k))[0];
  const member = (await api(t.customer, 'GET', '/api/team', main)).find((m) => m.roles.includes('member'));
  const invoice = (await api(t.customer, 'GET', '/api/invoices', adminKey))[0];
  // The list reads: an account with a few instances (as a client's test account has).
  const reader = await account('bench reads');
  await instancesOf(reader, 3, 'read');
  return {
    t,
    account,
    instancesOf,
    reader,
    main,
    adminKey,
    k,
    alarm,
    recipient,
    log,
    metric,
    backup,
    maintenance,
    member,
    invoice,
    probeId: probe.id,
  };
}

/** Takes an account back to empty (`POST /__tusk/reset` with its admin key): what a supply made goes. */
const resetAccount = (t, key) => api(t.customer, 'POST', '/__tusk/reset', key);

/**
 * The supplies of the fixed-count operations: `n` resources each (warm-up and measurement), in
 * accounts of their own (returned as `accounts`, reset after the operation). Caps respected: an
 * account holds at most 10,000 instances and 1,000 team members; an instance 100 alarms, 100
 * recipients, 50 integrations per kind, 1,000 backups.
 */
const supplies = {
  /** `count` accounts of their own. */
  accounts: async (d, count, name) => {
    const accounts = await Promise.all(Array.from({ length: count }, (_, i) => d.account(`${name} ${i}`)));
    return { accounts, keys: accounts };
  },
  /** Instances with room for `perInstance` new items each: their keys. */
  rotation: async (d, n, perInstance, name) => {
    const owner = await d.account(name);
    const keys = (await d.instancesOf(owner, Math.ceil(n / perInstance), name)).map((x) => x.apikey);
    return { accounts: [owner], keys };
  },
  /** `n` instances to delete, over accounts of 5,000. */
  instances: async (d, n) => {
    const { accounts } = await supplies.accounts(d, Math.ceil(n / 5000), 'bench deletes');
    const items = (
      await Promise.all(accounts.map((key, a) => d.instancesOf(key, Math.min(5000, n - a * 5000), `delete-${a}`)))
    )
      .flat()
      .map((x, i) => ({ id: x.id, key: accounts[Math.floor(i / 5000)] }));
    return { accounts, items };
  },
  /** `n` items of an instance API collection, 45 per instance. */
  items: async (d, n, path, body) => {
    const owner = await d.account(`bench deletes of ${path}`);
    const holders = await d.instancesOf(owner, Math.ceil(n / 45), 'holder');
    const items = await pool(n, 16, async (i) => {
      const key = holders[Math.floor(i / 45)].apikey;
      return { key, id: (await api(d.t.instance, 'POST', path, key, body(i))).id };
    });
    return { accounts: [owner], items };
  },
  /** `n` invited members to remove, over accounts of 900 invitations. */
  invited: async (d, n) => {
    const { accounts } = await supplies.accounts(d, Math.ceil(n / 900), 'bench removals');
    const items = await pool(n, 16, async (i) => {
      const email = `removed-${i}@example.com`;
      const key = accounts[Math.floor(i / 900)];
      await api(d.t.customer, 'POST', '/api/team/invite', key, { email });
      return { key, email };
    });
    return { accounts, items };
  },
  /** `n` scheduled maintenance items to run, one per request: every instance has some (accounts of 5,000 instances). */
  maintenance: async (d, n) => {
    const accounts = [];
    const items = [];
    for (let batch = 0; items.length < n; batch++) {
      if (batch % 100 === 0) accounts.push(await d.account(`bench maintenance runs ${accounts.length}`));
      const hosts = await d.instancesOf(accounts.at(-1), 50, `run-${batch}`);
      const lists = await pool(hosts.length, 16, async (i) =>
        (await api(d.t.instance, 'GET', '/api/maintenance', hosts[i].apikey)).map((m) => ({
          ...m,
          key: hosts[i].apikey,
        })),
      );
      for (const m of lists.flat())
        if (m.status === 'scheduled' && items.length < n) items.push({ key: m.key, id: m.id });
    }
    return { accounts, items };
  },
  /** Key rotations: one chain of keys for the warm-up, another for the measurement. */
  chain: async (d, api) => {
    if (api === 'customer') {
      const [warm, measure] = [await d.account('bench key rotation warm-up'), await d.account('bench key rotation')];
      // Their keys change with every rotation: nothing is made in them, nothing to reset.
      return { accounts: [], chain: { warm, measure } };
    }
    const owner = await d.account('bench instance key rotation');
    const [warm, measure] = (await d.instancesOf(owner, 2, 'rotation')).map((x) => x.apikey);
    return { accounts: [owner], chain: { warm, measure } };
  },
};

/**
 * The request of every operation: `tusk(i, s)` against Tusk's shared data `d` and the operation's
 * supply `s` (made by `supply(n)`: `accounts` to reset after, `keys`, `items` or a `chain`).
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
    createInstance: {
      bounded: true,
      api: 'customer',
      supply: (n) => supplies.accounts(d, Math.ceil(n / 5000), 'bench creates'),
      tusk: (i, s) => ({
        method: 'POST',
        path: '/api/instances',
        key: rot(s.keys, i),
        body: { name: `created-${i}`, ...NEW_INSTANCE },
      }),
    },
    getInstance: { api: 'customer', tusk: () => ({ method: 'GET', path: `/api/instances/${d.probeId}`, key: d.main }) },
    updateInstance: {
      api: 'customer',
      tusk: (i) => ({
        method: 'PUT',
        path: `/api/instances/${d.probeId}`,
        key: d.main,
        body: { name: `renamed-${i}` },
      }),
    },
    deleteInstance: {
      api: 'customer',
      count: 'deletes',
      supply: (n) => supplies.instances(d, n),
      tusk: (i, s) => ({ method: 'DELETE', path: `/api/instances/${s.items[i].id}`, key: s.items[i].key }),
    },
    listInvoices: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/invoices', key: d.adminKey }) },
    getInvoiceForPeriod: {
      api: 'customer',
      tusk: () => ({ method: 'GET', path: `/api/invoices/period${q(period)}`, key: d.adminKey }),
    },
    getInvoice: {
      api: 'customer',
      tusk: () => ({ method: 'GET', path: `/api/invoices/${d.invoice.id}`, key: d.adminKey }),
    },
    getAuditLogCsv: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/auditlog/csv', key: d.reader }) },
    listRegions: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/regions', key: d.main }) },
    listTeamMembers: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/team', key: d.reader }) },
    inviteTeamMember: {
      bounded: true,
      api: 'customer',
      supply: (n) => supplies.accounts(d, Math.ceil(n / 900), 'bench invites'),
      tusk: (i, s) => ({
        method: 'POST',
        path: '/api/team/invite',
        key: rot(s.keys, i),
        body: { email: `invited-${i}@example.com` },
      }),
    },
    removeTeamMember: {
      api: 'customer',
      count: 'deletes',
      supply: (n) => supplies.invited(d, n),
      tusk: (i, s) => ({
        method: 'POST',
        path: '/api/team/remove',
        key: s.items[i].key,
        body: { email: s.items[i].email },
      }),
    },
    updateTeamMember: {
      api: 'customer',
      tusk: (i) => ({
        method: 'PUT',
        path: `/api/team/${d.member.id}`,
        key: d.main,
        body: { role: 'member', tags: `t${i % 7}` },
      }),
    },
    rotateApiKey: {
      api: 'customer',
      count: 'deletes',
      chain: true,
      supply: () => supplies.chain(d, 'customer'),
      tusk: () => ({ method: 'POST', path: '/api/apikeys/rotate-apikey' }),
    },
    listPlans: { api: 'customer', tusk: () => ({ method: 'GET', path: '/api/plans', key: d.main }) },
    // ---- instance ----
    listBackups: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/backup', key: d.k }) },
    createBackup: {
      bounded: true,
      api: 'instance',
      supply: (n) => supplies.rotation(d, n, 900, 'backups'),
      tusk: (i, s) => ({ method: 'POST', path: '/api/backup', key: rot(s.keys, i), body: {} }),
    },
    restoreBackup: {
      api: 'instance',
      tusk: () => ({ method: 'POST', path: '/api/backup/restore', key: d.k, body: { backup_id: d.backup.id } }),
    },
    recoverToPointInTime: {
      api: 'instance',
      tusk: () => ({
        method: 'POST',
        path: '/api/backup/pitr',
        key: d.k,
        body: { pit: stamp(now - 60 * 60_000).slice(0, 16) },
      }),
    },
    rotatePassword: {
      api: 'instance',
      tusk: () => ({ method: 'POST', path: '/api/account/rotate-password', key: d.k }),
    },
    rotateInstanceApiKey: {
      api: 'instance',
      count: 'deletes',
      chain: true,
      supply: () => supplies.chain(d, 'instance'),
      tusk: () => ({ method: 'POST', path: '/api/account/rotate-apikey' }),
    },
    createRecipient: {
      bounded: true,
      api: 'instance',
      supply: (n) => supplies.rotation(d, n, 90, 'recipients'),
      tusk: (i, s) => ({
        method: 'POST',
        path: '/api/alarms/recipients',
        key: rot(s.keys, i),
        body: { type: 'email', value: `r${i}@example.com` },
      }),
    },
    listRecipients: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/alarms/recipients', key: d.k }) },
    getRecipient: {
      api: 'instance',
      tusk: () => ({ method: 'GET', path: `/api/alarms/recipients/${d.recipient.id}`, key: d.k }),
    },
    updateRecipient: {
      api: 'instance',
      tusk: (i) => ({
        method: 'PUT',
        path: `/api/alarms/recipients/${d.recipient.id}`,
        key: d.k,
        body: { type: 'email', value: `u${i % 10}@example.com` },
      }),
    },
    deleteRecipient: {
      api: 'instance',
      count: 'deletes',
      supply: (n) =>
        supplies.items(d, n, '/api/alarms/recipients', (i) => ({ type: 'email', value: `d${i}@example.com` })),
      tusk: (i, s) => ({ method: 'DELETE', path: `/api/alarms/recipients/${s.items[i].id}`, key: s.items[i].key }),
    },
    createAlarm: {
      bounded: true,
      api: 'instance',
      supply: (n) => supplies.rotation(d, n, 90, 'alarms'),
      tusk: (i, s) => ({
        method: 'POST',
        path: '/api/alarms',
        key: rot(s.keys, i),
        body: { type: 'cpu', value_threshold: 80, time_threshold: 300 },
      }),
    },
    listAlarms: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/alarms', key: d.k }) },
    getAlarm: { api: 'instance', tusk: () => ({ method: 'GET', path: `/api/alarms/${d.alarm.id}`, key: d.k }) },
    updateAlarm: {
      api: 'instance',
      tusk: (i) => ({
        method: 'PUT',
        path: `/api/alarms/${d.alarm.id}`,
        key: d.k,
        body: { type: d.alarm.type, value_threshold: 80 + (i % 10) },
      }),
    },
    deleteAlarm: {
      api: 'instance',
      count: 'deletes',
      supply: (n) => supplies.items(d, n, '/api/alarms', () => ({ type: 'notice' })),
      tusk: (i, s) => ({ method: 'DELETE', path: `/api/alarms/${s.items[i].id}`, key: s.items[i].key }),
    },
    listLogIntegrations: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/integrations/logs', key: d.k }) },
    getLogIntegration: {
      api: 'instance',
      tusk: () => ({ method: 'GET', path: `/api/integrations/logs/${d.log.id}`, key: d.k }),
    },
    createLogIntegration: {
      bounded: true,
      api: 'instance',
      supply: (n) => supplies.rotation(d, n, 45, 'logs'),
      tusk: (i, s) => ({
        method: 'POST',
        path: '/api/integrations/logs/logs_e',
        key: rot(s.keys, i),
        body: { token: `token-${i}` },
      }),
    },
    updateLogIntegration: {
      api: 'instance',
      tusk: (i) => ({
        method: 'PUT',
        path: `/api/integrations/logs/${d.log.id}`,
        key: d.k,
        body: { token: `token-u${i % 10}` },
      }),
    },
    deleteLogIntegration: {
      api: 'instance',
      count: 'deletes',
      supply: (n) => supplies.items(d, n, '/api/integrations/logs/logs_e', (i) => ({ token: `t-${i}` })),
      tusk: (i, s) => ({ method: 'DELETE', path: `/api/integrations/logs/${s.items[i].id}`, key: s.items[i].key }),
    },
    updateLogIntegrationWithSystem: {
      api: 'instance',
      tusk: (i) => ({
        method: 'PUT',
        path: `/api/integrations/logs/logs_e/${d.log.id}`,
        key: d.k,
        body: { token: `token-s${i % 10}` },
      }),
    },
    listMetricsIntegrations: {
      api: 'instance',
      tusk: () => ({ method: 'GET', path: '/api/integrations/metrics', key: d.k }),
    },
    getMetricsIntegration: {
      api: 'instance',
      tusk: () => ({ method: 'GET', path: `/api/integrations/metrics/${d.metric.id}`, key: d.k }),
    },
    createMetricsIntegration: {
      bounded: true,
      api: 'instance',
      supply: (n) => supplies.rotation(d, n, 45, 'metrics'),
      tusk: (i, s) => ({
        method: 'POST',
        path: '/api/integrations/metrics/metrics_d_v3',
        key: rot(s.keys, i),
        body: { license_key: `l-${i}` },
      }),
    },
    updateMetricsIntegration: {
      api: 'instance',
      tusk: (i) => ({
        method: 'PUT',
        path: `/api/integrations/metrics/${d.metric.id}`,
        key: d.k,
        body: { license_key: `l-u${i % 10}` },
      }),
    },
    deleteMetricsIntegration: {
      api: 'instance',
      count: 'deletes',
      supply: (n) => supplies.items(d, n, '/api/integrations/metrics/metrics_d_v3', (i) => ({ license_key: `l-${i}` })),
      tusk: (i, s) => ({ method: 'DELETE', path: `/api/integrations/metrics/${s.items[i].id}`, key: s.items[i].key }),
    },
    updateMetricsIntegrationWithSystem: {
      api: 'instance',
      tusk: (i) => ({
        method: 'PUT',
        path: `/api/integrations/metrics/metrics_d_v3/${d.metric.id}`,
        key: d.k,
        body: { license_key: `l-s${i % 10}` },
      }),
    },
    listMaintenance: { api: 'instance', tusk: () => ({ method: 'GET', path: '/api/maintenance', key: d.k }) },
    rescheduleMaintenance: {
      api: 'instance',
      tusk: () => ({
        method: 'PUT',
        path: `/api/maintenance/${d.maintenance.id}`,
        key: d.k,
        body: { scheduled_by: maintenanceAt },
      }),
    },
    runMaintenance: {
      api: 'instance',
      count: 'deletes',
      supply: (n) => supplies.maintenance(d, n),
      tusk: (i, s) => ({ method: 'POST', path: `/api/maintenance/${s.items[i].id}`, key: s.items[i].key }),
    },
  };
}

/** Prism's version of a request: the same method, path (ids stay numbers), query and body; any key. */
const forPrism = (r) => ({ ...r, key: 'any-key-works' });

/**
 * Runs the table. `t`: Tusk's URLs ({ customer, instance }); `prism`: Prism's ({ customer, instance })
 * or undefined; `settle()` resolves when the servers are idle. Returns one row per operationId, in
 * document order.
 */
export async function operationsBench({
  t,
  prism,
  adminKey,
  operationIds,
  count = 5000,
  deletes = 5000,
  seconds = 3,
  warmup = 1,
  rounds = 3,
  concurrency = 50,
  useWrk = hasWrk,
  settle = async () => {},
  tuskCpuMs = () => undefined,
  log = console.log,
}) {
  const now = Date.now();
  const t0 = performance.now();
  const d = await prepare(t, adminKey);
  log(`  set-up of the shared data: ${Math.round(performance.now() - t0)} ms`);
  const ops = operations(d, now);
  const missing = operationIds.filter((id) => !ops[id]);
  if (missing.length) throw new Error(`bench/operations.js has no request for: ${missing.join(', ')}`);
  const rows = [];
  const timing = { seconds, warmup, concurrency, useWrk };
  const runtime = `${t.customer}/__tusk/runtime`;
  for (const id of operationIds) {
    const op = ops[id];
    const repeatable = !op.bounded && !op.chain && op.count !== 'deletes';
    const n = op.count === 'deletes' ? deletes : count;
    // Each fixed-count operation warms up on as many resources as one measurement takes.
    const s = op.supply ? await op.supply(warmCount(n) + rounds * n) : { accounts: [] };
    const make = (i) => op.tusk(i, s);
    const tusk = driver(t[op.api], { count: n, make, repeatable, chain: s.chain }, timing);
    // Prism takes any key and looks no id up: the same requests, a placeholder key.
    const any = forPrism({}).key;
    const p =
      prism &&
      driver(
        prism[op.api],
        { count: n, make: (i) => forPrism(make(i)), repeatable, chain: s.chain && { warm: any, measure: any } },
        timing,
      );
    await tusk.warm();
    if (p) await p.warm();
    // The servers in turn, `rounds` times: a slower minute of the shared machine falls on both.
    // Each measurement starts once both are idle. Tusk's event-loop delay over each of its
    // measurements: how long one request held up the others.
    const tuskRuns = [];
    const prismRuns = [];
    const delays = [];
    for (let r = 0; r < rounds; r++) {
      await settle();
      await fetch(runtime, { method: 'DELETE' });
      const cpuBefore = tuskCpuMs();
      const run = await tusk.measure();
      const cpuAfter = tuskCpuMs();
      // What a request cost Tusk's process (CPU µs): the shared machine's other load moves it far less than req/s.
      if (cpuBefore !== undefined && cpuAfter !== undefined && run.total > 0)
        run.cpuUs = Math.round(((cpuAfter - cpuBefore) * 1000) / run.total);
      tuskRuns.push(run);
      delays.push((await (await fetch(runtime)).json()).event_loop_delay_ms);
      if (p) {
        await settle();
        prismRuns.push(await p.measure());
      }
    }
    for (const key of s.accounts) await resetAccount(t, key);
    const ts = summary(tuskRuns);
    ts.eventLoopDelayMs = { p99: median(delays.map((x) => x.p99)), max: Math.max(...delays.map((x) => x.max)) };
    const ps = p ? summary(prismRuns) : undefined;
    const row = {
      operation: id,
      api: op.api,
      mode: repeatable ? `${seconds} s` : `${n} requests`,
      rounds,
      tool: ts.tool,
      sequential: Boolean(op.chain),
      tusk: ts,
      ...(ps ? { prism: ps, ratio: ts.rps / ps.rps } : {}),
    };
    rows.push(row);
    log(
      `  ${id.padEnd(36)} tusk ${ts.rps.toFixed(0).padStart(6)} req/s p50 ${ts.p50.toFixed(2)} p99 ${ts.p99.toFixed(2)} ms (loop delay p99 ${ts.eventLoopDelayMs.p99}, max ${ts.eventLoopDelayMs.max}${ts.cpuUs !== undefined ? `; ${ts.cpuUs} µs CPU/request` : ''})${ts.non2xx ? ` NON-2XX ${ts.non2xx} (${ts.firstBad ?? 'see wrk'})` : ''}${ps ? `  prism ${ps.rps.toFixed(0).padStart(5)} req/s p99 ${ps.p99.toFixed(2)} ms${ps.non2xx ? ` non-2xx ${ps.non2xx}` : ''}  ${row.ratio.toFixed(1)}x` : ''}  (${rounds} x ${row.mode}, ${ts.tool}; rounds ${ts.rounds.map((x) => x.rps).join('/')})`,
    );
  }
  return rows;
}
