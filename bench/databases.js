#!/usr/bin/env node
// `npm run bench:databases`: the figures of the database engine, measured side by side in one run
// on this machine: start-up of `tusk serve` to its first 200 with the embedded engine and without
// it, create-instance to `ready` with a real database, a backup and a restore of a 10 MB database,
// and the resident memory of Tusk plus its Postgres server when idle. Then at size (`--instances N`,
// default 1,000; 0 skips it): N instances created to ready, the disk each takes, the time a stop
// takes, the first answer of a start right after that stop, and the same after a SIGKILL (a crash,
// a CI job's timeout) of a server holding N instances. Needs `npm run build`. Prints one JSON
// object (and writes bench/results/databases.json).
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(root, 'bin', 'tusk.js');
const ADMIN = {
  authorization: `Basic ${Buffer.from(':tusk-admin-key').toString('base64')}`,
  'content-type': 'application/json',
};
const keyAuth = (key) => ({
  authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}`,
  'content-type': 'application/json',
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const { values: args } = parseArgs({ options: { instances: { type: 'string', default: '1000' } } });
const AT_SIZE = Number(args.instances);

async function serve(databases) {
  const t0 = performance.now();
  const p = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--customer-port',
      '0',
      '--instance-port',
      '0',
      '--quiet',
      '--provision-delay',
      '0',
      '--rate-limit',
      '1000000/1',
      '--databases',
      databases,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (out += d));
  while (!/instance API\s+http/.test(out) || !/customer API\s+(http:\/\/\S+)/.test(out)) await sleep(2);
  const customer = /customer API\s+(http:\/\/\S+)/.exec(out)[1];
  const instance = /instance API\s+(http:\/\/\S+)/.exec(out)[1];
  for (;;) {
    try {
      if ((await fetch(`${customer}/api/plans`, { headers: ADMIN })).status === 200) break;
    } catch {
      /* not listening yet */
    }
    await sleep(2);
  }
  return { p, customer, instance, firstOkMs: performance.now() - t0, out: () => out };
}

/** Stops a server; resolves with the ms from the signal to its exit. */
async function stop(s, signal = 'SIGTERM') {
  const exited = new Promise((r) => s.p.once('exit', r));
  const t0 = performance.now();
  s.p.kill(signal);
  await exited;
  return performance.now() - t0;
}

const json = async (url, init = {}) => {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
};

async function ready(s, id) {
  for (;;) {
    const got = await json(`${s.customer}/api/instances/${id}`, { headers: ADMIN });
    if (got.body.ready) return got.body;
    await sleep(5);
  }
}

function rssKb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
}

const off = await serve('off');
const offStart = off.firstOkMs;
await stop(off);
const on = await serve('embedded');
const onStart = on.firstOkMs;
while (!/databases\s+ready/.test(on.out())) await sleep(10);

const createTimes = [];
let last;
for (let i = 0; i < 5; i++) {
  const t0 = performance.now();
  const created = await json(`${on.customer}/api/instances`, {
    method: 'POST',
    headers: ADMIN,
    body: JSON.stringify({ name: `bench-${i}`, plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
  });
  last = await ready(on, created.body.id);
  createTimes.push(performance.now() - t0);
}
const client = new pg.Client({ connectionString: last.url });
await client.connect();
await client.query(
  'create table filler as select g as id, repeat(md5(g::text), 8) as pad from generate_series(1, 30000) g',
);
const size = Number((await client.query('select pg_database_size(current_database()) as s')).rows[0].s);
await client.end();
let t0 = performance.now();
await json(`${on.instance}/api/backup`, { method: 'POST', headers: keyAuth(last.apikey), body: '{}' });
await fetch(`${on.customer}/__tusk/clock`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: '{"advance": "10s"}',
});
const backups = (await json(`${on.instance}/api/backup`, { headers: keyAuth(last.apikey) })).body;
// The snapshot is made in the background: the backup's size becomes the real one when it is done.
while ((await json(`${on.instance}/api/backup`, { headers: keyAuth(last.apikey) })).body[0].size < size / 2)
  await sleep(5);
const backupMs = performance.now() - t0;
t0 = performance.now();
await json(`${on.instance}/api/backup/restore`, {
  method: 'POST',
  headers: keyAuth(last.apikey),
  body: JSON.stringify({ backup_id: backups[0].id }),
});
await ready(on, last.id); // not ready while the database is replaced
for (;;) {
  const c = new pg.Client({ connectionString: last.url });
  try {
    await c.connect();
    await c.query('select count(*) from filler');
    await c.end();
    break;
  } catch {
    await c.end().catch(() => undefined);
    await sleep(5);
  }
}
const restoreMs = performance.now() - t0;
await sleep(1500);
const postmaster = execFileSync('pgrep', ['-f', `postgres -D .*tusk-pg-${on.p.pid}-`], { encoding: 'utf8' })
  .trim()
  .split('\n')
  .filter(Boolean)
  .map(Number);
const children = postmaster.flatMap((pid) => {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
});
// The postmaster and its server processes (checkpointer, writers, ...): RSS counts their shared memory in each.
const postgresPids = [...postmaster, ...children];
const engineRssKb = postgresPids.reduce((sum, pid) => sum + rssKb(pid), 0);
const tuskRssKb = rssKb(on.p.pid);
await stop(on);

/** N instances created (16 requests at a time) to ready; the server's data directory. */
async function fillWith(s, n) {
  const t0 = performance.now();
  const latencies = [];
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const t = performance.now();
      const created = await json(`${s.customer}/api/instances`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({ name: `scale-${i}`, plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
      });
      await ready(s, created.body.id);
      latencies.push(performance.now() - t);
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  latencies.sort((a, b) => a - b);
  const dir = readdirSync(tmpdir()).find((d) => d.startsWith(`tusk-pg-${s.p.pid}-`));
  const bytes = Number(execFileSync('du', ['-sb', join(tmpdir(), dir)], { encoding: 'utf8' }).split('\t')[0]);
  return {
    all_ready_ms: performance.now() - t0,
    median_ms: latencies[Math.floor(n / 2)],
    p99_ms: latencies[Math.floor(n * 0.99)],
    dir: join(tmpdir(), dir),
    bytes,
  };
}

let scale;
if (AT_SIZE > 0) {
  const big = await serve('embedded');
  while (!/databases\s+ready/.test(big.out())) await sleep(10);
  const made = await fillWith(big, AT_SIZE);
  const stopMs = await stop(big);
  const afterStop = await serve('embedded');
  const firstAfterStop = afterStop.firstOkMs;
  while (!/databases\s+ready/.test(afterStop.out())) await sleep(10);
  const again = await fillWith(afterStop, AT_SIZE);
  await stop(afterStop, 'SIGKILL');
  const afterKill = await serve('embedded');
  const firstAfterKill = afterKill.firstOkMs;
  // What the killed run left is removed in the background.
  const t0 = performance.now();
  while (existsSync(again.dir) && performance.now() - t0 < 120_000) await sleep(100);
  const leftoversGoneMs = performance.now() - t0;
  while (!/databases\s+ready/.test(afterKill.out())) await sleep(10);
  await stop(afterKill);
  scale = {
    instances: AT_SIZE,
    create_to_ready: {
      all_ready_s: +(made.all_ready_ms / 1000).toFixed(1),
      median_ms: Math.round(made.median_ms),
      p99_ms: Math.round(made.p99_ms),
    },
    disk_per_instance_mb: +(made.bytes / AT_SIZE / 1e6).toFixed(2),
    data_directory_gb: +(made.bytes / 1e9).toFixed(2),
    stop_ms: Math.round(stopMs),
    first_200_after_stop_ms: Math.round(firstAfterStop),
    first_200_after_sigkill_ms: Math.round(firstAfterKill),
    killed_run_data_removed_after_ms: Math.round(leftoversGoneMs),
  };
}

const result = {
  when: new Date().toISOString(),
  startup_first_200_ms: { databases_off: Math.round(offStart), embedded: Math.round(onStart) },
  create_to_ready_ms: { median: Math.round(createTimes.sort((a, b) => a - b)[2]), all: createTimes.map(Math.round) },
  backup_of_database: { bytes: size, snapshot_ms: Math.round(backupMs) },
  restore_ms: Math.round(restoreMs),
  idle_rss_mb: {
    tusk: Math.round(tuskRssKb / 1024),
    postgres_processes: postgresPids.length,
    postgres: Math.round(engineRssKb / 1024),
  },
  ...(scale ? { at_size: scale } : {}),
};
console.log(JSON.stringify(result, null, 2));
mkdirSync(join(root, 'bench', 'results'), { recursive: true });
writeFileSync(join(root, 'bench', 'results', 'databases.json'), JSON.stringify(result, null, 2) + '\n');
