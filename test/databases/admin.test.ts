// The SQL administration of the instances' databases (src/databases/admin.ts) on a real embedded
// server: roles with their password and connection limit, databases private to their role, copies
// owned by the copy's role, snapshots open to no instance role, names matched literally, and the
// clean-up that keeps what it is told to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { DatabaseAdmin } from '../../src/databases/admin.js';
import { PostgresEngine } from '../../src/databases/engine.js';
import { query as run } from './support.js';

let engine: PostgresEngine;
let admin: DatabaseAdmin;
beforeAll(async () => {
  engine = new PostgresEngine({ kind: 'embedded' });
  await engine.start();
  admin = new DatabaseAdmin(engine);
}, 60_000);
afterAll(async () => {
  await engine?.close();
});

const name = (what: string) => `${engine.prefix}${what}`;
const urlOf = (role: string, password: string, database: string) =>
  `postgres://${role}:${password}@127.0.0.1:${engine.port}/${database}`;

const one = async (sql: string) => (await engine.sql(sql)).rows[0] as Record<string, unknown>;

describe('DatabaseAdmin on an embedded server', () => {
  it("the embedded server: UTF-8, fsync off, 200 connections, on 127.0.0.1 only, its data in this process's temp folder", async () => {
    const settings = await one(
      `select current_setting('server_encoding') as encoding, current_setting('fsync') as fsync, current_setting('max_connections') as connections,
              current_setting('listen_addresses') as listen, current_setting('data_directory') as data, current_user as superuser`,
    );
    expect(settings).toMatchObject({
      encoding: 'UTF8',
      fsync: 'off',
      connections: '200',
      listen: '127.0.0.1',
      superuser: 'postgres',
    });
    expect(String(settings.data)).toMatch(new RegExp(`/tusk-pg-${process.pid}-[0-9a-f]{8}$`));
  });

  it('a new role and database: the role logs in with its password into its own database, with no connection limit by default', async () => {
    const [role, db] = [name('r1'), name('d1')];
    expect(await admin.createDatabase(role, 'first-secret', db)).toBe(false);
    expect(await run(urlOf(role, 'first-secret', db), 'select current_user as u, current_database() as d')).toEqual([
      { u: role, d: db },
    ]);
    expect(await one(`select rolconnlimit from pg_roles where rolname = '${role}'`)).toEqual({ rolconnlimit: -1 });
  });

  it('a database that exists is kept (true): its role gets the new password and limit', async () => {
    const [role, db] = [name('r2'), name('d2')];
    await admin.createDatabase(role, 'old-secret', db);
    await run(urlOf(role, 'old-secret', db), 'create table kept (v text); insert into kept values (1)');
    expect(await admin.createDatabase(role, 'new-secret', db, { connectionLimit: 7 })).toBe(true);
    expect(await run(urlOf(role, 'new-secret', db), 'select v from kept')).toEqual([{ v: '1' }]);
    await expect(run(urlOf(role, 'old-secret', db), 'select 1')).rejects.toThrow(/password authentication failed/);
    expect(await one(`select rolconnlimit from pg_roles where rolname = '${role}'`)).toEqual({ rolconnlimit: 7 });
  });

  it('a database is private: another role may neither connect to it nor make temporary tables in it; its owner may', async () => {
    const [owner, other, db] = [name('r3'), name('r3x'), name('d3')];
    await admin.createDatabase(owner, 'secret', db);
    await admin.createDatabase(other, 'secret', name('d3x'));
    const privilege = (role: string, kind: string) =>
      one(`select has_database_privilege('${role}', '${db}', '${kind}') as p`).then((r) => r.p);
    expect([await privilege(other, 'CONNECT'), await privilege(other, 'TEMPORARY')]).toEqual([false, false]);
    expect([await privilege(owner, 'CONNECT'), await privilege(owner, 'TEMPORARY')]).toEqual([true, true]);
    await expect(run(urlOf(other, 'secret', db), 'select 1')).rejects.toThrow(/permission denied/);
  });

  it("a copy of a template holds its rows, and the copy's role owns its schema and tables", async () => {
    const [source, copy] = [name('d4'), name('d4c')];
    await admin.createDatabase(name('r4'), 'secret', source);
    const sourceUrl = urlOf(name('r4'), 'secret', source);
    await run(sourceUrl, "create table t (id serial primary key, v text); insert into t (v) values ('copied')");
    // A session left open on the template is ended: a template takes none.
    const open = new pg.Client({ connectionString: sourceUrl });
    open.on('error', () => undefined);
    await open.connect();
    try {
      expect(await admin.createDatabase(name('r4c'), 'secret', copy, { template: source })).toBe(false);
    } finally {
      await open.end().catch(() => undefined);
    }
    const copyUrl = urlOf(name('r4c'), 'secret', copy);
    expect(await run(copyUrl, 'select v from t')).toEqual([{ v: 'copied' }]);
    expect(await run(copyUrl, "select tableowner from pg_tables where tablename = 't'")).toEqual([
      { tableowner: name('r4c') },
    ]);
    expect(
      await run(copyUrl, "select pg_get_userbyid(nspowner) as owner from pg_namespace where nspname = 'public'"),
    ).toEqual([{ owner: name('r4c') }]);
    await run(copyUrl, "insert into t (v) values ('written by the copy'); drop table t");
  });

  it('a snapshot is a copy no instance role may connect to; taking it again replaces it', async () => {
    const [role, db, snap] = [name('r5'), name('d5'), name('d5_b1')];
    await admin.createDatabase(role, 'secret', db);
    await run(urlOf(role, 'secret', db), "create table t (v text); insert into t values ('one')");
    await admin.snapshot(db, snap);
    await run(urlOf(role, 'secret', db), "insert into t values ('two')");
    await admin.snapshot(db, snap);
    expect(await one(`select has_database_privilege('${role}', '${snap}', 'CONNECT') as p`)).toEqual({ p: false });
    await admin.recreate(db, role, snap);
    expect(await run(urlOf(role, 'secret', db), 'select v from t order by v')).toEqual([{ v: 'one' }, { v: 'two' }]);
  });

  it('names are matched literally: _ and % in a start match only themselves', async () => {
    await admin.createDatabase(name('r6'), 'secret', name('d6_a'));
    await admin.createDatabase(name('r6x'), 'secret', name('d6xa'));
    expect(await admin.databasesLike(name('d6_'))).toEqual(new Set([name('d6_a')]));
    expect(await admin.databasesLike(name('d6%'))).toEqual(new Set());
  });

  it('on the embedded server, the maintenance databases are closed to every instance role', async () => {
    await admin.createDatabase(name('r7'), 'secret', name('d7'));
    expect(await admin.guardServer(name('r7'))).toEqual([]);
    for (const db of ['postgres', 'template1']) {
      expect(await one(`select has_database_privilege('${name('r7')}', '${db}', 'CONNECT') as p`), db).toEqual({
        p: false,
      });
    }
  });

  it('on an existing server, says which databases outside Tusk a role could still connect to', async () => {
    await engine.sql(`create role ${name('op')} superuser login password 'op-secret'`);
    const external = new PostgresEngine({ kind: 'external', url: urlOf(name('op'), 'op-secret', 'postgres') });
    try {
      await external.start();
      const outside = new DatabaseAdmin(external);
      expect(await outside.guardServer()).toEqual([]);
      await outside.createDatabase(`${external.prefix}r`, 'secret', `${external.prefix}d`);
      // The embedded server's own guard closes postgres and template1; template0 takes no connections.
      await admin.guardServer();
      expect(await outside.guardServer(`${external.prefix}r`)).toEqual([]);
      await engine.sql(`grant connect on database postgres to ${external.prefix}r`);
      expect(await outside.guardServer(`${external.prefix}r`)).toEqual(['postgres']);
      await engine.sql(`revoke connect on database postgres from ${external.prefix}r`);
      await outside.dropEverything();
      expect(await outside.databasesLike(external.prefix)).toEqual(new Set());
    } finally {
      await external.close();
    }
  });

  it('the sizes of this process’s databases, by name, as pg_database_size reads them', async () => {
    const sizes = await admin.sizes();
    expect(sizes.get(name('d1'))).toBe(await admin.size(name('d1')));
    expect(sizes.get(name('d1'))).toBeGreaterThan(0);
    expect([...sizes.keys()].every((db) => db.startsWith(engine.prefix))).toBe(true);
  });

  it('the clean-up drops every database and role of this process but those kept', async () => {
    await admin.dropEverything({ keepDatabase: (db) => db === name('d1'), keepRoles: new Set([name('r1')]) });
    expect([...(await admin.databasesLike(engine.prefix))]).toEqual([name('d1')]);
    const roles = (await engine.sql(`select rolname from pg_roles where rolname like '${engine.prefix}%'`)).rows.map(
      (r) => r.rolname,
    );
    expect(roles).toEqual([name('r1')]);
  });
});
