// One stand-in, many CI jobs (issue 18): every control that acts on state, scoped to one account by
// its admin key (`-u :KEY`) or ?account=ID, acts on that account only. Each account has its own
// clock (provisioning, backups, rate-limit windows and outbox deliveries follow it), its own faults,
// outbox entries, journal entries and state; the server's clock stays the default that accounts
// follow until they move their own. Every control is tried with no key, a wrong key, another
// account's key and the right key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';

const DAY = 86_400_000;
const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });

interface Job {
  account_id: string;
  admin_key: string;
  keys: Record<string, string>;
}

describe('controls scoped to one account', () => {
  let tusk: Tusk;
  let a: Job;
  let b: Job;
  const call = async (
    port: 'customer' | 'instance',
    path: string,
    init: { method?: string; key?: string; body?: unknown } = {},
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read as the tests need them
  ): Promise<{ status: number; body: any; headers: Headers }> => {
    const res = await tusk[port].fetch(
      new Request(`http://tusk${path}`, {
        method: init.method ?? 'GET',
        headers: {
          ...(init.key ? basic(init.key) : {}),
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
        },
        ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
      }),
    );
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
  };
  const control = (path: string, init: { method?: string; key?: string; body?: unknown } = {}) =>
    call('customer', `/__tusk${path}`, init);
  const newJob = async (name: string) => {
    const res = await control('/accounts', { method: 'POST', body: { name } });
    expect(res.status).toBe(201);
    return res.body as Job;
  };
  const createInstance = async (job: Job, name: string) => {
    const res = await call('customer', '/api/instances', {
      method: 'POST',
      key: job.admin_key,
      body: { name, plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    expect(res.status).toBe(200);
    return res.body as { id: number; apikey: string };
  };
  const ready = async (job: Job, id: number) =>
    (await call('customer', `/api/instances/${id}`, { key: job.admin_key })).body.ready as boolean;

  beforeAll(async () => {
    tusk = await createTusk({
      log: 'off',
      provisionDelayMs: 60_000,
      rateLimit: '5/60',
      registry: { outbox: { fetch: (async () => new Response(null, { status: 204 })) as typeof fetch } },
    });
    a = await newJob('job a');
    b = await newJob('job b');
  });
  afterAll(() => tusk.control.close());

  describe('the clock of an account', () => {
    it("moving one account's clock moves its provisioning only: the other account and the server stay", async () => {
      const x = await createInstance(a, 'a-db');
      const y = await createInstance(b, 'b-db');
      const before = await control('/clock');
      expect(await ready(a, x.id)).toBe(false);
      const moved = await control('/clock', { method: 'POST', key: a.admin_key, body: { advance: '1d' } });
      expect(moved.status).toBe(200);
      expect(moved.body).toMatchObject({ account: a.account_id, follows_server: false, pinned: false });
      expect(Date.parse(moved.body.now) - Date.parse(before.body.now)).toBeGreaterThanOrEqual(DAY);
      expect(await ready(a, x.id)).toBe(true);
      expect(await ready(b, y.id)).toBe(false);
      const server = await control('/clock');
      expect(server.body.offset_ms).toBe(before.body.offset_ms);
      expect((await control('/clock', { key: b.admin_key })).body).toMatchObject({
        account: b.account_id,
        follows_server: true,
      });
    });

    it('an account that follows the server moves with it; one with its own clock does not, until it follows again', async () => {
      const c = await newJob('job c');
      const own = (await control('/clock', { key: a.admin_key })).body;
      const follower = await createInstance(c, 'c-db');
      expect(await ready(c, follower.id)).toBe(false);
      expect((await control('/clock', { method: 'POST', body: { advance: '2m' } })).status).toBe(200);
      expect(await ready(c, follower.id)).toBe(true);
      const after = (await control('/clock', { key: a.admin_key })).body;
      expect(Date.parse(after.now) - Date.parse(own.now)).toBeLessThan(60_000);
      const back = await control(`/clock?account=${a.account_id}`, { method: 'POST', body: { follow_server: true } });
      expect(back.status).toBe(200);
      expect(back.body.follows_server).toBe(true);
      expect(Math.abs(Date.parse(back.body.now) - Date.parse((await control('/clock')).body.now))).toBeLessThan(1000);
    });

    it("answers to an account whose clock runs ahead carry its time in Date and Tusk-Now; those following the server, the server's", async () => {
      expect((await control('/clock', { method: 'POST', key: a.admin_key, body: { advance: '1h' } })).status).toBe(200);
      const ahead = await call('customer', '/api/plans', { key: a.admin_key });
      const clock = (await control('/clock', { key: a.admin_key })).body;
      expect(clock.follows_server).toBe(false);
      const told = (res: { headers: Headers }) => ({
        date: Date.parse(res.headers.get('date')!),
        now: Date.parse(res.headers.get('tusk-now') ?? ''),
      });
      for (const res of [ahead, await call('customer', '/api/instances/999999', { key: a.admin_key })]) {
        const { date, now } = told(res);
        expect(Math.abs(date - Date.parse(clock.now))).toBeLessThan(2000);
        // Tusk-Now: ISO 8601 with ms, the same time as Date (which has whole seconds).
        expect(res.headers.get('tusk-now')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
        expect(now - date).toBeGreaterThanOrEqual(0);
        expect(now - date).toBeLessThan(1000);
      }
      // b follows the server's clock (moved 2 minutes above): its answers tell the server's time.
      const server = Date.parse((await control('/clock')).body.now);
      const following = told(await call('customer', '/api/plans', { key: b.admin_key }));
      expect(Math.abs(following.date - server)).toBeLessThan(2000);
      expect(Math.abs(following.now - server)).toBeLessThan(2000);
    });

    it('follow_server without an account is a 400 naming the field', async () => {
      expect(await control('/clock', { method: 'POST', body: { follow_server: true } })).toMatchObject({
        status: 400,
        body: { field: 'follow_server', rule: 'scope' },
      });
    });

    it("rate-limit windows run on the account's clock: advancing one account opens its window, not the other's", async () => {
      const limited = async (job: Job) => {
        let last = 0;
        for (let i = 0; i < 6; i++) last = (await call('customer', '/api/regions', { key: job.keys.member! })).status;
        return last;
      };
      const d = await newJob('job d');
      const e = await newJob('job e');
      expect(await limited(d)).toBe(429);
      expect(await limited(e)).toBe(429);
      expect((await control('/clock', { method: 'POST', key: d.admin_key, body: { advance: '61s' } })).status).toBe(
        200,
      );
      expect((await call('customer', '/api/regions', { key: d.keys.member! })).status).toBe(200);
      expect((await call('customer', '/api/regions', { key: e.keys.member! })).status).toBe(429);
    });
  });

  describe('outbox, journal and faults of an account', () => {
    it('the outbox scoped to an account lists its callbacks only, on its clock', async () => {
      const x = await createInstance(a, 'a-callbacks');
      await control('/clock', { method: 'POST', key: a.admin_key, body: { advance: '1m' } });
      expect(
        (
          await call('instance', '/api/backup', {
            method: 'POST',
            key: x.apikey,
            body: { callback: 'http://127.0.0.1:9/a' },
          })
        ).status,
      ).toBe(204);
      const mine = await control('/outbox', { key: a.admin_key });
      expect(mine.body.entries.map((e: { target: string; account: string }) => [e.target, e.account])).toEqual([
        ['http://127.0.0.1:9/a', a.account_id],
      ]);
      expect((await control('/outbox', { key: b.admin_key })).body.entries).toEqual([]);
      expect((await control('/outbox')).body.entries.length).toBeGreaterThanOrEqual(1);
    });

    it('the journal scoped to an account shows its requests only; clearing it forgets only them', async () => {
      await call('customer', '/api/plans', { key: a.admin_key });
      await call('customer', '/api/regions', { key: b.admin_key });
      const ofA = (await control('/requests?limit=1000', { key: a.admin_key })).body.entries as {
        account: string;
        path: string;
      }[];
      expect(ofA.length).toBeGreaterThan(0);
      expect(ofA.every((e) => e.account === a.account_id)).toBe(true);
      expect(ofA.some((e) => e.path === '/api/plans')).toBe(true);
      expect((await control('/requests', { method: 'DELETE', key: a.admin_key })).status).toBe(204);
      expect((await control('/requests', { key: a.admin_key })).body.entries).toEqual([]);
      const ofB = (await control('/requests?limit=1000', { key: b.admin_key })).body.entries as { path: string }[];
      expect(ofB.some((e) => e.path === '/api/regions')).toBe(true);
    });

    it("faults set for one account hit its requests only, and the server's rules stay as they were", async () => {
      const set = await control('/faults', {
        method: 'PUT',
        key: a.admin_key,
        body: { rules: ['customer/listPlans:error=500'] },
      });
      expect(set).toMatchObject({
        status: 200,
        body: { rules: [{ operation: 'listPlans', api: 'customer', error: { status: 500 } }] },
      });
      expect((await call('customer', '/api/plans', { key: a.admin_key })).status).toBe(500);
      expect((await call('customer', '/api/plans', { key: b.admin_key })).status).toBe(200);
      // While an account has rules, a key of no account (or none) still gets its 401.
      expect((await call('customer', '/api/plans', { key: 'no-such-key' })).status).toBe(401);
      expect((await call('instance', '/api/alarms', { key: 'no-such-key' })).status).toBe(401);
      expect((await call('customer', '/api/plans')).status).toBe(401);
      expect((await control('/faults')).body.rules).toEqual([]);
      expect((await control('/faults', { key: b.admin_key })).body.rules).toEqual([]);
      expect((await control('/faults', { method: 'DELETE', key: a.admin_key })).status).toBe(204);
      expect((await call('customer', '/api/plans', { key: a.admin_key })).status).toBe(200);
    });
  });

  describe('the state of an account', () => {
    it('a dump of one account loads back into it, and leaves the other accounts as they are', async () => {
      const dump = await control('/state', { key: a.admin_key });
      expect(dump.status).toBe(200);
      expect(dump.body.account.id).toBe(a.account_id);
      const before = (await call('customer', '/api/instances', { key: a.admin_key })).body.length;
      await createInstance(a, 'a-after-dump');
      const bBefore = (await call('customer', '/api/instances', { key: b.admin_key })).body;
      const load = await control('/state', { method: 'PUT', key: a.admin_key, body: dump.body });
      expect(load.status).toBe(200);
      expect(load.body.accounts).toEqual([{ account_id: a.account_id, name: 'job a' }]);
      expect((await call('customer', '/api/instances', { key: a.admin_key })).body.length).toBe(before);
      expect((await call('customer', '/api/instances', { key: b.admin_key })).body).toEqual(bBefore);
    });

    it("another account's dump is a 400 and changes nothing", async () => {
      const other = (await control('/state', { key: b.admin_key })).body;
      const before = (await control('/state', { key: a.admin_key })).body;
      const res = await control('/state', { method: 'PUT', key: a.admin_key, body: other });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: 'account.id', rule: 'same-account' });
      expect((await control('/state', { key: a.admin_key })).body).toEqual(before);
    });
  });

  describe('who may act on an account', () => {
    const scoped = [
      ['POST', '/reset'],
      ['GET', '/clock'],
      ['GET', '/state'],
      ['GET', '/outbox'],
      ['GET', '/requests'],
      ['GET', '/faults'],
    ] as const;

    it('a wrong key is a 401 on every control that acts on state', async () => {
      for (const [method, path] of scoped)
        expect((await control(path, { method, key: 'no-such-key-00000000' })).status, `${method} ${path}`).toBe(401);
    });

    it("another account's admin key naming this account is a 403, and changes nothing", async () => {
      const clock = (await control('/clock', { key: a.admin_key })).body;
      for (const [method, path] of scoped)
        expect(
          (await control(`${path}?account=${a.account_id}`, { method, key: b.admin_key })).status,
          `${method} ${path}`,
        ).toBe(403);
      expect(
        (await control(`/clock?account=${a.account_id}`, { method: 'POST', key: b.admin_key, body: { advance: '1d' } }))
          .status,
      ).toBe(403);
      expect(Date.parse((await control('/clock', { key: a.admin_key })).body.now) - Date.parse(clock.now)).toBeLessThan(
        60_000,
      );
    });

    it('a key of the account that is not its admin key is a 403 naming the role', async () => {
      const res = await control('/clock', { key: a.keys.member! });
      expect(res).toMatchObject({ status: 403, body: { error: expect.stringMatching(/admin key.*member key/) } });
    });

    it("the account's own admin key, and ?account= with no key, act on that account", async () => {
      for (const [method, path] of scoped) {
        if (method !== 'GET') continue;
        expect((await control(path, { key: a.admin_key })).status, path).toBe(200);
        expect((await control(`${path}?account=${a.account_id}`)).status, path).toBe(200);
      }
      expect((await control('/reset', { method: 'POST', key: b.admin_key })).body.accounts).toEqual([
        { account_id: b.account_id, name: 'job b' },
      ]);
    });

    it('re-seeding and creating accounts act on the whole server: scoped to an account they are a 403', async () => {
      expect((await control('/seed', { method: 'POST', key: a.admin_key, body: { seed: 2 } })).status).toBe(403);
      expect((await control('/accounts', { method: 'POST', key: a.admin_key, body: {} })).status).toBe(403);
    });
  });

  describe('twenty jobs at once', () => {
    it("each moves its clock, injects its fault, reads its outbox and journal and resets its account while the others do the same: none sees another's", async () => {
      const jobs = await Promise.all(Array.from({ length: 20 }, (_, i) => newJob(`parallel ${i}`)));
      const serverBefore = (await control('/clock')).body.offset_ms;
      const results = await Promise.all(
        jobs.map(async (job, i) => {
          const seen: string[] = [];
          const check = (ok: boolean, what: string) => ok || seen.push(what);
          const x = await createInstance(job, `job-${i}`);
          // Each job moves its clock by its own number of hours: its instance's provisioning (60 s) is over.
          const moved = await control('/clock', { method: 'POST', key: job.admin_key, body: { advance: `${i + 1}h` } });
          check(moved.body.account === job.account_id, 'its clock answer names it');
          check(await ready(job, x.id), 'its instance is ready on its clock');
          await call('instance', '/api/backup', {
            method: 'POST',
            key: x.apikey,
            body: { callback: `http://127.0.0.1:9/job-${i}` },
          });
          check(
            (
              await control('/faults', {
                method: 'PUT',
                key: job.admin_key,
                body: { rules: ['customer/listRegions:error=429'] },
              })
            ).status === 200,
            'its fault is set',
          );
          check(
            (await call('customer', '/api/regions', { key: job.admin_key })).status === 429,
            'it meets its own fault',
          );
          const outbox = (await control('/outbox', { key: job.admin_key })).body.entries as {
            target: string;
            account: string;
          }[];
          check(
            outbox.length === 1 &&
              outbox[0]!.target === `http://127.0.0.1:9/job-${i}` &&
              outbox[0]!.account === job.account_id,
            `its outbox holds its callback only: ${JSON.stringify(outbox)}`,
          );
          const journal = (await control('/requests?limit=1000', { key: job.admin_key })).body.entries as {
            account: string;
          }[];
          check(
            journal.length > 0 && journal.every((e) => e.account === job.account_id),
            'its journal holds its requests only',
          );
          const names = (
            (await call('customer', '/api/instances', { key: job.admin_key })).body as { name: string }[]
          ).map((n) => n.name);
          check(names.length === 1 && names[0] === `job-${i}`, `its instances are its own: ${names.join(', ')}`);
          const clock = (await control('/clock', { key: job.admin_key })).body;
          check(
            Math.abs(Date.parse(clock.now) - Date.now() - (i + 1) * 3_600_000 - serverBefore) < 60_000,
            'its clock is its own hours ahead',
          );
          await control('/faults', { method: 'DELETE', key: job.admin_key });
          check(
            (await control('/reset', { method: 'POST', key: job.admin_key })).status === 200,
            'it resets its account',
          );
          return seen;
        }),
      );
      expect(results).toEqual(jobs.map(() => []));
      expect((await control('/clock')).body.offset_ms).toBe(serverBefore);
      // The others' faults never reached the accounts made before (a 429 there is the rate limit, not a fault).
      expect((await call('customer', '/api/regions', { key: b.keys.devops! })).headers.get('tusk-fault')).toBeNull();
    });
  });
});
