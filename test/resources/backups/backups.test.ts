// InstanceStore: backups, restore and point-in-time recovery, driven by the registry's clock.
import { beforeEach, describe, expect, it } from 'vitest';
import type { InstanceStore } from '../../../src/resources/instances/instance.js';
import { formatBackupDate } from '../../../src/domain/dates.js';
import { SEEDED_BACKUP_DAYS } from '../../../src/resources/backups/backups.js';
import {
  ACCOUNT_ID,
  BACKUP_DELAY_MS,
  DAY,
  HOUR,
  MINUTE,
  NOW,
  RESTORE_DELAY_MS,
  refused,
  setup,
  snapshot,
  type Setup,
} from '../instance-setup.js';

let s: Setup;
let i: InstanceStore;
beforeEach(async () => {
  s = await setup();
  i = s.instance({ id: 5, region: 'google-compute-engine::us-central1' });
});

const outbox = () =>
  s.registry.outbox.list().map((e) => ({ event: e.event, target: e.target, body: e.body, dueAt: e.dueAt }));
const dateOf = (backupDate: string) => Date.parse(backupDate.replace(' ', 'T').replace('+0000', 'Z'));

describe('listing backups', () => {
  it('shows the last 30 days only, most recent first', () => {
    const list = i.backups.list();
    const dates = list.map((b) => dateOf(b.backup_date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(Math.min(...dates)).toBeGreaterThanOrEqual(NOW - 30 * DAY);
    expect(Math.max(...dates)).toBeLessThanOrEqual(NOW);
  });

  it('fills every field in the documented forms', () => {
    const [b] = i.backups.list('analytics');
    expect(b).toEqual({
      id: expect.any(Number),
      database_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      backup_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+0000$/),
      size: expect.any(Number),
      bucket: 'tusk-backups-us-central1',
      file_name: expect.stringMatching(
        /^backups\/[0-9a-f]{8}\/analytics\/\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d+\.tar\.gz$/,
      ),
      region: 'google-compute-engine::us-central1',
      database_name: 'analytics',
      url: expect.stringMatching(
        /^https:\/\/backups\.tusk\.example\/backups\/.+\.tar\.gz\?expires=\d+&signature=[0-9a-f]{64}$/,
      ),
    });
    expect(Number.isInteger(b!.size)).toBe(true);
    expect(b!.size).toBeGreaterThan(0);
  });

  it('gives one database id per database', () => {
    const ids = (db: string) => new Set(i.backups.list(db).map((b) => b.database_id));
    expect(ids('db5').size).toBe(1);
    expect(ids('analytics').size).toBe(1);
    expect([...ids('db5')][0]).not.toBe([...ids('analytics')][0]);
  });

  it('filters by database name; an unknown name gives an empty list', () => {
    expect(i.backups.list('db5').every((b) => b.database_name === 'db5')).toBe(true);
    expect(i.backups.list('nope')).toEqual([]);
  });

  it('signs download links that expire an hour after the listing', () => {
    const [b] = i.backups.list();
    const url = new URL(b!.url);
    const expires = Number(url.searchParams.get('expires'));
    expect(expires).toBe(Math.floor((NOW + HOUR) / 1000));
    // The signature is an HMAC over the path and expires: a later listing signs a later expiry.
    s.clock.advance(10 * MINUTE);
    const again = new URL(i.backups.list().find((x) => x.id === b!.id)!.url);
    expect(Number(again.searchParams.get('expires'))).toBe(expires + 600);
    expect(again.searchParams.get('signature')).not.toBe(url.searchParams.get('signature'));
    expect(again.pathname).toBe(url.pathname);
    // Another instance (another provider id) signs with another key.
    const other = s.instance({ id: 5, region: 'google-compute-engine::us-central1' });
    expect(new URL(other.backups.list()[0]!.url).searchParams.get('signature')).not.toBe(
      again.searchParams.get('signature'),
    );
  });

  it('moves with the clock: a day later, the oldest day has left the window', () => {
    const oldest = i.backups.list().at(-1)!;
    s.clock.advance(DAY);
    expect(i.backups.list().some((b) => b.id === oldest.id)).toBe(false);
  });
});

describe('the list as bytes', () => {
  it("listBackupsJson() is always the JSON of listBackups(): as time moves the window and the URLs' expiry, after a backup, a size, per database", () => {
    const same = (db?: string) =>
      expect(Buffer.from(i.backups.listJson(db)).toString()).toBe(JSON.stringify(i.backups.list(db)));
    same();
    same('analytics');
    same();
    expect(i.backups.listJson()).toBe(i.backups.listJson()); // the same second, the same bytes
    s.clock.advance(1000);
    same();
    const { id } = i.backups.create({ db: 'analytics' });
    same();
    s.clock.advance(BACKUP_DELAY_MS);
    same();
    same('analytics');
    i.backups.setSize(id, 12345);
    same('analytics');
    s.clock.advance(3 * DAY);
    same();
  });

  it('is the JSON of listBackups() at the very millisecond each thing changes, and when the clock is set back', () => {
    const same = (db?: string) =>
      expect(Buffer.from(i.backups.listJson(db)).toString()).toBe(JSON.stringify(i.backups.list(db)));
    same();
    // A backup becomes ready.
    i.backups.create({});
    s.clock.advance(BACKUP_DELAY_MS - 1);
    same();
    s.clock.advance(1);
    same();
    // The oldest listed backup leaves the 30-day window: the millisecond before, at, after.
    const oldest = i.backups.list().at(-1)!;
    const leaves = dateOf(oldest.backup_date) + 30 * DAY;
    for (const at of [leaves - 1, leaves, leaves + 1]) {
      s.clock.set(at);
      same();
    }
    // The next daily backup is taken (03:xx UTC): step through the hours of a day a minute at a time.
    for (let m = 0; m < 6 * 60; m++) {
      s.clock.advance(MINUTE);
      if (m % 7 === 0) same();
    }
    same('analytics');
    // Back in time: the list of that moment again.
    s.clock.set(NOW + HOUR);
    same();
    same('analytics');
  });
});

describe('creating a backup', () => {
  it('lists the backup only once it is ready, then first', () => {
    i.backups.create({});
    expect(i.backups.list()).toHaveLength(60);
    s.clock.advance(BACKUP_DELAY_MS - 1);
    expect(i.backups.list()).toHaveLength(60);
    s.clock.advance(1);
    const [first] = i.backups.list();
    expect(first).toMatchObject({ database_name: 'db5', backup_date: formatBackupDate(NOW) });
  });

  it('backs up the named database', () => {
    const { id } = i.backups.create({ db: 'analytics' });
    s.clock.advance(BACKUP_DELAY_MS);
    expect(i.backups.list('analytics')[0]!.id).toBe(id);
    expect(i.backups.list('db5').some((b) => b.id === id)).toBe(false);
  });

  it('schedules the BackupReadyCallback for when the backup is ready', () => {
    const { id } = i.backups.create({ db: 'analytics', callback: 'https://hooks.example.com/ready' });
    expect(outbox()).toEqual([
      {
        event: 'backup',
        target: 'https://hooks.example.com/ready',
        body: { action: 'backup', backup_id: id, account_id: ACCOUNT_ID, database_name: 'analytics', status: 'ready' },
        dueAt: NOW + BACKUP_DELAY_MS,
      },
    ]);
  });

  it('schedules nothing without a callback', () => {
    i.backups.create({});
    expect(outbox()).toEqual([]);
  });

  it('refuses a database the instance does not have (400 naming db), and changes nothing', () => {
    const before = snapshot(i);
    refused(() => i.backups.create({ db: 'other', callback: 'https://hooks.example.com/ready' }), 400, 'db');
    s.clock.advance(BACKUP_DELAY_MS);
    expect(i.backups.list()).toEqual(before.backups.map((b) => ({ ...b, url: expect.any(String) })));
    expect(outbox()).toEqual([]);
  });

  it('leaves the list after 30 days like any other', () => {
    const { id } = i.backups.create({});
    s.clock.advance(BACKUP_DELAY_MS);
    expect(i.backups.list()[0]!.id).toBe(id);
    s.clock.advance(30 * DAY);
    expect(i.backups.list().some((b) => b.id === id)).toBe(false);
  });
});

describe('restoring a backup', () => {
  it('schedules the restore callback after the restore delay', () => {
    const [b] = i.backups.list();
    i.backups.restore({ backup_id: b!.id, callback: 'http://127.0.0.1:9/restored' });
    expect(outbox()).toEqual([
      {
        event: 'restore',
        target: 'http://127.0.0.1:9/restored',
        body: { action: 'restore', backup_id: b!.id, account_id: ACCOUNT_ID },
        dueAt: NOW + RESTORE_DELAY_MS,
      },
    ]);
  });

  it('without a callback, is accepted and schedules nothing', () => {
    i.backups.restore({ backup_id: i.backups.list()[0]!.id });
    expect(outbox()).toEqual([]);
  });

  it('refuses an id that is not a listed backup of this instance (400 naming backup_id)', () => {
    const before = snapshot(i);
    const pending = i.backups.create({});
    s.clock.advance(BACKUP_DELAY_MS - 1);
    for (const id of [9999, 1, pending.id]) {
      refused(() => i.backups.restore({ backup_id: id, callback: 'https://hooks.example.com/r' }), 400, 'backup_id');
    }
    expect(outbox()).toEqual([]);
    expect(i.backups.list().map((b) => b.id)).toEqual(before.backups.map((b) => b.id));
  });
});

describe('point-in-time recovery', () => {
  it('accepts a time in the last 30 days and schedules the pitr callback', () => {
    i.backups.recover({ pit: '2026-11-20 14:30', callback: 'https://hooks.example.com/pitr' });
    expect(outbox()).toEqual([
      {
        event: 'pitr',
        target: 'https://hooks.example.com/pitr',
        body: { action: 'pitr', account_id: ACCOUNT_ID },
        dueAt: NOW + RESTORE_DELAY_MS,
      },
    ]);
  });

  it('accepts now and exactly 30 days ago (minute precision)', () => {
    i.backups.recover({ pit: '2026-11-21 13:30' });
    i.backups.recover({ pit: '2026-10-22 13:30' });
    expect(outbox()).toEqual([]);
  });

  it('refuses a time in the future (400 naming pit)', () => {
    const e = refused(
      () => i.backups.recover({ pit: '2026-11-21 13:31', callback: 'https://hooks.example.com/pitr' }),
      400,
      'pit',
    );
    expect(e.detail.rule).toBe('not-in-future');
    expect(outbox()).toEqual([]);
  });

  it('refuses a time before the 30-day retention window (400 naming pit)', () => {
    const e = refused(
      () => i.backups.recover({ pit: '2026-10-22 13:29', callback: 'https://hooks.example.com/pitr' }),
      400,
      'pit',
    );
    expect(e.detail.rule).toBe('retention');
    expect(outbox()).toEqual([]);
  });

  it('refuses a time that is not on the calendar (400 naming pit)', () => {
    refused(() => i.backups.recover({ pit: '2026-02-30 10:00' }), 400, 'pit');
  });

  it('follows the clock: what is in the future now is accepted later', () => {
    refused(() => i.backups.recover({ pit: '2026-11-21 14:00' }), 400, 'pit');
    s.clock.advance(30 * MINUTE);
    i.backups.recover({ pit: '2026-11-21 14:00' });
  });
});

describe('backups over time', () => {
  const TODAY = Date.UTC(2026, 10, 21); // the day of NOW, 00:00 UTC

  it('takes the daily backups at a fixed minute of 03:xx UTC per instance and database', () => {
    // Instance 5: (5 * 7 + 20 * position) % 60 minutes past 03:00.
    const times = (db: string) => new Set(i.backups.list(db).map((b) => b.backup_date.slice(11)));
    expect(times('db5')).toEqual(new Set(['03:35:00+0000']));
    expect(times('analytics')).toEqual(new Set(['03:55:00+0000']));
    expect(i.backups.list('db5')).toHaveLength(30);
  });

  it('orders by backup_date even where ids do not follow it (a database backed up earlier in the day comes later)', () => {
    // Instance 6: db6 at 03:42, analytics (added after it, the next id) at 03:02.
    const list = s.instance({ id: 6 }).backups.list();
    expect(list.slice(0, 2).map((b) => [b.database_name, b.backup_date])).toEqual([
      ['db6', '2026-11-21 03:42:00+0000'],
      ['analytics', '2026-11-21 03:02:00+0000'],
    ]);
    expect(list[0]!.id).toBeLessThan(list[1]!.id);
    const dates = list.map((b) => dateOf(b.backup_date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
  });

  it('lists two backups taken in the same instant by id, the later first', () => {
    const a = i.backups.create({});
    const b = i.backups.create({});
    s.clock.advance(BACKUP_DELAY_MS);
    expect(
      i.backups
        .list()
        .slice(0, 2)
        .map((x) => x.id),
    ).toEqual([b.id, a.id]);
  });

  it('still lists a backup exactly 30 days old', () => {
    s.clock.set(TODAY + DAY + 3 * HOUR + 35 * MINUTE); // 2026-11-22 03:35, a daily backup of db5 is taken
    const list = i.backups.list('db5');
    expect(list[0]!.backup_date).toBe('2026-11-22 03:35:00+0000');
    expect(list.at(-1)!.backup_date).toBe('2026-10-23 03:35:00+0000');
    expect(list).toHaveLength(31);
  });

  it('refuses a backup beyond 1,000 taken in the last 30 days (the daily ones and the oldest instant included)', () => {
    s.clock.set(TODAY + DAY + 3 * HOUR + 35 * MINUTE); // a daily backup is exactly 30 days old
    const inWindow = i.backups.list().length;
    for (let n = inWindow; n < 1000; n++) i.backups.create({});
    const e = refused(
      () => i.backups.create({ callback: 'https://hooks.example.com/ready' }),
      400,
      undefined,
      'maxItems',
    );
    expect(e.message).toBe(
      'backups: an instance keeps at most 1000 backups taken in the last 30 days (the daily ones included); try again later',
    );
    expect(outbox()).toEqual([]);
    // A minute later the oldest has left the window: one more fits.
    s.clock.advance(MINUTE);
    i.backups.create({});
    refused(() => i.backups.create({}), 400, undefined, 'maxItems');
  });

  it('keeps 40 days of history behind the window: a clock set back 40 days still shows a full window; older backups are forgotten', () => {
    const later = TODAY + 35 * DAY + 3 * HOUR + 35 * MINUTE; // 2026-12-26 03:35
    s.clock.set(later);
    i.backups.list();
    const kept = i.toJSON().backups.items.map((b) => b.taken_at);
    expect(Math.min(...kept)).toBe(later - 70 * DAY); // 2026-10-17 03:35, the db5 backup of that day
    s.clock.set(later - 40 * DAY);
    expect(i.backups.list().at(-1)!.backup_date).toBe('2026-10-17 03:35:00+0000');
  });

  it('after a long jump of the clock, spends no ids on days that could never be listed', () => {
    const last = Math.max(...i.backups.list().map((b) => b.id));
    s.clock.set(NOW + 365 * DAY);
    const ids = i.backups.list().map((b) => b.id);
    expect(ids).toHaveLength(60);
    // Only the days of the seeded span are added: today and the 40 before it, for each database.
    expect(Math.max(...ids)).toBe(last + 2 * (SEEDED_BACKUP_DAYS + 1));
  });

  it('gives sizes a JSON client reads exactly (whole bytes, safe integers)', () => {
    for (const b of i.backups.list()) expect(Number.isSafeInteger(b.size) && b.size > 0).toBe(true);
  });
});

describe('refusal messages', () => {
  it('explain each refusal in the message a client reads', () => {
    expect(refused(() => i.backups.create({ db: 'other' }), 400, 'db', 'exists').message).toBe(
      'db: other is not a database of this instance (its databases: db5, analytics)',
    );
    expect(refused(() => i.backups.restore({ backup_id: 9999 }), 400, 'backup_id', 'exists').message).toBe(
      'backup_id: no backup of this instance in the last 30 days has id 9999 (see listBackups)',
    );
    expect(refused(() => i.backups.recover({ pit: '2026-02-30 10:00' }), 400, 'pit', 'format').message).toBe(
      'pit: 2026-02-30 10:00 is not a real time (yyyy-mm-dd hh:mm, UTC)',
    );
    expect(refused(() => i.backups.recover({ pit: '2026-11-21 13:31' }), 400, 'pit', 'not-in-future').message).toBe(
      'pit: 2026-11-21 13:31 lies in the future',
    );
    expect(refused(() => i.backups.recover({ pit: '2026-10-22 13:29' }), 400, 'pit', 'retention').message).toBe(
      'pit: 2026-10-22 13:29 lies outside the retention window of 30 days (the earliest is 2026-10-22 13:30)',
    );
  });
});

describe('the list as bytes is never stale', () => {
  const TODAY = Date.UTC(2026, 10, 21); // the day of NOW, 00:00 UTC
  /** 2026-11-22 03:35:00.000: the daily backup of db5 is taken, and the one of 2026-10-23 is exactly 30 days old. */
  const DAILY = TODAY + DAY + 3 * HOUR + 35 * MINUTE;
  const json = (db?: string) => Buffer.from(i.backups.listJson(db)).toString();
  const same = (db?: string) => expect(json(db)).toBe(JSON.stringify(i.backups.list(db)));
  const ids = (db?: string) => (JSON.parse(json(db)) as { id: number }[]).map((b) => b.id);
  const backups = () => i.backups;

  it('lists a backup from the millisecond it becomes ready, though the list was read earlier in that second', () => {
    s.clock.set(NOW + 500);
    const { id } = i.backups.create({});
    s.clock.set(NOW + 500 + BACKUP_DELAY_MS - 300);
    expect(ids()).not.toContain(id);
    s.clock.set(NOW + 500 + BACKUP_DELAY_MS);
    expect(ids()).toContain(id);
    same();
  });

  it('drops the oldest backup the millisecond after it is 30 days old, though the list was read a millisecond before', () => {
    s.clock.set(DAILY);
    const oldest = i.backups.list('db5').at(-1)!;
    expect(oldest.backup_date).toBe('2026-10-23 03:35:00+0000');
    expect(ids('db5')).toContain(oldest.id);
    s.clock.set(DAILY + 1);
    expect(ids('db5')).not.toContain(oldest.id);
    same('db5');
  });

  it('after the clock is set back, lists what that moment shows: a backup not ready yet, one back inside the window', () => {
    const { id } = i.backups.create({});
    s.clock.set(NOW + BACKUP_DELAY_MS);
    expect(ids()).toContain(id);
    s.clock.set(NOW + BACKUP_DELAY_MS - 1);
    expect(ids()).not.toContain(id);
    same();
    // Back by a millisecond within the same second: the oldest backup is listed again.
    s.clock.set(DAILY + 1);
    ids('db5');
    const shown = ids('db5'); // read again: the list as kept after the daily backup was added
    s.clock.set(DAILY);
    expect(ids('db5')).toHaveLength(shown.length + 1);
    same('db5');
  });

  it('shows a backup that becomes ready the very millisecond another leaves the window (the list as long as before)', () => {
    // Taken before the daily backup of DAILY, ready just after it: listed second.
    s.clock.set(DAILY + 1 - BACKUP_DELAY_MS);
    const { id } = i.backups.create({ db: 'db5' });
    s.clock.set(DAILY);
    ids('db5');
    const before = ids('db5'); // read again: the list as kept after the daily backup was added
    s.clock.set(DAILY + 1);
    const after = ids('db5');
    expect(after).toHaveLength(before.length);
    expect(after[1]).toBe(id);
    same('db5');
  });

  it('shows a backup that becomes ready the very millisecond the oldest leaves the window, every other position moved by one', () => {
    const first = i.backups.create({});
    const leaves = NOW + 30 * DAY + 1;
    s.clock.set(leaves - BACKUP_DELAY_MS);
    const second = i.backups.create({});
    s.clock.set(leaves - 1);
    const before = ids();
    expect(before.at(-1)).toBe(first.id);
    s.clock.set(leaves);
    const after = ids();
    expect(after).toHaveLength(before.length);
    expect(after[0]).toBe(second.id);
    expect(after).not.toContain(first.id);
    same();
  });

  it('with no backup delay, lists a created backup at once, though the list was read the same millisecond', () => {
    const quick = s.instance({ name: 'quick' }, { ...s.ctx, backupDelayMs: 0 });
    quick.backups.listJson();
    const before = Buffer.from(quick.backups.listJson()).toString(); // read again: the list as kept after the seeded history was made
    const { id } = quick.backups.create({});
    const after = Buffer.from(quick.backups.listJson()).toString();
    expect(after).not.toBe(before);
    expect((JSON.parse(after) as { id: number }[])[0]!.id).toBe(id);
    expect(after).toBe(JSON.stringify(quick.backups.list()));
  });

  it('shows a size set after the list was read, also after a backup was created in between', () => {
    const [b] = i.backups.list();
    json();
    i.backups.create({});
    backups().setSize(b!.id, 1);
    backups().setSize(b!.id, 2);
    expect((JSON.parse(json()) as { id: number; size: number }[]).find((x) => x.id === b!.id)!.size).toBe(2);
    same();
  });
});

describe('backup sizes', () => {
  const backups = () => i.backups;
  const sizeOf = (id: number) => i.backups.list().find((b) => b.id === id)!.size;

  it('takes the real size of a snapshot, zero included; ignores a negative, fractional or unsafe size and an unknown id', () => {
    const [b] = i.backups.list();
    const seeded = b!.size;
    for (const bad of [-1, 1.5, 2 ** 53, Number.NaN]) {
      backups().setSize(b!.id, bad);
      expect(sizeOf(b!.id)).toBe(seeded);
    }
    expect(() => backups().setSize(99999, 5)).not.toThrow();
    backups().setSize(b!.id, 0);
    expect(sizeOf(b!.id)).toBe(0);
    backups().setSize(b!.id, 123456);
    expect(sizeOf(b!.id)).toBe(123456);
  });

  it('gives the seeded backups plausible sizes that differ from backup to backup and stay the same in every listing', () => {
    const sizes = i.backups.list().map((b) => b.size);
    expect(new Set(sizes).size).toBeGreaterThan(sizes.length / 2);
    expect(i.backups.list().map((b) => b.size)).toEqual(sizes);
  });
});

describe('when a backup was taken', () => {
  it('takenAt(id) is the time each listed backup was taken, its backup_date; NaN for an id the instance does not have', () => {
    const backups = i.backups;
    const { id } = i.backups.create({ db: 'analytics' });
    s.clock.advance(BACKUP_DELAY_MS);
    const list = i.backups.list();
    expect(list[0]!.id).toBe(id);
    for (const b of list) expect(backups.takenAt(b.id)).toBe(dateOf(b.backup_date));
    expect(backups.takenAt(99999)).toBeNaN();
  });
});

describe('the daily backups of two databases', () => {
  it('are both taken when the list was last read between their two minutes', () => {
    const TODAY = Date.UTC(2026, 10, 21);
    s.clock.set(TODAY + DAY + 3 * HOUR + 40 * MINUTE); // 03:40: db5 (03:35) taken, analytics (03:55) not yet
    expect(i.backups.list()[0]!.backup_date).toBe('2026-11-22 03:35:00+0000');
    s.clock.set(TODAY + DAY + 4 * HOUR);
    expect(i.backups.list('analytics')[0]!.backup_date).toBe('2026-11-22 03:55:00+0000');
    expect(i.backups.list('db5')[0]!.backup_date).toBe('2026-11-22 03:35:00+0000');
  });
});

describe('download links of two instances', () => {
  it('are signed with each instance its own key, even where the file names are the same', () => {
    const a = s.instance({ id: 5, providerid: '11111111-2222-4333-8444-555555555555' });
    const b = s.instance({ id: 5, providerid: '11111111-2222-4333-8444-666666666666' });
    const [x] = a.backups.list();
    const [y] = b.backups.list();
    expect(y!.file_name).toBe(x!.file_name);
    expect(new URL(y!.url).searchParams.get('expires')).toBe(new URL(x!.url).searchParams.get('expires'));
    expect(new URL(y!.url).searchParams.get('signature')).not.toBe(new URL(x!.url).searchParams.get('signature'));
  });
});
