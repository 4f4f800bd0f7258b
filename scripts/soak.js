#!/usr/bin/env node
// `npm run soak`: 50 concurrent clients for 60 s against `tusk serve` on loopback, doing mixed
// creates, updates, deletes and reads of instances (customer API) and of their alarms and
// recipients (instance API, each instance with its own key, rotated now and then). Each client
// keeps a model of what the server acknowledged. Afterwards a consistency check reads everything
// back: every acknowledged write is present with its last acknowledged value, every deleted thing
// is gone (and 404), ids are unique and never reused, and no request got a 5xx. Prints the figures
// and writes them to reports/soak.json; exits 1 when anything was lost, wrong or 5xx.
//
//   node scripts/soak.js [--clients 50] [--seconds 60] [--seed N] [--out reports/soak.json]
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, ROOT, random, rssMiB, startServer } from './load-driver.js';

const { values: flags } = parseArgs({
  options: {
    clients: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '60' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    out: { type: 'string', default: join(ROOT, 'reports', 'soak.json') },
  },
});
const CLIENTS = Number(flags.clients);
const SECONDS = Number(flags.seconds);
const SEED = Number(flags.seed);

const server = await startServer(['--rate-limit', '100000000/1', '--provision-delay', '0']);
const { customerUrl, instanceUrl, adminKey } = server;
const http = new Client({ maxSockets: CLIENTS + 8 });
const rssStart = rssMiB(server.child.pid);

const plans = (await http.send(customerUrl, 'GET', '/api/plans', adminKey)).json;
const regions = (await http.send(customerUrl, 'GET', '/api/regions', adminKey)).json;
const plan = plans.find((p) => !p.shared).name;
const region = `${regions[0].provider}::${regions[0].region}`;

const figures = { writesAcknowledged: 0, unexpected: [], staleReads: [], instancesCreated: 0, instancesDeleted: 0 };
/** Every instance id createInstance acknowledged, in order (ids must never repeat). */
const createdInstanceIds = [];
/** Alarm and recipient ids acknowledged per instance. */
const createdItemIds = new Map();
const deletedInstances = new Set();
const uncertain = new Set();

function unexpected(what, res, expected) {
  if (figures.unexpected.length < 50)
    figures.unexpected.push(`${what}: expected ${expected}, got ${res.status} ${res.text.slice(0, 160)}`);
  else figures.unexpected.push(null);
}

class Actor {
  constructor(n) {
    this.n = n;
    this.rnd = random(SEED + n * 7919);
    this.counter = 0;
    /** id -> { key, name, alarms: Map(id -> {value_threshold, enabled}), recipients: Map(id -> {value, name}), deletedAlarms, deletedRecipients } */
    this.instances = new Map();
  }

  pick(collection) {
    const items = [...collection];
    return items.length ? items[Math.floor(this.rnd() * items.length)] : undefined;
  }

  async step() {
    const r = this.rnd();
    const inst = this.pick(this.instances.entries());
    if (!inst || (r < 0.04 && this.instances.size < 4)) return this.createInstance();
    const [id, m] = inst;
    if (r < 0.06 && this.instances.size > 2) return this.deleteInstance(id);
    if (r < 0.12) return this.updateInstance(id, m);
    if (r < 0.18) return this.getInstance(id, m);
    if (r < 0.19) return this.rotateKey(id, m);
    if (r < 0.3) return m.alarms.size < 15 ? this.createAlarm(id, m) : this.deleteAlarm(id, m);
    if (r < 0.4) return this.updateAlarm(id, m);
    if (r < 0.46) return this.deleteAlarm(id, m);
    if (r < 0.52) return m.recipients.size < 10 ? this.createRecipient(id, m) : this.deleteRecipient(id, m);
    if (r < 0.58) return this.updateRecipient(id, m);
    if (r < 0.62) return this.deleteRecipient(id, m);
    if (r < 0.74) return this.getAlarm(id, m);
    if (r < 0.84) return this.listAlarms(id, m);
    if (r < 0.92) return this.listRecipients(id, m);
    if (r < 0.96) return this.read(instanceUrl, '/api/maintenance', m.key);
    if (r < 0.98) return this.read(instanceUrl, '/api/backup', m.key);
    return this.read(customerUrl, '/api/instances', adminKey);
  }

  async read(base, path, key) {
    const res = await http.send(base, 'GET', path, key);
    if (res.status !== 200) unexpected(`GET ${path}`, res, 200);
  }

  async createInstance() {
    const name = `soak-${this.n}-${++this.counter}`;
    const res = await http.send(customerUrl, 'POST', '/api/instances', adminKey, { name, plan, region });
    if (res.status !== 200) return unexpected('createInstance', res, 200);
    figures.writesAcknowledged++;
    figures.instancesCreated++;
    createdInstanceIds.push(res.json.id);
    createdItemIds.set(res.json.id, { alarms: [], recipients: [] });
    this.instances.set(res.json.id, {
      key: res.json.apikey,
      name,
      alarms: new Map(),
      recipients: new Map(),
      deletedAlarms: new Set(),
      deletedRecipients: new Set(),
    });
  }

