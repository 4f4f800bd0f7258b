// Tusk's API, for the set-up of the workloads: requests to a running Tusk, an account grown to a
// number of instances, the state the Tusk workloads read (1,000 instances, a busy audit month, an
// instance's key) and the instances whose keys POST /api/alarms spreads over.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { log } from './options.js';
import { BENCH } from './paths.js';
import { ADMIN_KEY, basic } from './starters.js';
import { pool } from '../operations.js';

const ALARMS_JSON = readFileSync(join(BENCH, 'servers', 'alarms.json'), 'utf8').trim();
const NEW_INSTANCE = { plan: 'hippo', region: 'amazon-web-services::us-east-1' };

export async function api(base, method, path, key, body) {
  const res = await fetch(base + path, {
    method,
    headers: {
      ...(key !== undefined ? { authorization: basic(key) } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 300)}`);
  return { status: res.status, text, json: () => JSON.parse(text) };
}

/** Creates instances until the account (of `key`, the admin's by default) has `total`; resolves the created ones ({id, apikey}). */
export async function growTo(t, total, prefix, key = ADMIN_KEY) {
  const have = (await api(t.customer, 'GET', '/api/instances', key)).json().length;
  return pool(Math.max(0, total - have), 16, async (i) =>
    (await api(t.customer, 'POST', '/api/instances', key, { name: `${prefix}-${i}`, ...NEW_INSTANCE })).json(),
  );
}

/** The Tusk workloads' state: an account with 1,000 instances, a busy audit month, keys. */
export async function prepareTusk(t) {
  const created = await growTo(t, 1000, 'bench');
  // A busy month: every creation above is an audit row; renames add as many again.
  await pool(created.length, 16, (i) =>
    api(t.customer, 'PUT', `/api/instances/${created[i].id}`, ADMIN_KEY, { name: `bench-renamed-${i}` }),
  );
  const csv = (await api(t.customer, 'GET', '/api/auditlog/csv', ADMIN_KEY)).text;
  const getKey = created[0].apikey;
  const alarms = (await api(t.instance, 'GET', '/api/alarms', getKey)).text;
  if (alarms !== ALARMS_JSON)
    log(`  warning: Tusk's GET /api/alarms differs from bench/servers/alarms.json:\n  ${alarms}`);
  const backups = (await api(t.instance, 'GET', '/api/backup', getKey)).json().length;
  return { getKey, auditRows: csv.trim().split('\n').length - 1, instances: 1000, backups };
}

/**
 * Keys for POST /api/alarms: an instance holds at most 100 alarms (src/core/limits.ts), so the
 * POSTs are spread over this many further instances, created just before (after the other
 * workloads, which see the account with 1,000 instances): room for 96 x 3,000 alarms.
 */
export const POST_INSTANCES = 3000;
export async function preparePosts(t) {
  const created = await pool(POST_INSTANCES, 16, async (i) =>
    (await api(t.customer, 'POST', '/api/instances', ADMIN_KEY, { name: `post-${i}`, ...NEW_INSTANCE })).json(),
  );
  return created.map((c) => basic(c.apikey));
}
