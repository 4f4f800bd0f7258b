// The databases behind the instances, checked by their data (`tusk test --check-databases`, for a
// deployment whose instance URLs the runner can reach; always in-process, on an embedded server).
// Each check writes known rows through the instance's `url`, performs the operation through the
// API, and reads the rows back:
// - a ready instance's url connects; after rotate-password the old password is refused and the
//   new url connects;
// - restoreBackup "restores the backup into its database": a backup taken, the rows changed, the
//   backup restored: once the restore callback has arrived, the rows read as they were;
// - createInstance `fork` is "a copy of instance instance_id as it is now": once ready, the fork
//   holds the source's rows, and a write to either is not seen in the other;
// - createInstance `pit` ("a copy as it was at pit") and recoverToPointInTime ("recovers the
//   database to the time pit"): the rows of that time. The documents promise no more than this:
//   the check takes a backup just before that time, so that a deployment recovering from its
//   backups (as the reference implementation does: the newest snapshot at or before pit) and one
//   replaying its log both hold those rows.
// A broken promise is a departure naming the operation and the rule, like the response checks.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callbackPatience,
  ContractViolation,
  createInstance,
  READY_PATIENCE_MS,
  useContract,
  type ContractContext,
} from '../harness/index.js';
import { openReceiver, type Receiver } from '../harness/receiver.js';
import { eventually, pitOf, randomName, sleep } from './helpers.js';

