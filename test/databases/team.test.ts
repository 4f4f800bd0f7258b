// A team's databases (issue 44): replicas started with the same `--state postgres://...` put the
// instances' databases on that server (or the one `--databases` names) under one prefix of the
// team. An instance created through one replica is ready, at the same url, through another, which
// makes nothing of its own; a backup one replica took restores through another; a replica that
// stops drops nothing; a login that may not create roles and databases is refused with its fix.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTusk, type RunningTusk } from '../../src/server.js';
import { teamPrefix } from '../../src/databases/engine.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { ADMIN, json, keyAuth, query } from './support.js';

let postgres: TestPostgres;
let state: string;
const replicas: RunningTusk[] = [];

const replica = async (databases: string = state) => {
  const tusk = await startTusk({
    customerPort: 0,
    instancePort: 0,
    log: 'off',
    state,
    databases,
    provisionDelayMs: 0,
    rateLimit: '100000/1',
    registry: { backupDelayMs: 0, restoreDelayMs: 0 },
  });
  replicas.push(tusk);
  return tusk;
};

async function readyThrough(tusk: RunningTusk, id: number): Promise<{ url: string; apikey: string }> {
  for (let i = 0; i < 600; i++) {
    const got = await json(`${tusk.customerUrl}/api/instances/${id}`, { headers: ADMIN });
    if (got.body.ready) return got.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`instance ${id} never ready through ${tusk.customerUrl}`);
}

async function databasesNamed(start: string): Promise<string[]> {
  const rows = await query(postgres.url(), `select datname from pg_database where datname like '${start}%' order by 1`);
  return (rows as { datname: string }[]).map((r) => r.datname);
}

beforeAll(async () => {
  postgres = await startPostgres();
  state = await postgres.database('tusk_team_databases');
}, 120_000);

afterAll(async () => {
  for (const r of replicas) await r.close();
  await postgres?.stop();
}, 60_000);

describe("a team's databases", () => {
  it('are made once, by the replica that created the instance, and open at the same url through every replica', async () => {
    const [a, b] = [await replica(), await replica()];
    const created = await json(`${a.customerUrl}/api/instances`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ name: 'shared', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    expect(created.status).toBe(200);
    const throughB = await readyThrough(b, created.body.id);
    const throughA = await readyThrough(a, created.body.id);
    expect(throughB.url).toBe(throughA.url);
    expect(new URL(throughB.url).pathname.slice(1)).toMatch(new RegExp(`^${teamPrefix(state)}d`));
    await query(throughB.url, 'create table orders (id int primary key)');
    await query(throughA.url, 'insert into orders values (1)');
    expect(await query(throughB.url, 'select id from orders')).toEqual([{ id: 1 }]);
  });

  it('restore through one replica a backup another took', async () => {
    const [a, b] = replicas;
    const created = await json(`${a!.customerUrl}/api/instances`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ name: 'backed-up', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    const i = await readyThrough(a!, created.body.id);
    await query(i.url, 'create table t (x int)');
    await query(i.url, 'insert into t values (42)');
    const listed = async () =>
      ((await json(`${b!.instanceUrl}/api/backup`, { headers: keyAuth(i.apikey) })).body as { id: number }[]).map(
        (x) => x.id,
      );
    const before = await listed();
    const backup = await json(`${a!.instanceUrl}/api/backup`, {
      method: 'POST',
      headers: keyAuth(i.apikey),
      body: '{}',
    });
    expect(backup.status).toBeLessThan(300);
    // Listed through b once a made its snapshot (not before).
    let newest: number | undefined;
    for (let n = 0; n < 600 && newest === undefined; n++) {
      newest = (await listed()).find((id) => !before.includes(id));
      if (newest === undefined) await new Promise((r) => setTimeout(r, 50));
    }
    expect(newest).toBeDefined();
    await query(i.url, 'drop table t');
    const restored = await json(`${b!.instanceUrl}/api/backup/restore`, {
      method: 'POST',
      headers: keyAuth(i.apikey),
      body: JSON.stringify({ backup_id: newest }),
    });
    expect(restored.status).toBeLessThan(300);
    await b!.deps.databases!.idle();
    await readyThrough(b!, created.body.id);
    expect(await query(i.url, 'select x from t')).toEqual([{ x: 42 }]);
  });

  it('call back once a backup one replica made is ready, and once a restore through another is done', async () => {
    const [a, b] = replicas;
    const received: { path: string; body: string }[] = [];
    const receiver: Server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ path: req.url ?? '', body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const target = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const arrived = async (path: string) => {
      for (let n = 0; n < 600 && !received.some((r) => r.path === path); n++)
        await new Promise((r) => setTimeout(r, 50));
      return received.filter((r) => r.path === path);
    };
    try {
      const created = await json(`${a!.customerUrl}/api/instances`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({ name: 'called-back', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
      });
      const i = await readyThrough(a!, created.body.id);
      const backup = await json(`${a!.instanceUrl}/api/backup`, {
        method: 'POST',
        headers: keyAuth(i.apikey),
        body: JSON.stringify({ callback: `${target}/backup` }),
      });
      expect(backup.status).toBeLessThan(300);
      const made = await arrived('/backup');
      expect(made).toHaveLength(1);
      const backupId = JSON.parse(made[0]!.body).backup_id as number;
      // Made and announced: listed through the other replica too.
      const listed = (await json(`${b!.instanceUrl}/api/backup`, { headers: keyAuth(i.apikey) })).body as {
        id: number;
      }[];
      expect(listed.map((x) => x.id)).toContain(backupId);
      const restored = await json(`${b!.instanceUrl}/api/backup/restore`, {
        method: 'POST',
        headers: keyAuth(i.apikey),
        body: JSON.stringify({ backup_id: backupId, callback: `${target}/restore` }),
      });
      expect(restored.status).toBeLessThan(300);
      expect(await arrived('/restore')).toHaveLength(1);
      // Sent once, not once per replica.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(received.map((r) => r.path).sort()).toEqual(['/backup', '/restore']);
    } finally {
      receiver.close();
    }
  });

  it('keep every database when a replica stops', async () => {
    const prefix = teamPrefix(state);
    const before = await databasesNamed(prefix);
    expect(before.length).toBeGreaterThan(1);
    const c = await replica();
    await json(`${c.customerUrl}/api/instances`, { headers: ADMIN });
    await c.close();
    replicas.splice(replicas.indexOf(c), 1);
    expect(await databasesNamed(prefix)).toEqual(before);
  });

  it('refuse, with the fix, a login that may not create roles and databases', async () => {
    const admin = new pg.Client({ connectionString: postgres.url() });
    await admin.connect();
    try {
      await admin.query("drop role if exists weak; create role weak login password 'weak-pw'");
    } finally {
      await admin.end();
    }
    const weak = new URL(postgres.url('tusk_team_databases'));
    weak.username = 'weak';
    weak.password = 'weak-pw';
    const d = await replica(weak.toString());
    const engine = d.deps.databases!.engine;
    await expect(engine.start()).rejects.toThrow(
      /the role weak may not create roles and databases.*ALTER ROLE "?weak"? CREATEROLE CREATEDB/,
    );
    const health = await fetch(`${d.customerUrl}/__tusk/health`);
    expect(health.status).toBe(503);
    expect(JSON.stringify(await health.json())).toMatch(/may not create roles and databases/);
  });
});