  async deleteInstance(id) {
    const res = await http.send(customerUrl, 'DELETE', `/api/instances/${id}`, adminKey);
    if (res.status !== 204 && res.status !== 200) {
      uncertain.add(`instance ${id}`);
      return unexpected('deleteInstance', res, 204);
    }
    figures.writesAcknowledged++;
    figures.instancesDeleted++;
    this.instances.delete(id);
    deletedInstances.add(id);
  }

  async updateInstance(id, m) {
    const name = `soak-${this.n}-${++this.counter}-renamed`;
    const res = await http.send(customerUrl, 'PUT', `/api/instances/${id}`, adminKey, { name });
    if (res.status !== 200) {
      uncertain.add(`instance ${id}`);
      return unexpected('updateInstance', res, 200);
    }
    figures.writesAcknowledged++;
    m.name = name;
  }

  async getInstance(id, m) {
    const res = await http.send(customerUrl, 'GET', `/api/instances/${id}`, adminKey);
    if (res.status !== 200) return unexpected('getInstance', res, 200);
    if (!uncertain.has(`instance ${id}`) && (res.json.name !== m.name || res.json.apikey !== m.key))
      figures.staleReads.push(`getInstance ${id}: ${res.json.name} / ${m.name}`);
  }

  async rotateKey(id, m) {
    const res = await http.send(instanceUrl, 'POST', '/api/account/rotate-apikey', m.key);
    if (res.status !== 200) {
      uncertain.add(`instance ${id}`);
      return unexpected('rotateInstanceApiKey', res, 200);
    }
    figures.writesAcknowledged++;
    m.key = res.json.apikey;
  }

  async createAlarm(id, m) {
    const value_threshold = 1 + Math.floor(this.rnd() * 100);
    const res = await http.send(instanceUrl, 'POST', '/api/alarms', m.key, {
      type: 'cpu',
      value_threshold,
      time_threshold: 60,
    });
    if (res.status !== 200) return unexpected('createAlarm', res, 200);
    figures.writesAcknowledged++;
    createdItemIds.get(id).alarms.push(res.json.id);
    m.alarms.set(res.json.id, { value_threshold, enabled: true });
  }

  async updateAlarm(id, m) {
    const alarm = this.pick(m.alarms.keys());
    if (alarm === undefined) return this.createAlarm(id, m);
    const change = { value_threshold: 1 + Math.floor(this.rnd() * 100), enabled: this.rnd() < 0.5 };
    const res = await http.send(instanceUrl, 'PUT', `/api/alarms/${alarm}`, m.key, { type: 'cpu', ...change });
    if (res.status !== 200) {
      uncertain.add(`alarm ${id}/${alarm}`);
      return unexpected('updateAlarm', res, 200);
    }
    figures.writesAcknowledged++;
    m.alarms.set(alarm, change);
  }

  async deleteAlarm(id, m) {
    const alarm = this.pick(m.alarms.keys());
    if (alarm === undefined) return this.createAlarm(id, m);
    const res = await http.send(instanceUrl, 'DELETE', `/api/alarms/${alarm}`, m.key);
    if (res.status !== 204 && res.status !== 200) {
      uncertain.add(`alarm ${id}/${alarm}`);
      return unexpected('deleteAlarm', res, 204);
    }
    figures.writesAcknowledged++;
    m.alarms.delete(alarm);
    m.deletedAlarms.add(alarm);
  }

  async getAlarm(id, m) {
    const alarm = this.pick(m.alarms.keys());
    if (alarm === undefined) return this.read(instanceUrl, '/api/alarms', m.key);
    const res = await http.send(instanceUrl, 'GET', `/api/alarms/${alarm}`, m.key);
    if (res.status !== 200) return unexpected('getAlarm', res, 200);
    const want = m.alarms.get(alarm);
    if (
      !uncertain.has(`alarm ${id}/${alarm}`) &&
      (res.json.value_threshold !== want.value_threshold || res.json.enabled !== want.enabled)
    ) {
      figures.staleReads.push(`getAlarm ${id}/${alarm}: ${JSON.stringify(res.json)} / ${JSON.stringify(want)}`);
    }
  }

  async listAlarms(id, m) {
    const res = await http.send(instanceUrl, 'GET', '/api/alarms', m.key);
    if (res.status !== 200) return unexpected('listAlarms', res, 200);
    const byId = new Map(res.json.map((a) => [a.id, a]));
    for (const [alarm, want] of m.alarms) {
      const got = byId.get(alarm);
      if (
        !uncertain.has(`alarm ${id}/${alarm}`) &&
        (!got || got.value_threshold !== want.value_threshold || got.enabled !== want.enabled)
      )
        figures.staleReads.push(`listAlarms ${id}/${alarm}`);
    }
  }

