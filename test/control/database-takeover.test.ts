// With only its own admin key, an account cannot take over another account's real database through
// its own state load (issue 31, point 2), on the embedded Postgres:
// - a load that names the other account's providerid (which names the database and its role) with
//   a password of the loader's choosing is a 400; the other account's url still opens its data and
//   the loader's opens nothing of it. Before, the load answered 200, the loader's url opened the
//   other's data and the owner's url stopped working;
// - a database whose instance a load leaves out is dropped with it: a later load of another account
//   naming that providerid gets an empty database, not the data left behind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTusk, type RunningTusk } from '../../src/server.js';
import { json, query } from '../databases/support.js';

const auth = (key: string) => ({
  authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}`,
  'content-type': 'application/json',
});

interface Instance {
  id: number;
  url: string;
  providerid: string;
  ready: boolean;
}

describe("a state load cannot reach another account's database", () => {
  let tusk: RunningTusk | undefined;
  let base: string;
  beforeAll(async () => {
    tusk = await startTusk({
      customerPort: 0,
      instancePort: 0,
      log: 'off',
      provisionDelayMs: 0,
      databases: 'embedded',
    });
    base = tusk.customerUrl;
  }, 120_000);
  afterAll(async () => {
    await tusk?.close();
  });

  const job = async (name: string) =>
    (await json(`${base}/__tusk/accounts`, { method: 'POST', body: JSON.stringify({ name }) })).body as {
      admin_key: string;
    };
  const instance = async (key: string, id: number) =>
    (await json(`${base}/api/instances/${id}`, { headers: auth(key) })).body as Instance;
  const create = async (key: string, name: string): Promise<Instance> => {
    const made = await json(`${base}/api/instances`, {
      method: 'POST',
      headers: auth(key),
      body: JSON.stringify({ name, plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    expect(made.status).toBe(200);
    await tusk!.deps.databases!.idle();
    return instance(key, made.body.id);
  };
  const ownState = async (key: string) => (await json(`${base}/__tusk/state`, { headers: auth(key) })).body;
  const load = (key: string, dump: unknown) =>
    json(`${base}/__tusk/state`, { method: 'PUT', headers: auth(key), body: JSON.stringify(dump) });

  it('naming its providerid with a chosen password is a 400; the owner keeps its data, the loader gets none of it', async () => {
    const x = await job('x');
    const y = await job('y');
    const xBefore = await create(x.admin_key, 'x-db');
    const yBefore = await create(y.admin_key, 'y-db');
    expect(yBefore.ready).toBe(true);
    await query(yBefore.url, "create table secret (v text); insert into secret values ('y-data')");

    const dump = await ownState(x.admin_key);
    dump.account.instances[0].providerid = yBefore.providerid;
    dump.account.instances[0].password = 'chosen-by-x';
    const res = await load(x.admin_key, dump);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ field: 'account.instances.0.providerid', rule: 'unique' });
    await tusk!.deps.databases!.idle();

    expect(await instance(y.admin_key, yBefore.id)).toEqual(yBefore);
    expect(await query(yBefore.url, 'select v from secret')).toEqual([{ v: 'y-data' }]);
    const xAfter = await instance(x.admin_key, xBefore.id);
    expect(xAfter).toEqual(xBefore);
    await expect(query(xAfter.url, 'select v from secret')).rejects.toThrow(/secret/);
    const chosen = new URL(yBefore.url);
    chosen.password = 'chosen-by-x';
    await expect(query(chosen.toString(), 'select 1')).rejects.toThrow(/password authentication failed/);
  }, 120_000);

  it('a database its load leaves out goes with it: another account naming that providerid later gets an empty one', async () => {
    const x = await job('x2');
    const y = await job('y2');
    const left = await create(x.admin_key, 'left-out');
    await query(left.url, "create table secret (v text); insert into secret values ('x-data')");
    await create(y.admin_key, 'y2-db');

    const xDump = await ownState(x.admin_key);
    xDump.account.instances = [];
    expect((await load(x.admin_key, xDump)).status).toBe(200);

    const yDump = await ownState(y.admin_key);
    yDump.account.instances[0].providerid = left.providerid;
    yDump.account.instances[0].password = 'chosen-by-y';
    expect((await load(y.admin_key, yDump)).status).toBe(200);
    await tusk!.deps.databases!.idle();
    const taken = await instance(y.admin_key, yDump.account.instances[0].id);
    expect(taken.providerid).toBe(left.providerid);
    expect(taken.ready).toBe(true);
    await expect(query(taken.url, 'select v from secret')).rejects.toThrow(/secret/);
  }, 120_000);
});
