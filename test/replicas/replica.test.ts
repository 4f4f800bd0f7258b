// A team's Tusk, in-process: replicas started with the same `--state postgres://...` are one Tusk.
// A write acknowledged by one is read through every other at once, concurrent writes to one
// account through several lose nothing and keep the limits, the server's clock and an account's
// clock are one, a replica started later serves what was written without it, and the controls'
// journal is the same through each (within the 50 ms a replica takes to write its lines). A real Postgres (the embedded server Tusk ships) holds the state.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTusk, type RunningTusk } from '../../src/server.js';
import { LIST_CAPS } from '../../src/core/limits.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { latencyProxy } from '../support/latency-proxy.js';
import { closeWithTest } from '../support/processes.js';

const ADMIN = 'team-admin-key';
const auth = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });
const JSON_TYPE = { 'content-type': 'application/json' };

let postgres: TestPostgres;
let state: string;
const replicas: RunningTusk[] = [];

const replica = async (options: { state?: string; rateLimit?: string } = {}) => {
  const tusk = await startTusk({
    customerPort: 0,
    instancePort: 0,
    log: process.env.TEAM_LOG ? 'text' : 'off',
    apiKey: ADMIN,
    state: options.state ?? state,
    databases: 'off',
    provisionDelayMs: 0,
    rateLimit: options.rateLimit ?? '100000/1',
  });
  replicas.push(tusk);
  return tusk;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as read
async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

beforeAll(async () => {
  postgres = await startPostgres();
  state = await postgres.database('tusk_team');
}, 120_000);

afterAll(async () => {
  for (const r of replicas) await r.close();
  await postgres?.stop();
}, 60_000);

describe("a team's Tusk", () => {
  it('reads through every replica at once what one acknowledged', async () => {
    const [a, b] = [await replica(), await replica()];
    const created = await call(`${a.customerUrl}/api/instances`, {
      method: 'POST',
      headers: { ...auth(ADMIN), ...JSON_TYPE },
      body: JSON.stringify({ name: 'team-db', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    expect(created.status).toBe(200);
    const read = await call(`${b.customerUrl}/api/instances/${created.body.id}`, { headers: auth(ADMIN) });
    expect(read.status).toBe(200);
    expect(read.body.name).toBe('team-db');
    // Its instance key, made on a, opens the instance API of b.
    const alarms = await call(`${b.instanceUrl}/api/alarms`, { headers: auth(created.body.apikey) });
    expect(alarms.status).toBe(200);
    expect(alarms.body).toHaveLength(4);
    // A deletion through b is seen by a.
    expect(
      (await call(`${b.customerUrl}/api/instances/${created.body.id}`, { method: 'DELETE', headers: auth(ADMIN) }))
        .status,
    ).toBe(204);
    expect((await call(`${a.customerUrl}/api/instances/${created.body.id}`, { headers: auth(ADMIN) })).status).toBe(
      404,
    );
  });

  it('keeps the limit of alarms when they are created at once through several replicas', async () => {
    const [a, b] = replicas;
    const created = await call(`${a!.customerUrl}/api/instances`, {
      method: 'POST',
      headers: { ...auth(ADMIN), ...JSON_TYPE },
      body: JSON.stringify({ name: 'busy', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    const key = created.body.apikey as string;
    const tries = LIST_CAPS.alarmsPerInstance + 10;
    const answers = await Promise.all(
      Array.from({ length: tries }, (_, i) =>
        call(`${(i % 2 ? a : b)!.instanceUrl}/api/alarms`, {
          method: 'POST',
          headers: { ...auth(key), ...JSON_TYPE },
          body: JSON.stringify({ type: 'cpu', value_threshold: 50 + (i % 40), time_threshold: 60 }),
        }),
      ),
    );
    const ok = answers.filter((r) => r.status === 200 || r.status === 201).length;
    expect(ok).toBe(LIST_CAPS.alarmsPerInstance - 4); // the four default alarms count
    expect(answers.filter((r) => r.status >= 400).every((r) => r.status !== 503)).toBe(true);
    for (const r of [a!, b!]) {
      const listed = await call(`${r.instanceUrl}/api/alarms`, { headers: auth(key) });
      expect(listed.body).toHaveLength(LIST_CAPS.alarmsPerInstance);
    }
  });

  it("moves one clock for every replica, the server's and an account's", async () => {
    const [a, b] = replicas;
    const moved = await call(`${a!.customerUrl}/__tusk/clock`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ advance: '2h' }),
    });
    expect(moved.status).toBe(200);
    const seen = await call(`${b!.customerUrl}/__tusk/clock`);
    expect(Math.abs(Date.parse(seen.body.now) - Date.parse(moved.body.now))).toBeLessThan(2_000);
    const account = await call(`${b!.customerUrl}/__tusk/accounts`, { method: 'POST', headers: JSON_TYPE, body: '{}' });
    expect(account.status).toBe(201);
    const own = await call(`${b!.customerUrl}/__tusk/clock`, {
      method: 'POST',
      headers: { ...auth(account.body.admin_key), ...JSON_TYPE },
      body: JSON.stringify({ advance: '1d' }),
    });
    expect(own.status).toBe(200);
    const there = await call(`${a!.customerUrl}/__tusk/clock`, { headers: auth(account.body.admin_key) });
    expect(there.body.account).toBe(account.body.account_id);
    expect(Math.abs(Date.parse(there.body.now) - Date.parse(own.body.now))).toBeLessThan(2_000);
    // The new account's key opens the customer API of a, which never saw it made.
    expect((await call(`${a!.customerUrl}/api/team`, { headers: auth(account.body.admin_key) })).status).toBe(200);
  });

  it('serves, from a replica started later, what was written without it', async () => {
    const [a] = replicas;
    const created = await call(`${a!.customerUrl}/api/instances`, {
      method: 'POST',
      headers: { ...auth(ADMIN), ...JSON_TYPE },
      body: JSON.stringify({ name: 'before-c', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    const c = await replica();
    const read = await call(`${c.customerUrl}/api/instances/${created.body.id}`, { headers: auth(ADMIN) });
    expect(read.body.name).toBe('before-c');
  });

  it('tells the same journal through each replica', async () => {
    const [a, b] = replicas;
    await call(`${a!.customerUrl}/__tusk/requests`, { method: 'DELETE' });
    await call(`${a!.customerUrl}/api/plans`, { headers: auth(ADMIN) });
    await call(`${b!.customerUrl}/api/regions`, { headers: auth(ADMIN) });
    // Each replica writes its lines within 50 ms; a read of the journal reads every replica's.
    for (const r of [a!, b!])
      await vi.waitFor(
        async () => {
          const journal = await call(`${r.customerUrl}/__tusk/requests?limit=10`);
          const paths = (journal.body.entries as { path: string }[]).map((e) => e.path);
          expect(paths).toEqual(expect.arrayContaining(['/api/plans', '/api/regions']));
        },
        { timeout: 1_000, interval: 60 },
      );
  });

  it("tells a replica's lines in the order it answered them, through another", async () => {
    while (replicas.length < 2) await replica();
    const [a, b] = replicas;
    await call(`${a!.customerUrl}/__tusk/requests`, { method: 'DELETE' });
    // Sent one after another within the 50 ms a replica gathers its lines: one write of several.
    const sent = ['/api/plans', '/api/regions', '/api/team', '/api/instances', '/api/plans?x=1'];
    for (const path of sent) await call(`${a!.customerUrl}${path}`, { headers: auth(ADMIN) });
    await vi.waitFor(
      async () => {
        const journal = await call(`${b!.customerUrl}/__tusk/requests?limit=10`);
        const told = (journal.body.entries as { path: string; api: string }[]).filter((e) => e.api === 'customer');
        expect(told.map((e) => e.path)).toEqual(sent.map((p) => p.split('?')[0]));
      },
      { timeout: 1_000, interval: 60 },
    );
  });
});

describe("a team's Tusk under load", () => {
  it('reads through a busy replica what another acknowledged just before', async () => {
    if (replicas.length === 0) await replica();
    const a = replicas[0]!;
    // b reaches Postgres through a network that takes 30 ms to answer, and answers a stream of reads
    // of the account meanwhile: a version check of b is always in flight, sent up to 30 ms before
    // a's write was acknowledged; a read that came after the acknowledgement must not take its answer.
    const server = new URL(state);
    const proxy = closeWithTest(await latencyProxy({ host: server.hostname, port: Number(server.port) }, 30));
    const slow = new URL(state);
    slow.port = String(proxy.port);
    const b = await replica({ state: slow.href });
    const created = await call(`${a.customerUrl}/api/instances`, {
      method: 'POST',
      headers: { ...auth(ADMIN), ...JSON_TYPE },
      body: JSON.stringify({ name: 'name-0', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    const path = `/api/instances/${created.body.id}`;
    let busy = true;
    const readers = Array.from({ length: 8 }, async () => {
      while (busy) await call(`${b.customerUrl}/api/plans`, { headers: auth(ADMIN) });
    });
    try {
      for (let i = 1; i <= 20; i++) {
        const renamed = await call(`${a.customerUrl}${path}`, {
          method: 'PUT',
          headers: { ...auth(ADMIN), ...JSON_TYPE },
          body: JSON.stringify({ name: `name-${i}` }),
        });
        expect(renamed.status).toBe(200);
        expect((await call(`${b.customerUrl}${path}`, { headers: auth(ADMIN) })).body.name).toBe(`name-${i}`);
      }
    } finally {
      busy = false;
      await Promise.all(readers);
      replicas.splice(replicas.indexOf(b), 1);
      await b.close();
      await proxy.close();
    }
  });

  it("counts a key's requests across the team: exactly the limit is admitted in a window", async () => {
    const limited = await postgres.database('tusk_team_limit');
    const [a, b] = [
      await replica({ state: limited, rateLimit: '30/1d' }),
      await replica({ state: limited, rateLimit: '30/1d' }),
    ];
    // The account's clock stands still, so that every request falls in one window.
    const pinned = await call(`${a.customerUrl}/__tusk/clock`, {
      method: 'POST',
      headers: { ...auth(ADMIN), ...JSON_TYPE },
      body: JSON.stringify({ pin: '2031-03-04T12:00:00Z' }),
    });
    expect(pinned.status).toBe(200);
    const created = await call(`${a.customerUrl}/api/instances`, {
      method: 'POST',
      headers: { ...auth(ADMIN), ...JSON_TYPE },
      body: JSON.stringify({ name: 'limited', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    expect(created.status).toBe(200);
    const key = created.body.apikey as string;
    // 70 at once, through both replicas: many are counted together in one statement.
    const answers = await Promise.all(
      Array.from({ length: 70 }, (_, i) => call(`${(i % 2 ? a : b).instanceUrl}/api/alarms`, { headers: auth(key) })),
    );
    expect(answers.filter((r) => r.status === 200)).toHaveLength(30);
    const refused = answers.filter((r) => r.status === 429);
    expect(refused).toHaveLength(40);
    expect(refused[0]!.body.error).toMatch(/30 per 86400 s/);
    expect(Number(refused[0]!.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