  async createRecipient(id, m) {
    const value = `soak-${this.n}-${++this.counter}@example.com`;
    const name = `r${this.counter}`;
    const res = await http.send(instanceUrl, 'POST', '/api/alarms/recipients', m.key, { type: 'email', value, name });
    if (res.status !== 200) return unexpected('createRecipient', res, 200);
    figures.writesAcknowledged++;
    createdItemIds.get(id).recipients.push(res.json.id);
    m.recipients.set(res.json.id, { value, name: res.json.name });
  }

  async updateRecipient(id, m) {
    const recipient = this.pick(m.recipients.keys());
    if (recipient === undefined) return this.createRecipient(id, m);
    const value = `soak-${this.n}-${++this.counter}-updated@example.com`;
    const res = await http.send(instanceUrl, 'PUT', `/api/alarms/recipients/${recipient}`, m.key, {
      type: 'email',
      value,
    });
    if (res.status !== 200) {
      uncertain.add(`recipient ${id}/${recipient}`);
      return unexpected('updateRecipient', res, 200);
    }
    figures.writesAcknowledged++;
    m.recipients.get(recipient).value = value;
  }

  async deleteRecipient(id, m) {
    const recipient = this.pick(m.recipients.keys());
    if (recipient === undefined) return this.createRecipient(id, m);
    const res = await http.send(instanceUrl, 'DELETE', `/api/alarms/recipients/${recipient}`, m.key);
    if (res.status !== 204 && res.status !== 200) {
      uncertain.add(`recipient ${id}/${recipient}`);
      return unexpected('deleteRecipient', res, 204);
    }
    figures.writesAcknowledged++;
    m.recipients.delete(recipient);
    m.deletedRecipients.add(recipient);
  }

  async listRecipients(id, m) {
    const res = await http.send(instanceUrl, 'GET', '/api/alarms/recipients', m.key);
    if (res.status !== 200) return unexpected('listRecipients', res, 200);
    const byId = new Map(res.json.map((x) => [x.id, x]));
    for (const [recipient, want] of m.recipients) {
      if (!uncertain.has(`recipient ${id}/${recipient}`) && byId.get(recipient)?.value !== want.value)
        figures.staleReads.push(`listRecipients ${id}/${recipient}`);
    }
  }
}

// ---- the load ----
console.log(`soak: ${CLIENTS} clients for ${SECONDS} s against ${customerUrl} and ${instanceUrl} (seed ${SEED})`);
const actors = Array.from({ length: CLIENTS }, (_, i) => new Actor(i));
const started = performance.now();
const deadline = started + SECONDS * 1000;
let lastReport = started;
await Promise.all(
  actors.map(async (a) => {
    while (performance.now() < deadline) {
      await a.step();
      if (a.n === 0 && performance.now() - lastReport > 10_000) {
        lastReport = performance.now();
        console.log(
          `soak: ${Math.round((lastReport - started) / 1000)} s, ${http.requests} requests, server ${rssMiB(server.child.pid)} MiB`,
        );
      }
    }
  }),
);
const elapsed = (performance.now() - started) / 1000;
const rssEnd = rssMiB(server.child.pid);
const loadRequests = http.requests;
const loadStatuses = { ...http.statuses };
const p50 = http.percentile(50);
const p99 = http.percentile(99);

// ---- the consistency check ----
const lost = [];
const phantoms = [];
const duplicates = [];
const check = new Client({ maxSockets: 8 });
const listed = (await check.send(customerUrl, 'GET', '/api/instances', adminKey)).json;
const listedIds = new Map(listed.map((i) => [i.id, i]));
if (new Set(listed.map((i) => i.id)).size !== listed.length) duplicates.push('listInstances lists an id twice');
if (new Set(createdInstanceIds).size !== createdInstanceIds.length)
  duplicates.push('createInstance handed out an id twice');
