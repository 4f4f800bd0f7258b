// InstanceStore: backups, restore and point-in-time recovery, driven by the registry's clock.
import { beforeEach, describe, expect, it } from 'vitest';
import type { InstanceStore } from '../../src/store/instance.js';
import { formatBackupDate } from '../../src/store/dates.js';
import { ACCOUNT_ID, BACKUP_DELAY_MS, DAY, HOUR, MINUTE, NOW, RESTORE_DELAY_MS, refused, setup, snapshot, type Setup } from './instance-setup.js';

let s: Setup;
let i: InstanceStore;
beforeEach(async () => {
  s = await setup();
  i = s.instance({ id: 5, region: 'google-compute-engine::us-central1' });
});

const outbox = () => s.registry.outbox.list().map((e) => ({ event: e.event, target: e.target, body: e.body, dueAt: e.dueAt }));
const dateOf = (backupDate: string) => Date.parse(backupDate.replace(' ', 'T').replace('+0000', 'Z'));

describe('listing backups', () => {
  it('shows the last 30 days only, most recent first', () => {
    const list = i.listBackups();
    const dates = list.map((b) => dateOf(b.backup_date));
    expect(dates).toEqual([...dates].sort((a, b) => b - a));
    expect(Math.min(...dates)).toBeGreaterThanOrEqual(NOW - 30 * DAY);
    expect(Math.max(...dates)).toBeLessThanOrEqual(NOW);
  });

  it('fills every field in the documented forms', () => {
    const [b] = i.listBackups('analytics');
    expect(b).toEqual({
      id: expect.any(Number),
      database_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      backup_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\+0000$/),
      size: expect.any(Number),
      bucket: 'tusk-backups-us-central1',
      file_name: expect.stringMatching(/^backups\/[0-9a-f]{8}\/analytics\/\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d+\.tar\.gz$/),
      region: 'google-compute-engine::us-central1',
      database_name: 'analytics',
      url: expect.stringMatching(/^https:\/\/backups\.tusk\.example\/backups\/.+\.tar\.gz\?expires=\d+&signature=[0-9a-f]{64}$/),
    });
    expect(Number.isInteger(b!.size)).toBe(true);
    expect(b!.size).toBeGreaterThan(0);
  });

  it('gives one database id per database', () => {
    const ids = (db: string) => new Set(i.listBackups(db).map((b) => b.database_id));
    expect(ids('db5').size).toBe(1);
    expect(ids('analytics').size).toBe(1);
    expect([...ids('db5')][0]).not.toBe([...ids('analytics')][0]);
  });

  it('filters by database name; an unknown name gives an empty list', () => {
    expect(i.listBackups('db5').every((b) => b.database_name === 'db5')).toBe(true);
    expect(i.listBackups('nope')).toEqual([]);
  });

  it('signs download links that expire an hour after the listing', () => {
    const [b] = i.listBackups();
    const url = new URL(b!.url);
    const expires = Number(url.searchParams.get('expires'));
    expect(expires).toBe(Math.floor((NOW + HOUR) / 1000));
    // The signature is an HMAC over the path and expires: a later listing signs a later expiry.
    s.clock.advance(10 * MINUTE);
    const again = new URL(i.listBackups().find((x) => x.id === b!.id)!.url);
    expect(Number(again.searchParams.get('expires'))).toBe(expires + 600);
    expect(again.searchParams.get('signature')).not.toBe(url.searchParams.get('signature'));
    expect(again.pathname).toBe(url.pathname);
    // Another instance (another provider id) signs with another key.
    const other = s.instance({ id: 5, region: 'google-compute-engine::us-central1' });
    expect(new URL(other.listBackups()[0]!.url).searchParams.get('signature')).not.toBe(again.searchParams.get('signature'));
  });

  it('moves with the clock: a day later, the oldest day has left the window', () => {
    const oldest = i.listBackups().at(-1)!;
    s.clock.advance(DAY);
    expect(i.listBackups().some((b) => b.id === oldest.id)).toBe(false);
  });
});

