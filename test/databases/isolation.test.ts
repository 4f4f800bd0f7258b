// Each instance's database is private (issue 31): the credentials in an instance's `url` open its
// own database and no other — not another instance's of the same account, not another account's,
// not the engine's maintenance databases — and Postgres itself refuses them. The instance's own url
// keeps working after fork, restore and rotate-password. The plan's connection limit is real.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningTusk } from '../../src/server.js';
import { ADMIN, json, keyAuth, query, startDatabaseTusk } from './support.js';

let tusk: RunningTusk;
beforeAll(async () => {
  tusk = await startDatabaseTusk();
}, 60_000);
afterAll(async () => {
  await tusk?.close();
}, 30_000);

type Created = { id: number; url: string; apikey: string };

async function createReady(
  headers: Record<string, string> = ADMIN,
  body: Record<string, unknown> = {},
): Promise<Created> {
  const created = await json(`${tusk.customerUrl}/api/instances`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'private', plan: 'hippo', region: 'amazon-web-services::us-east-1', ...body }),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  for (let i = 0; i < 600; i++) {
    const got = await json(`${tusk.customerUrl}/api/instances/${created.body.id}`, { headers });
    if (got.body.ready) return got.body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('never ready');
}

/** `url` with its database replaced by `database`. */
const toDatabase = (url: string, database: string) => {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
};
const databaseOf = (url: string) => new URL(url).pathname.slice(1);

/** Postgres's own refusal of a connection to a database the role may not connect to (42501). */
const REFUSED = /permission denied for database/;

describe("an instance's credentials open its own database only", () => {
  it("are refused by another instance's database of the same account", async () => {
    const a = await createReady();
    const b = await createReady();
    await query(b.url, 'create table secrets (x int)');
    await expect(query(toDatabase(a.url, databaseOf(b.url)), 'select 1')).rejects.toThrow(REFUSED);
    await expect(query(toDatabase(b.url, databaseOf(a.url)), 'select 1')).rejects.toThrow(REFUSED);
    // Each still opens its own.
    expect(await query(a.url, 'select 1 as one')).toEqual([{ one: 1 }]);
  });

  it("are refused by another account's database", async () => {
    const account = await json(`${tusk.customerUrl}/__tusk/accounts`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'other tenant' }),
    });
    expect(account.status).toBe(201);
    const theirs = await createReady(keyAuth(account.body.admin_key as string));
    const mine = await createReady();
    await expect(query(toDatabase(mine.url, databaseOf(theirs.url)), 'select 1')).rejects.toThrow(REFUSED);
    await expect(query(toDatabase(theirs.url, databaseOf(mine.url)), 'select 1')).rejects.toThrow(REFUSED);
  });

  it("are refused by the engine's maintenance databases", async () => {
    const a = await createReady();
    for (const maintenance of ['postgres', 'template1'])
      await expect(query(toDatabase(a.url, maintenance), 'select 1')).rejects.toThrow(REFUSED);
  });

  it('may not connect to the snapshots of its own backups (only the server restores them)', async () => {
    const a = await createReady();
    expect(
      (await json(`${tusk.instanceUrl}/api/backup`, { method: 'POST', headers: keyAuth(a.apikey), body: '{}' })).status,
    ).toBeLessThan(300);
    await tusk.deps.databases!.idle();
    const newest = (await json(`${tusk.instanceUrl}/api/backup`, { headers: keyAuth(a.apikey) })).body[0] as {
      id: number;
    };
    await expect(query(toDatabase(a.url, `${databaseOf(a.url)}_b${newest.id}`), 'select 1')).rejects.toThrow(REFUSED);
  });

  it('stay private after fork, restore and rotate-password, and the own url keeps working', async () => {
    const a = await createReady();
    const other = await createReady();
    await query(a.url, 'create table t (x int)');
    await query(a.url, 'insert into t values (1)');
    // fork: a copy with a role of its own; neither role reaches the other's database
    const fork = await createReady(ADMIN, { action: 'fork', instance_id: a.id });
    expect(await query(fork.url, 'select x from t')).toEqual([{ x: 1 }]);
    await expect(query(toDatabase(a.url, databaseOf(fork.url)), 'select 1')).rejects.toThrow(REFUSED);
    await expect(query(toDatabase(fork.url, databaseOf(a.url)), 'select 1')).rejects.toThrow(REFUSED);
    await expect(query(toDatabase(other.url, databaseOf(fork.url)), 'select 1')).rejects.toThrow(REFUSED);
    // restore: the database is made anew from the snapshot, private again
    await json(`${tusk.instanceUrl}/api/backup`, { method: 'POST', headers: keyAuth(a.apikey), body: '{}' });
    await tusk.deps.databases!.idle();
    const newest = (await json(`${tusk.instanceUrl}/api/backup`, { headers: keyAuth(a.apikey) })).body[0] as {
      id: number;
    };
    await json(`${tusk.instanceUrl}/api/backup/restore`, {
      method: 'POST',
      headers: keyAuth(a.apikey),
      body: JSON.stringify({ backup_id: newest.id }),
    });
    await tusk.deps.databases!.idle();
    expect(await query(a.url, 'select x from t')).toEqual([{ x: 1 }]);
    await expect(query(toDatabase(other.url, databaseOf(a.url)), 'select 1')).rejects.toThrow(REFUSED);
    // rotate-password: the new url opens it, another role still does not
    await json(`${tusk.instanceUrl}/api/account/rotate-password`, { method: 'POST', headers: keyAuth(a.apikey) });
    await tusk.deps.databases!.idle();
    const rotated = (await json(`${tusk.customerUrl}/api/instances/${a.id}`, { headers: ADMIN })).body.url as string;
    expect(await query(rotated, 'select x from t')).toEqual([{ x: 1 }]);
    await expect(query(toDatabase(other.url, databaseOf(rotated)), 'select 1')).rejects.toThrow(REFUSED);
  });
});

