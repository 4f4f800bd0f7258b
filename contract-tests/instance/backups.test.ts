// Backups of the instance interface: the 30-day listing, creating a backup (asynchronous, with its
// callback), restore and point-in-time recovery with their callbacks, and the errors a client can
// provoke. Callbacks are received by a local receiver (TUSK_CALLBACK_HOST for remote targets).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callbackPatience, createInstance, useContract } from '../harness/index.js';
import { openReceiver, type Receiver } from '../harness/receiver.js';
import { DAY, expectError, expectMethodNotAllowed, pitOf, poll, timeOf } from './support.js';

const t = useContract();
let key: string;
let receiver: Receiver;
beforeAll(async () => {
  receiver = await openReceiver();
  ({ apikey: key } = await createInstance(t));
});
afterAll(async () => {
  await receiver?.close();
});

const listBackups = async (db?: string) => {
  const res = await t.api.instance('listBackups', key, db === undefined ? {} : { query: { db } });
  expect(res.status, res.text).toBe(200);
  return res.body;
};

/** How long a callback may take to arrive (see callbackPatience). */
const patience = () => callbackPatience(t);
const CALLBACK_TEST_TIMEOUT = Number(process.env.TUSK_CALLBACK_TIMEOUT_MS ?? 60_000) * 2 + 30_000;

/** The callback schemas of the document, to check what arrives at the receiver. */
const callbackValidator = (name: string) => t.contract.schemas.validator('instance', `#/components/schemas/${name}`);

describe('listing backups', () => {
  it('lists the backups of the last 30 days, most recent first, in the documented forms', async () => {
    const list = await listBackups();
    expect(list.length).toBeGreaterThan(0);
    const times = list.map((b) => timeOf(b.backup_date));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    // 30 days back from now, with a minute of slack for clocks.
    expect(Math.min(...times)).toBeGreaterThanOrEqual(t.api.now() - 30 * DAY - 60_000);
    for (const b of list) {
      expect(b.url).toMatch(/^https?:\/\//);
      expect(b.file_name).toContain('/');
    }
  });

  it('each database has one database id', async () => {
    const list = await listBackups();
    const byName = new Map<string, Set<string>>();
    for (const b of list) byName.set(b.database_name, (byName.get(b.database_name) ?? new Set()).add(b.database_id));
    for (const ids of byName.values()) expect(ids.size).toBe(1);
  });

  it('db filters by database name; a name without backups gives an empty list', async () => {
    const [first] = await listBackups();
    const filtered = await listBackups(first!.database_name);
    expect(filtered.length).toBeGreaterThan(0);
    expect(filtered.every((b) => b.database_name === first!.database_name)).toBe(true);
    expect(await listBackups('no-such-database')).toEqual([]);
  });

  it('an empty db is a 400 naming db', async () => {
    expectError(await t.api.instance('listBackups', key, { query: { db: '' } }), 400, 'db');
  });

  it('the download link is signed and time-limited', async () => {
    const [b] = await listBackups();
    const url = new URL(b!.url);
    // Reference implementation's form: ?expires=<unix seconds>&signature=<hex>.
    const expires = Number(url.searchParams.get('expires'));
    expect(expires * 1000).toBeGreaterThan(t.api.now());
    expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]+$/);
  });
});

describe('creating a backup', () => {
  it('answers at once and lists the backup once it is ready, first', { timeout: CALLBACK_TEST_TIMEOUT }, async () => {
    const before = new Set((await listBackups()).map((b) => b.id));
    const res = await t.api.instance('createBackup', key);
    expect([200, 204]).toContain(res.status);
    // A deployment takes its time to make a backup (Tusk: 5 s): wait as for its callback.
    const fresh = await poll(async () => (await listBackups()).find((b) => !before.has(b.id)), patience() + 5_000);
    expect((await listBackups())[0]).toEqual({ ...fresh, url: expect.any(String) });
    expect(t.api.now() - timeOf(fresh.backup_date)).toBeLessThan(10 * 60_000);
  });

  it(
    'POSTs the BackupReadyCallback to the callback when the backup is ready',
    async () => {
      const [existing] = await listBackups();
      const db = existing!.database_name;
      const callback = receiver.url();
      const res = await t.api.instance('createBackup', key, { body: { db, callback } });
      expect([200, 204]).toContain(res.status);
      const got = await receiver.waitFor(callback, { timeoutMs: patience() });
      expect(got.method).toBe('POST');
      expect(String(got.headers['content-type'])).toMatch(/application\/json/);
      const validate = callbackValidator('BackupReadyCallback');
      expect(validate(got.body), JSON.stringify(validate.errors)).toBe(true);
      const body = got.body as { backup_id: number; database_name: string };
      expect(body).toMatchObject({ action: 'backup', database_name: db, status: 'ready' });
      // The backup it names is listed by then.
      expect((await listBackups(db)).some((b) => b.id === body.backup_id)).toBe(true);
    },
    CALLBACK_TEST_TIMEOUT,
  );

  it(
    'accepts form encoding',
    async () => {
      const [existing] = await listBackups();
      const callback = receiver.url();
      const res = await t.api.instance('createBackup', key, {
        body: { db: existing!.database_name, callback },
        form: true,
      });
      expect([200, 204]).toContain(res.status);
      expect((await receiver.waitFor(callback, { timeoutMs: patience() })).body).toMatchObject({
        action: 'backup',
        database_name: existing!.database_name,
      });
    },
    CALLBACK_TEST_TIMEOUT,
  );

  it('refuses a database the instance does not have and a callback that is not an http(s) URL (400)', async () => {
    expectError(await t.api.instance('createBackup', key, { body: { db: 'no-such-database' } }), 400, 'db');
    expectError(
      await t.api.instance('createBackup', key, { body: { callback: 'ftp://example.com/x' } }),
      400,
      'callback',
    );
  });
});

