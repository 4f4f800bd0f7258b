// Callbacks and readiness tell the truth (issue 31): a client that connects when it receives the
// backup, restore or recovery callback finds the work done, and a fork is ready only once its
// database holds the copy. Real HTTP callbacks, a real embedded server; the delays on the clock are
// zero, so only the database work can hold the callback back.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningTusk } from '../../src/server.js';
import { ADMIN, json, keyAuth, query, startDatabaseTusk } from './support.js';

let tusk: RunningTusk;
let receiver: Server;
let receiverUrl: string;
/** What the receiver runs when a callback arrives, before it answers. */
const onCallback = new Map<string, (body: unknown) => Promise<void>>();

beforeAll(async () => {
  tusk = await startDatabaseTusk();
  receiver = createServer((req, res) => {
    let text = '';
    req.on('data', (d) => (text += d));
    req.on('end', () => {
      const handle = onCallback.get(req.url ?? '');
      void (handle ? handle(JSON.parse(text)) : Promise.resolve()).finally(() => res.end());
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await new Promise((r) => receiver?.close(r));
  await tusk?.close();
}, 30_000);

async function createReady(body: Record<string, unknown> = {}): Promise<{ id: number; url: string; apikey: string }> {
  const created = await json(`${tusk.customerUrl}/api/instances`, {
    method: 'POST',
    headers: ADMIN,
    body: JSON.stringify({ name: 'truth', plan: 'hippo', region: 'amazon-web-services::us-east-1', ...body }),
  });
  for (let i = 0; i < 600; i++) {
    const got = await json(`${tusk.customerUrl}/api/instances/${created.body.id}`, { headers: ADMIN });
    if (got.body.ready) return got.body;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('never ready');
}

/** Calls `read` when the callback to `path` arrives; resolves with what it read. */
function whenCalledBack<T>(path: string, read: () => Promise<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    onCallback.set(path, () => read().then(resolve, reject));
  });
}

/** A database of some megabytes, so that copying it takes the server a moment. */
async function fill(url: string, mark: string): Promise<void> {
  await query(
    url,
    "create table if not exists pad as select g, repeat('x', 100) as filler from generate_series(1, 100000) g",
  );
  await query(url, 'create table if not exists mark (v text)');
  await query(url, 'delete from mark');
  await query(url, `insert into mark values ('${mark}')`);
}

const newestBackup = async (key: string) =>
  ((await json(`${tusk.instanceUrl}/api/backup`, { headers: keyAuth(key) })).body as { id: number }[])[0]!.id;

describe('a callback announces work that is done', () => {
  it("backup: when its callback arrives, its snapshot exists and the listed size is the snapshot's", async () => {
    const i = await createReady();
    await fill(i.url, 'backed up');
    const database = new URL(i.url).pathname.slice(1);
    const seen = whenCalledBack('/backup', async () => {
      const listed = (await json(`${tusk.instanceUrl}/api/backup`, { headers: keyAuth(i.apikey) })).body as {
        id: number;
        size: number;
      }[];
      const newest = listed[0]!;
      const snapshots = await tusk.deps.databases!.admin.databasesLike(`${database}_b${newest.id}`);
      return {
        newest,
        snapshots,
        real: snapshots.size ? await tusk.deps.databases!.admin.size(`${database}_b${newest.id}`) : undefined,
      };
    });
    const made = await json(`${tusk.instanceUrl}/api/backup`, {
      method: 'POST',
      headers: keyAuth(i.apikey),
      body: JSON.stringify({ callback: `${receiverUrl}/backup` }),
    });
    expect(made.status).toBeLessThan(300);
    const { newest, snapshots, real } = await seen;
    expect([...snapshots]).toEqual([`${database}_b${newest.id}`]);
    expect(newest.size).toBe(real);
  });

  it('restore: when its callback arrives, the database holds the backup', async () => {
    const i = await createReady();
    await fill(i.url, 'before');
    await json(`${tusk.instanceUrl}/api/backup`, { method: 'POST', headers: keyAuth(i.apikey), body: '{}' });
    await tusk.deps.databases!.idle();
    await fill(i.url, 'after');
    const seen = whenCalledBack('/restored', () => query(i.url, 'select v from mark'));
    const restored = await json(`${tusk.instanceUrl}/api/backup/restore`, {
      method: 'POST',
      headers: keyAuth(i.apikey),
      body: JSON.stringify({ backup_id: await newestBackup(i.apikey), callback: `${receiverUrl}/restored` }),
    });
    expect(restored.status).toBeLessThan(300);
    expect(await seen).toEqual([{ v: 'before' }]);
  });

  it('pitr: when its callback arrives, the database holds the newest snapshot of that time', async () => {
    const i = await createReady();
    await fill(i.url, 'snapshot');
    await json(`${tusk.instanceUrl}/api/backup`, { method: 'POST', headers: keyAuth(i.apikey), body: '{}' });
    await tusk.deps.databases!.idle();
    await fill(i.url, 'later');
    // The next whole minute on the clock holds the snapshot; the clock moves there.
    const clock = (await json(`${tusk.customerUrl}/__tusk/clock`)).body as { now: string };
    const next = new Date(Math.floor(Date.parse(clock.now) / 60_000) * 60_000 + 60_000);
    await json(`${tusk.customerUrl}/__tusk/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ set: new Date(next.getTime() + 60_000).toISOString() }),
    });
    const pit = next.toISOString().slice(0, 16).replace('T', ' ');
    const seen = whenCalledBack('/pitr', () => query(i.url, 'select v from mark'));
    const recovered = await json(`${tusk.instanceUrl}/api/backup/pitr`, {
      method: 'POST',
      headers: keyAuth(i.apikey),
      body: JSON.stringify({ pit, callback: `${receiverUrl}/pitr` }),
    });
    expect(recovered.status, JSON.stringify(recovered.body)).toBeLessThan(300);
    expect(await seen).toEqual([{ v: 'snapshot' }]);
  });
});

describe('readiness announces a database that holds its copy', () => {
  it('a fork is ready only once its database holds the source as it was', async () => {
    const source = await createReady();
    await fill(source.url, 'source');
    const fork = await createReady({ action: 'fork', instance_id: source.id });
    expect(await query(fork.url, 'select v from mark')).toEqual([{ v: 'source' }]);
    expect(await query(fork.url, 'select count(*)::int as n from pad')).toEqual([{ n: 100000 }]);
  });
});
