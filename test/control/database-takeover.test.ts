// With only its own admin key, an account cannot take over another account's real database through
// its own state load (issue 31, point 2): the load that names the other account's providerid (which
// names the database and its role) with a password of the loader's choosing is a 400, and on the
// real Postgres server the other account's url still opens its data while the loader's opens
// nothing of it. Before, the load answered 200, the loader's url opened the other's data and the
// owner's url stopped working.
import { describe, expect, it } from 'vitest';
import { startTusk, type RunningTusk } from '../../src/server.js';
import { json, query } from '../databases/support.js';

const auth = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}`, 'content-type': 'application/json' });

describe('a state load cannot take over another account\'s database', () => {
  it('naming its providerid with a chosen password is a 400; the owner keeps its data, the loader gets none of it', async () => {
    let tusk: RunningTusk | undefined;
    try {
      tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', provisionDelayMs: 0, databases: 'embedded' });
      const base = tusk.customerUrl;
      const job = async (name: string) => (await json(`${base}/__tusk/accounts`, { method: 'POST', body: JSON.stringify({ name }) })).body as { admin_key: string };
      const x = await job('x');
      const y = await job('y');
      const create = async (key: string, name: string) => {
        const made = await json(`${base}/api/instances`, { method: 'POST', headers: auth(key), body: JSON.stringify({ name, plan: 'hippo', region: 'amazon-web-services::us-east-1' }) });
        expect(made.status).toBe(200);
        return made.body.id as number;
      };
      const xId = await create(x.admin_key, 'x-db');
      const yId = await create(y.admin_key, 'y-db');
      await tusk.deps.databases!.idle();
      const instance = async (key: string, id: number) => (await json(`${base}/api/instances/${id}`, { headers: auth(key) })).body as { url: string; providerid: string; ready: boolean };
      const yBefore = await instance(y.admin_key, yId);
      expect(yBefore.ready).toBe(true);
      await query(yBefore.url, "create table secret (v text); insert into secret values ('y-data')");

      const dump = (await json(`${base}/__tusk/state`, { headers: auth(x.admin_key) })).body;
      dump.account.instances[0].providerid = yBefore.providerid;
      dump.account.instances[0].password = 'chosen-by-x';
      const load = await json(`${base}/__tusk/state`, { method: 'PUT', headers: auth(x.admin_key), body: JSON.stringify(dump) });
      expect(load.status).toBe(400);
      expect(load.body).toMatchObject({ field: 'account.instances.0.providerid', rule: 'unique' });
      await tusk.deps.databases!.idle();

      expect(await instance(y.admin_key, yId)).toEqual(yBefore);
      expect(await query(yBefore.url, 'select v from secret')).toEqual([{ v: 'y-data' }]);
      const xAfter = await instance(x.admin_key, xId);
      expect(xAfter.providerid).not.toBe(yBefore.providerid);
      await expect(query(xAfter.url, 'select v from secret')).rejects.toThrow(/secret/);
      const chosen = new URL(yBefore.url);
      chosen.password = 'chosen-by-x';
      await expect(query(chosen.toString(), 'select 1')).rejects.toThrow(/password authentication failed/);
    } finally {
      await tusk?.close();
    }
  }, 120_000);
});