describe('restoring a backup', () => {
  it(
    'POSTs {action: restore, backup_id, account_id} to the callback when the restore completes',
    async () => {
      const [b] = await listBackups();
      const callback = receiver.url();
      const res = await t.api.instance('restoreBackup', key, { body: { backup_id: b!.id, callback } });
      expect([200, 204]).toContain(res.status);
      const got = await receiver.waitFor(callback, { timeoutMs: patience() });
      const validate = callbackValidator('RestoreCompletedCallback');
      expect(validate(got.body), JSON.stringify(validate.errors)).toBe(true);
      expect(got.body).toMatchObject({ action: 'restore', backup_id: b!.id });
    },
    CALLBACK_TEST_TIMEOUT,
  );

  it('accepts form encoding and no callback', async () => {
    const [b] = await listBackups();
    const res = await t.api.instance('restoreBackup', key, { body: { backup_id: b!.id }, form: true });
    expect([200, 204]).toContain(res.status);
  });

  it('refuses a backup_id that names no backup of this instance, a missing or non-integer one (400 naming backup_id)', async () => {
    const ids = (await listBackups()).map((b) => b.id);
    const unknown = Math.max(...ids) + 100000;
    const callback = receiver.url();
    expectError(
      await t.api.instance('restoreBackup', key, { body: { backup_id: unknown, callback } }),
      400,
      'backup_id',
    );
    expectError(await t.api.instance('restoreBackup', key, { body: { callback } }), 400, 'backup_id');
    expectError(await t.api.instance('restoreBackup', key, { body: { backup_id: 'latest' } }), 400, 'backup_id');
    expectError(await t.api.instance('restoreBackup', key, { body: { backup_id: 'x' }, form: true }), 400, 'backup_id');
    expectError(await t.api.instance('restoreBackup', key), 400, 'backup_id');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at(callback)).toEqual([]);
  });
});

describe('point-in-time recovery', () => {
  it(
    'POSTs {action: pitr, account_id} to the callback when the recovery completes',
    async () => {
      const callback = receiver.url();
      const res = await t.api.instance('recoverToPointInTime', key, {
        body: { pit: pitOf(t.api.now() - 60 * 60_000), callback },
      });
      expect([200, 204]).toContain(res.status);
      const got = await receiver.waitFor(callback, { timeoutMs: patience() });
      const validate = callbackValidator('PitrCompletedCallback');
      expect(validate(got.body), JSON.stringify(validate.errors)).toBe(true);
      expect(got.body).toMatchObject({ action: 'pitr' });
    },
    CALLBACK_TEST_TIMEOUT,
  );

  it(
    'the callbacks of one instance carry the same account id',
    async () => {
      const [b] = await listBackups();
      const restore = receiver.url();
      const pitr = receiver.url();
      await t.api.instance('restoreBackup', key, { body: { backup_id: b!.id, callback: restore } });
      await t.api.instance('recoverToPointInTime', key, {
        body: { pit: pitOf(t.api.now() - 2 * DAY), callback: pitr },
        form: true,
      });
      const [r, p] = await Promise.all([
        receiver.waitFor(restore, { timeoutMs: patience() }),
        receiver.waitFor(pitr, { timeoutMs: patience() }),
      ]);
      expect((r.body as { account_id: string }).account_id).toBe((p.body as { account_id: string }).account_id);
    },
    CALLBACK_TEST_TIMEOUT,
  );

  it('refuses a pit in the future, before the 30-day window, not on the calendar or in another form (400 naming pit)', async () => {
    const callback = receiver.url();
    for (const pit of [
      pitOf(t.api.now() + DAY),
      pitOf(t.api.now() - 31 * DAY),
      '2026-02-30 10:00',
      '2026-11-20T14:30',
      '2026-11-20 14:30:00',
      '',
    ]) {
      expectError(await t.api.instance('recoverToPointInTime', key, { body: { pit, callback } }), 400, 'pit');
    }
    expectError(await t.api.instance('recoverToPointInTime', key, { body: { callback } }), 400, 'pit');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.at(callback)).toEqual([]);
  });
});

describe('backup paths', () => {
  it('unsupported methods are a 405 with Allow', async () => {
    await expectMethodNotAllowed(t, 'DELETE', '/api/backup', key, ['GET', 'POST']);
    await expectMethodNotAllowed(t, 'GET', '/api/backup/restore', key, ['POST']);
    await expectMethodNotAllowed(t, 'PUT', '/api/backup/pitr', key, ['POST']);
  });
});