describe("the plan's connection limit", () => {
  /** Opens `n` connections on `url`; returns them (to be ended) and the error of the first refused one. */
  async function open(url: string, n: number): Promise<{ clients: pg.Client[]; refused?: Error }> {
    const clients: pg.Client[] = [];
    for (let i = 0; i < n; i++) {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        clients.push(client);
      } catch (err) {
        return { clients, refused: err as Error };
      }
    }
    return { clients };
  }
  const end = (clients: pg.Client[]) => Promise.all(clients.map((c) => c.end().catch(() => undefined)));

  it('turtle: the sixth concurrent connection is refused by Postgres; a plan change lifts and restores the limit', async () => {
    const turtle = await createReady(ADMIN, { plan: 'turtle' });
    const five = await open(turtle.url, 6);
    try {
      expect(five.clients).toHaveLength(5);
      expect(five.refused?.message).toMatch(/too many connections for role/);
    } finally {
      await end(five.clients);
    }
    // A dedicated plan has no per-instance limit of its own.
    expect(
      (
        await json(`${tusk.customerUrl}/api/instances/${turtle.id}`, {
          method: 'PUT',
          headers: ADMIN,
          body: JSON.stringify({ name: 'private', plan: 'hippo' }),
        })
      ).status,
    ).toBe(200);
    await tusk.deps.databases!.idle();
    const more = await open(turtle.url, 8);
    try {
      expect(more.refused).toBeUndefined();
    } finally {
      await end(more.clients);
    }
    expect(
      (
        await json(`${tusk.customerUrl}/api/instances/${turtle.id}`, {
          method: 'PUT',
          headers: ADMIN,
          body: JSON.stringify({ name: 'private', plan: 'turtle' }),
        })
      ).status,
    ).toBe(200);
    await tusk.deps.databases!.idle();
    const again = await open(turtle.url, 6);
    try {
      expect(again.clients).toHaveLength(5);
    } finally {
      await end(again.clients);
    }
  });
});
