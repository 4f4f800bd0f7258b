// The hostile-tenant and failing-machine scenarios of the database engine, run by `npm run chaos`
// against a real `tusk serve` with its embedded Postgres: each is { name, run(server) } and throws
// (with what happened) when Tusk does not hold. `server` is what scripts/chaos.js started.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import pg from 'pg';

const basic = (key) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function call(base, path, { key, method = 'GET', body } = {}) {
  const headers = { 'content-type': 'application/json', ...(key ? { authorization: basic(key) } : {}) };
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

async function until(what, condition, ms = 30_000) {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`not within ${ms / 1000} s: ${what}`);
    await sleep(50);
  }
}

/** Runs `text` on `url` with a fresh client (exported: scripts/chaos/control-inputs.js reads databases with it too). */
export async function sql(url, text) {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query(text)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** The Postgres error of connecting with `url` to `database`, or undefined when it connects. */
async function refusal(url, database) {
  const u = new URL(url);
  u.pathname = `/${database}`;
  try {
    await sql(u.toString(), 'select 1');
    return undefined;
  } catch (err) {
    return err.message;
  }
}

async function instance(server, key, body = {}) {
  const created = await call(server.customerUrl, '/api/instances', {
    key,
    method: 'POST',
    body: { name: 'chaos', plan: 'hippo', region: 'amazon-web-services::us-east-1', ...body },
  });
  if (created.status !== 200) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
  let got;
  await until(
    `instance ${created.body.id} ready`,
    async () => (got = (await call(server.customerUrl, `/api/instances/${created.body.id}`, { key })).body).ready,
  );
  return got;
}

const dbOf = (url) => new URL(url).pathname.slice(1);

/** The embedded server's postmaster (the `postgres -D` process on the data directory of this Tusk). */
function postmaster(server) {
  const dir = readdirSync(tmpdir()).find((d) => d.startsWith(`tusk-pg-${server.child.pid}-`));
  if (!dir) throw new Error('no data directory of this tusk serve');
  const pids = execFileSync('pgrep', ['-f', `postgres -D ${tmpdir()}/${dir}`], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map(Number);
  return Math.min(...pids);
}

export const scenarios = [
  {
    name: "an instance's credentials against another instance's database (same account)",
    async run(server) {
      const a = await instance(server, server.adminKey);
      const b = await instance(server, server.adminKey);
      const refused = await refusal(a.url, dbOf(b.url));
      if (!refused) throw new Error("A's role connected to B's database");
      return `refused: ${refused}`;
    },
  },
  {
    name: "an instance's credentials against another account's database",
    async run(server) {
      const other = await call(server.customerUrl, '/__tusk/accounts', {
        method: 'POST',
        body: { name: 'chaos tenant' },
      });
      const theirs = await instance(server, other.body.admin_key);
      const mine = await instance(server, server.adminKey);
      const refused = await refusal(mine.url, dbOf(theirs.url));
      if (!refused) throw new Error("one account's role connected to another account's database");
      return `refused: ${refused}`;
    },
  },
  {
    name: "an instance's credentials against the engine's maintenance databases",
    async run(server) {
      const a = await instance(server, server.adminKey);
      const answers = [];
      for (const db of ['postgres', 'template1']) {
        const refused = await refusal(a.url, db);
        if (!refused) throw new Error(`an instance role connected to ${db}`);
        answers.push(`${db}: ${refused}`);
      }
      return answers.join('; ');
    },
  },
  {
    name: 'the sixth connection to a turtle instance',
    async run(server) {
      const t = await instance(server, server.adminKey, { plan: 'turtle' });
      const clients = [];
      try {
        for (let i = 0; i < 6; i++) {
          const c = new pg.Client({ connectionString: t.url });
          c.on('error', () => undefined);
          try {
            await c.connect();
            clients.push(c);
          } catch (err) {
            if (i === 5) return `5 connected, the sixth refused: ${err.message}`;
            throw new Error(`connection ${i + 1} refused: ${err.message}`);
          }
        }
        throw new Error('six connections were accepted');
      } finally {
        await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
      }
    },
  },
  {
    name: 'a restore callback arrives after the database is restored',
    async run(server) {
      const { createServer } = await import('node:http');
      const i = await instance(server, server.adminKey);
      await sql(i.url, "create table pad as select g, repeat('x', 100) as f from generate_series(1, 100000) g");
      await sql(i.url, "create table mark as select 'before'::text as v");
      // The instance's own database (the second is a record only); the backup made is the first new id there.
      const list = async () => (await call(server.instanceUrl, `/api/backup?db=db${i.id}`, { key: i.apikey })).body;
      const before = Math.max(...(await list()).map((b) => b.id));
      const made = await call(server.instanceUrl, '/api/backup', { key: i.apikey, method: 'POST', body: {} });
      if (made.status >= 300) throw new Error(`backup answered ${made.status}`);
      await call(server.customerUrl, '/__tusk/clock', { method: 'POST', body: { advance: '10s' } });
      let backup;
      await until('backup listed', async () => (backup = (await list()).find((b) => b.id > before)) !== undefined);
      await sql(i.url, "update mark set v = 'after'");
      let seen;
      const receiver = createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          seen ??= sql(i.url, 'select v from mark').then(
            (rows) => rows[0]?.v,
            (err) => `error: ${err.message}`,
          );
          res.end();
        });
      });
      await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
      try {
        const port = receiver.address().port;
        await call(server.instanceUrl, '/api/backup/restore', {
          key: i.apikey,
          method: 'POST',
          body: { backup_id: backup.id, callback: `http://127.0.0.1:${port}/restored` },
        });
        await call(server.customerUrl, '/__tusk/clock', { method: 'POST', body: { advance: '10s' } });
        await until('callback', () => seen !== undefined);
        const v = await seen;
        if (v !== 'before')
          throw new Error(`a client reading at the callback found ${JSON.stringify(v)}, not the backup's "before"`);
        return 'a client reading at the callback finds the backup';
      } finally {
        await new Promise((r) => receiver.close(r));
      }
    },
  },
  {
    name: 'the embedded server is killed with SIGKILL',
    async run(server) {
      const i = await instance(server, server.adminKey);
      await sql(i.url, "create table kept as select 'kept'::text as v");
      const pid = postmaster(server);
      const t0 = Date.now();
      process.kill(pid, 'SIGKILL');
      await until(
        'the instance not ready',
        async () => !(await call(server.customerUrl, `/api/instances/${i.id}`, { key: server.adminKey })).body.ready,
        10_000,
      );
      const noticed = Date.now() - t0;
      await until(
        'the instance ready again',
        async () => (await call(server.customerUrl, `/api/instances/${i.id}`, { key: server.adminKey })).body.ready,
        60_000,
      );
      const rows = await sql(i.url, 'select v from kept');
      if (rows[0]?.v !== 'kept') throw new Error('its data is gone');
      if (postmaster(server) === pid) throw new Error('the same server runs');
      return `not ready after ${noticed} ms, ready again with its data after ${Date.now() - t0} ms`;
    },
  },
];