describe('creating a backup', () => {
  it('lists the backup only once it is ready, then first', () => {
    i.createBackup({});
    expect(i.listBackups()).toHaveLength(60);
    s.clock.advance(BACKUP_DELAY_MS - 1);
    expect(i.listBackups()).toHaveLength(60);
    s.clock.advance(1);
    const [first] = i.listBackups();
    expect(first).toMatchObject({ database_name: 'db5', backup_date: formatBackupDate(NOW) });
  });

  it('backs up the named database', () => {
    const { id } = i.createBackup({ db: 'analytics' });
    s.clock.advance(BACKUP_DELAY_MS);
    expect(i.listBackups('analytics')[0]!.id).toBe(id);
    expect(i.listBackups('db5').some((b) => b.id === id)).toBe(false);
  });

  it('schedules the BackupReadyCallback for when the backup is ready', () => {
    const { id } = i.createBackup({ db: 'analytics', callback: 'https://hooks.example.com/ready' });
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
    i.createBackup({});
    expect(outbox()).toEqual([]);
  });

  it('refuses a database the instance does not have (400 naming db), and changes nothing', () => {
    const before = snapshot(i);
    refused(() => i.createBackup({ db: 'other', callback: 'https://hooks.example.com/ready' }), 400, 'db');
    s.clock.advance(BACKUP_DELAY_MS);
    expect(i.listBackups()).toEqual(before.backups.map((b) => ({ ...b, url: expect.any(String) })));
    expect(outbox()).toEqual([]);
  });

  it('leaves the list after 30 days like any other', () => {
    const { id } = i.createBackup({});
    s.clock.advance(BACKUP_DELAY_MS);
    expect(i.listBackups()[0]!.id).toBe(id);
    s.clock.advance(30 * DAY);
    expect(i.listBackups().some((b) => b.id === id)).toBe(false);
  });
});

describe('restoring a backup', () => {
  it('schedules the restore callback after the restore delay', () => {
    const [b] = i.listBackups();
    i.restoreBackup({ backup_id: b!.id, callback: 'http://127.0.0.1:9/restored' });
    expect(outbox()).toEqual([
      { event: 'restore', target: 'http://127.0.0.1:9/restored', body: { action: 'restore', backup_id: b!.id, account_id: ACCOUNT_ID }, dueAt: NOW + RESTORE_DELAY_MS },
    ]);
  });

  it('without a callback, is accepted and schedules nothing', () => {
    i.restoreBackup({ backup_id: i.listBackups()[0]!.id });
    expect(outbox()).toEqual([]);
  });

  it('refuses an id that is not a listed backup of this instance (400 naming backup_id)', () => {
    const before = snapshot(i);
    const pending = i.createBackup({});
    s.clock.advance(BACKUP_DELAY_MS - 1);
    for (const id of [9999, 1, pending.id]) {
      refused(() => i.restoreBackup({ backup_id: id, callback: 'https://hooks.example.com/r' }), 400, 'backup_id');
    }
    expect(outbox()).toEqual([]);
    expect(i.listBackups().map((b) => b.id)).toEqual(before.backups.map((b) => b.id));
  });
});

describe('point-in-time recovery', () => {
  it('accepts a time in the last 30 days and schedules the pitr callback', () => {
    i.recoverToPointInTime({ pit: '2026-11-20 14:30', callback: 'https://hooks.example.com/pitr' });
    expect(outbox()).toEqual([{ event: 'pitr', target: 'https://hooks.example.com/pitr', body: { action: 'pitr', account_id: ACCOUNT_ID }, dueAt: NOW + RESTORE_DELAY_MS }]);
  });

  it('accepts now and exactly 30 days ago (minute precision)', () => {
    i.recoverToPointInTime({ pit: '2026-11-21 13:30' });
    i.recoverToPointInTime({ pit: '2026-10-22 13:30' });
    expect(outbox()).toEqual([]);
  });

  it('refuses a time in the future (400 naming pit)', () => {
    const e = refused(() => i.recoverToPointInTime({ pit: '2026-11-21 13:31', callback: 'https://hooks.example.com/pitr' }), 400, 'pit');
    expect(e.detail.rule).toBe('not-in-future');
    expect(outbox()).toEqual([]);
  });

  it('refuses a time before the 30-day retention window (400 naming pit)', () => {
    const e = refused(() => i.recoverToPointInTime({ pit: '2026-10-22 13:29', callback: 'https://hooks.example.com/pitr' }), 400, 'pit');
    expect(e.detail.rule).toBe('retention');
    expect(outbox()).toEqual([]);
  });

  it('refuses a time that is not on the calendar (400 naming pit)', () => {
    refused(() => i.recoverToPointInTime({ pit: '2026-02-30 10:00' }), 400, 'pit');
  });

  it('follows the clock: what is in the future now is accepted later', () => {
    refused(() => i.recoverToPointInTime({ pit: '2026-11-21 14:00' }), 400, 'pit');
    s.clock.advance(30 * MINUTE);
    i.recoverToPointInTime({ pit: '2026-11-21 14:00' });
  });
});
