// The request journal of a team's Tusk in Postgres: a replica writes the lines it gathered in 50 ms
// as one row; read through another replica they keep the order they were answered in, whichever
// accounts they belong to; emptying one account's part of it through a replica leaves every other
// line, in order; and a state database made by an older Tusk (a row per line) keeps its lines.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { startTusk, type RunningTusk } from '../../src/server.js';
import { migrate } from '../../src/replicas/schema.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { closeWithTest } from '../support/processes.js';

const ADMIN = 'journal-admin-key';
const auth = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });

let postgres: TestPostgres;

const replica = async (state: string): Promise<RunningTusk> =>
  closeWithTest(
    await startTusk({
      customerPort: 0,
      instancePort: 0,
      log: 'off',
      apiKey: ADMIN,
      state,
      databases: 'off',
      provisionDelayMs: 0,
      rateLimit: '100000/1',
    }),
  );

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as read
async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The customer API's lines of the journal read through `r`, as "account path". */
async function told(r: RunningTusk): Promise<string[]> {
  const journal = await call(`${r.customerUrl}/__tusk/requests?limit=50`);
  expect(journal.status).toBe(200);
  return (journal.body.entries as { api: string; path: string; account?: string }[])
    .filter((e) => e.api === 'customer')
    .map((e) => `${e.account} ${e.path}`);
}

beforeAll(async () => {
  postgres = await startPostgres();
}, 120_000);

afterAll(async () => {
  await postgres?.stop();
}, 60_000);

describe("a team's journal", () => {
  it("keeps the order of several accounts' lines, and empties one account's part alone", async () => {
    const state = await postgres.database('tusk_journal');
    const [a, b] = [await replica(state), await replica(state)];
    const made = await call(`${a.customerUrl}/__tusk/accounts`, { method: 'POST', body: '{}' });
    expect(made.status).toBe(201);
    const other = { id: made.body.account_id as string, key: made.body.admin_key as string };
    const admin = (await call(`${a.customerUrl}/__tusk/clock`, { headers: auth(ADMIN) })).body.account as string;
    expect((await call(`${a.customerUrl}/__tusk/requests`, { method: 'DELETE' })).status).toBe(204);
    // Sent one after another within the 50 ms a replica gathers its lines: rows of both accounts.
    const sent: [string, string, string][] = [
      [admin, ADMIN, '/api/plans'],
      [other.id, other.key, '/api/regions'],
      [admin, ADMIN, '/api/team'],
      [other.id, other.key, '/api/plans'],
      [admin, ADMIN, '/api/regions'],
    ];
    for (const [, key, path] of sent) await call(`${a.customerUrl}${path}`, { headers: auth(key) });
    const all = sent.map(([id, , path]) => `${id} ${path}`);
    await vi.waitFor(async () => expect(await told(b)).toEqual(all), { timeout: 1_000, interval: 60 });
    // The other account empties its part through b; a tells the admin's lines, in their order.
    const emptied = await call(`${b.customerUrl}/__tusk/requests`, { method: 'DELETE', headers: auth(other.key) });
    expect(emptied.status).toBe(204);
    const kept = all.filter((line) => line.startsWith(`${admin} `));
    expect(await told(a)).toEqual(kept);
    expect(await told(b)).toEqual(kept);
  });

  it('keeps the lines of a state database an older Tusk wrote, a row per line', async () => {
    const state = await postgres.database('tusk_journal_v1');
    const pool = new pg.Pool({ connectionString: state });
    try {
      expect(await migrate(pool, 1)).toEqual({ found: 0, now: 1 });
      const line = (path: string, at: number) => ({ at, api: 'customer', method: 'GET', path, status: 200, ms: 1 });
      await pool.query(`insert into tusk.journal (account_id, line) values (null, $1), (null, $2)`, [
        line('/api/before-1', 1_000),
        line('/api/before-2', 2_000),
      ]);
    } finally {
      await pool.end();
    }
    const c = await replica(state);
    await call(`${c.customerUrl}/api/plans`, { headers: auth(ADMIN) });
    await vi.waitFor(
      async () =>
        expect((await told(c)).map((l) => l.split(' ')[1])).toEqual(['/api/before-1', '/api/before-2', '/api/plans']),
      { timeout: 1_000, interval: 60 },
    );
  });
});