// In-process the reference implementation runs with its embedded database engine for this file.
const t = useContract({ databases: true });
let receiver: Receiver;
beforeAll(async () => {
  receiver = await openReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

const SKIP = 'pass --check-databases to check the databases behind the instances the target creates';
/** Each check waits for readiness, backups and callbacks, and one for a minute to pass. */
const CHECK_TIMEOUT = READY_PATIENCE_MS * 2 + 4 * 60_000;

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function connects(url: string): Promise<boolean> {
  try {
    await withClient(url, (c) => c.query('select 1'));
    return true;
  } catch {
    return false;
  }
}

/** The check's table holds exactly `values`. */
const write = (url: string, ...values: string[]) =>
  withClient(url, async (c) => {
    await c.query('create table if not exists tusk_check (v text)');
    await c.query('delete from tusk_check');
    for (const v of values) await c.query('insert into tusk_check values ($1)', [v]);
  });

/** The values of the check's table, sorted; `missing` when the table is not there. */
const rows = (url: string): Promise<string[] | 'missing'> =>
  withClient(url, async (c) => {
    const exists = await c.query("select to_regclass('tusk_check') is not null as ok");
    if (!exists.rows[0].ok) return 'missing';
    return (await c.query<{ v: string }>('select v from tusk_check order by v')).rows.map((r) => r.v);
  });

/** The url of an instance once getInstance says it is ready. */
async function readyUrl(id: number): Promise<string> {
  let url = '';
  await eventually(async () => {
    const got = await t.api.customer('getInstance', { params: { id } });
    url = got.body.url;
    return got.body.ready === true;
  }, READY_PATIENCE_MS);
  return url;
}

/** A departure of a database operation: the rows read back are not what the documents promise. */
function departs(
  operation: string,
  request: { method: string; path: string },
  rule: string,
  expected: string[],
  got: string[] | 'missing',
): ContractViolation {
  const shown = (v: string[] | 'missing') => (v === 'missing' ? 'no table' : JSON.stringify(v));
  return new ContractViolation(
    operation,
    [`${rule}: the database holds ${shown(got)}, not ${shown(expected)}`],
    { status: 200, headers: {}, text: '' },
    { request, expected: `the rows ${shown(expected)}`, got: `rows ${shown(got)}` },
  );
}

async function expectRows(
  url: string,
  expected: string[],
  operation: string,
  request: { method: string; path: string },
  rule: string,
): Promise<void> {
  const got = await rows(url);
  if (JSON.stringify(got) !== JSON.stringify(expected)) throw departs(operation, request, rule, expected, got);
}

/** Takes a backup of the instance's database; resolves with its id once listBackups lists it. */
async function backup(apikey: string): Promise<number> {
  const before = new Set((await t.api.instance('listBackups', apikey)).body.map((b) => b.id));
  t.api.expectStatus(await t.api.instance('createBackup', apikey), '2XX');
  let id: number | undefined;
  await eventually(
    async () => {
      id = (await t.api.instance('listBackups', apikey)).body.find((b) => !before.has(b.id))?.id;
      return id !== undefined;
    },
    callbackPatience(t) + 10_000,
    500,
  );
  return id!;
}

/** A new instance like `source` made by createInstance with `action`; deleted after the file. */
async function copyOf(
  c: ContractContext,
  source: { id: number; plan: string; region: string },
  action: 'fork' | 'pit',
  pit?: string,
): Promise<number> {
  const res = await c.api.customer('createInstance', {
    body: {
      name: randomName(action),
      plan: source.plan,
      region: source.region,
      action,
      instance_id: source.id,
      ...(pit ? { pit } : {}),
    },
  });
  c.api.expectStatus(res, 200);
  c.cleanup(() => c.api.customer('deleteInstance', { params: { id: res.body.id }, unchecked: true }));
  return res.body.id;
}

describe('the databases behind the instances (--check-databases)', () => {
  it(
    'the url of a ready instance connects; after rotate-password the old password is refused and the new url connects',
    async ({ skip }) => {
      if (!t.target.checkDatabases) return skip(SKIP);
      const { id, apikey } = await createInstance(t);
      const url = await readyUrl(id);
      expect(await connects(url)).toBe(true);
      t.api.expectStatus(await t.api.instance('rotatePassword', apikey), '2XX');
      const fresh = await readyUrl(id);
      expect(fresh).not.toBe(url);
      await eventually(async () => !(await connects(url)), 30_000);
      await eventually(() => connects(fresh), 30_000);
    },
    CHECK_TIMEOUT,
  );

  it(
    'restoreBackup restores the backup into its database: once the restore callback arrives, the rows read as they were when the backup was taken',
    async ({ skip }) => {
      if (!t.target.checkDatabases) return skip(SKIP);
      const { id, apikey } = await createInstance(t);
      const url = await readyUrl(id);
      await write(url, 'kept by the backup');
      const backupId = await backup(apikey);
      await write(url, 'written after the backup');
      const callback = receiver.url();
      t.api.expectStatus(
        await t.api.instance('restoreBackup', apikey, { body: { backup_id: backupId, callback } }),
        '2XX',
      );
      await receiver.waitFor(callback, { timeoutMs: callbackPatience(t) });
      await expectRows(
        url,
        ['kept by the backup'],
        'instance restoreBackup',
        { method: 'POST', path: '/api/backup/restore' },
        'restores the backup into its database (read once the restore callback arrived)',
      );
    },
    CHECK_TIMEOUT,
  );

  it(
    "createInstance with action fork makes a copy of the source as it is now: once ready it holds the source's rows, and the two are independent",
    async ({ skip }) => {
      if (!t.target.checkDatabases) return skip(SKIP);
      const source = await createInstance(t);
      const sourceUrl = await readyUrl(source.id);
      await write(sourceUrl, 'in the source before the fork');
      const fork = await copyOf(t, source, 'fork');
      const forkUrl = await readyUrl(fork);
      const request = { method: 'POST', path: '/api/instances' };
      await expectRows(
        forkUrl,
        ['in the source before the fork'],
        'customer createInstance',
        request,
        'action fork is a copy of instance instance_id as it is now (read once the fork is ready)',
      );
      await write(forkUrl, 'in the fork only');
      await expectRows(
        sourceUrl,
        ['in the source before the fork'],
        'customer createInstance',
        request,
        'a fork is a copy: a write to the fork is not seen in the source',
      );
      await write(sourceUrl, 'in the source only');
      await expectRows(
        forkUrl,
        ['in the fork only'],
        'customer createInstance',
        request,
        'a fork is a copy: a write to the source is not seen in the fork',
      );
    },
    CHECK_TIMEOUT,
  );

  describe('a point in time', () => {
    /**
     * Made once for both checks: an instance whose rows were `at the point in time` from before a
     * backup until after the whole minute `pit` (UTC, second 0), then changed. Waits up to a
     * minute for that minute to pass (pitr takes minutes, not seconds).
     */
    let prepared: Promise<{ source: Awaited<ReturnType<typeof createInstance>>; url: string; pit: number }> | undefined;
    const prepare = () =>
      (prepared ??= (async () => {
        const source = await createInstance(t);
        const url = await readyUrl(source.id);
        await write(url, 'at the point in time');
        await backup(source.apikey);
        // The next whole minute, at least two seconds after the backup was listed (the target's time).
        const pit = Math.ceil((t.api.now() + 2_000) / 60_000) * 60_000;
        while (t.api.now() < pit + 3_000) await sleep(Math.min(5_000, pit + 3_000 - t.api.now() + 100));
        await write(url, 'after the point in time');
        return { source, url, pit };
      })());

    it(
      'createInstance with action pit makes a copy as it was at pit: once ready it holds the rows of that time',
      async ({ skip }) => {
        if (!t.target.checkDatabases) return skip(SKIP);
        const { source, pit } = await prepare();
        const copy = await copyOf(t, source, 'pit', pitOf(pit));
        await expectRows(
          await readyUrl(copy),
          ['at the point in time'],
          'customer createInstance',
          { method: 'POST', path: '/api/instances' },
          `action pit is a copy of instance instance_id as it was at pit ${pitOf(pit)} (read once the copy is ready)`,
        );
      },
      CHECK_TIMEOUT,
    );

    it(
      'recoverToPointInTime recovers the database to the time pit: once the recovery callback arrives, it holds the rows of that time',
      async ({ skip }) => {
        if (!t.target.checkDatabases) return skip(SKIP);
        const { source, url, pit } = await prepare();
        const minute = pitOf(pit).slice(0, 16);
        const callback = receiver.url();
        t.api.expectStatus(
          await t.api.instance('recoverToPointInTime', source.apikey, { body: { pit: minute, callback } }),
          '2XX',
        );
        await receiver.waitFor(callback, { timeoutMs: callbackPatience(t) });
        await expectRows(
          url,
          ['at the point in time'],
          'instance recoverToPointInTime',
          { method: 'POST', path: '/api/backup/pitr' },
          `recovers the database to the time pit ${minute} (read once the recovery callback arrived)`,
        );
      },
      CHECK_TIMEOUT,
    );
  });
});