let checkedItems = 0;
for (const id of deletedInstances) {
  if (listedIds.has(id)) phantoms.push(`deleted instance ${id} is listed`);
  const res = await check.send(customerUrl, 'GET', `/api/instances/${id}`, adminKey);
  if (res.status !== 404) phantoms.push(`deleted instance ${id}: GET answers ${res.status}`);
}
for (const a of actors) {
  for (const [id, m] of a.instances) {
    checkedItems++;
    const sure = !uncertain.has(`instance ${id}`);
    if (!listedIds.has(id)) lost.push(`instance ${id} is not listed`);
    else if (sure && listedIds.get(id).name !== m.name)
      lost.push(`instance ${id}: name ${listedIds.get(id).name}, acknowledged ${m.name}`);
    const alarms = (await check.send(instanceUrl, 'GET', '/api/alarms', m.key)).json;
    const recipients = (await check.send(instanceUrl, 'GET', '/api/alarms/recipients', m.key)).json;
    if (!Array.isArray(alarms) || !Array.isArray(recipients)) {
      if (sure) lost.push(`instance ${id}: its acknowledged key does not open it`);
      continue;
    }
    const alarmById = new Map(alarms.map((x) => [x.id, x]));
    const recipientById = new Map(recipients.map((x) => [x.id, x]));
    if (alarmById.size !== alarms.length || recipientById.size !== recipients.length)
      duplicates.push(`instance ${id}: an id is listed twice`);
    const ids = createdItemIds.get(id);
    if (new Set(ids.alarms).size !== ids.alarms.length || new Set(ids.recipients).size !== ids.recipients.length)
      duplicates.push(`instance ${id}: an alarm or recipient id was handed out twice`);
    for (const [alarm, want] of m.alarms) {
      checkedItems++;
      if (uncertain.has(`alarm ${id}/${alarm}`)) continue;
      const got = alarmById.get(alarm);
      if (!got) lost.push(`alarm ${id}/${alarm} is gone`);
      else if (got.value_threshold !== want.value_threshold || got.enabled !== want.enabled)
        lost.push(`alarm ${id}/${alarm}: ${JSON.stringify(got)}, acknowledged ${JSON.stringify(want)}`);
    }
    for (const alarm of m.deletedAlarms) {
      checkedItems++;
      if (alarmById.has(alarm) && !uncertain.has(`alarm ${id}/${alarm}`))
        phantoms.push(`deleted alarm ${id}/${alarm} is listed`);
    }
    for (const [recipient, want] of m.recipients) {
      checkedItems++;
      if (uncertain.has(`recipient ${id}/${recipient}`)) continue;
      const got = recipientById.get(recipient);
      if (!got) lost.push(`recipient ${id}/${recipient} is gone`);
      else if (got.value !== want.value)
        lost.push(`recipient ${id}/${recipient}: ${got.value}, acknowledged ${want.value}`);
    }
    for (const recipient of m.deletedRecipients) {
      checkedItems++;
      if (recipientById.has(recipient) && !uncertain.has(`recipient ${id}/${recipient}`))
        phantoms.push(`deleted recipient ${id}/${recipient} is listed`);
    }
  }
}
check.close();
http.close();
server.child.kill('SIGTERM');

const fiveXX = Object.entries(loadStatuses)
  .filter(([s]) => Number(s) >= 500)
  .reduce((n, [, c]) => n + c, 0);
const errors = figures.unexpected.length + http.networkErrors;
const report = {
  date: new Date().toISOString(),
  clients: CLIENTS,
  seconds: Math.round(elapsed * 10) / 10,
  seed: SEED,
  requests: loadRequests,
  requestsPerSecond: Math.round(loadRequests / elapsed),
  statuses: loadStatuses,
  errors,
  serverErrors5xx: fiveXX,
  networkErrors: http.networkErrors,
  writesAcknowledged: figures.writesAcknowledged,
  instancesCreated: figures.instancesCreated,
  instancesDeleted: figures.instancesDeleted,
  itemsChecked: checkedItems,
  lostWrites: lost.length,
  deletedButPresent: phantoms.length,
  duplicateIds: duplicates.length,
  staleReads: figures.staleReads.length,
  latencyMs: { p50, p99 },
  serverRssMiB: { start: rssStart, end: rssEnd },
  details: {
    unexpected: figures.unexpected.filter(Boolean).slice(0, 20),
    lost: lost.slice(0, 20),
    phantoms: phantoms.slice(0, 20),
    duplicates,
    staleReads: figures.staleReads.slice(0, 20),
  },
};
const out = resolve(flags.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
console.log(
  `soak: ${report.requests} requests in ${report.seconds} s (${report.requestsPerSecond}/s) by ${CLIENTS} clients; errors ${errors} (5xx ${fiveXX}); ` +
    `${report.writesAcknowledged} acknowledged writes, lost writes ${report.lostWrites}, deleted but present ${report.deletedButPresent}, duplicate ids ${report.duplicateIds}, stale reads ${report.staleReads}; ` +
    `p50 ${p50} ms, p99 ${p99} ms; server ${rssStart} -> ${rssEnd} MiB; ${out}`,
);
const ok =
  errors === 0 &&
  fiveXX === 0 &&
  lost.length === 0 &&
  phantoms.length === 0 &&
  duplicates.length === 0 &&
  figures.staleReads.length === 0;
if (!ok) console.error(JSON.stringify(report.details, null, 2));
process.exit(ok ? 0 : 1);
