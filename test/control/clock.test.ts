// The virtual clock through the control API, used the way a client developer would: every
// time-based behaviour follows POST /__tusk/clock instead of waiting.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openReceiver, type Receiver } from '../../contract-tests/harness/receiver.js';
import { instanceKey } from '../../fixtures/index.js';
import { INSTANCE_1_KEY, eventually, start, type Client } from './setup.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let t: Client;
let receiver: Receiver;
beforeEach(async () => {
  t = await start();
  receiver = await openReceiver({});
});
afterEach(async () => {
  await t.close();
  await receiver.close();
});

const advance = (by: string | number) => t.control('/clock', { body: { advance: by } });
const now = async () => Date.parse((await t.control('/clock')).body.now);

describe('reading and moving the clock', () => {
  it('GET gives now, pinned and the offset; advance moves now by the duration', async () => {
    const before = await t.control('/clock');
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      now: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      pinned: false,
      offset_ms: 0,
    });
    const moved = await advance('10m');
    expect(moved.status).toBe(200);
    expect(moved.body.offset_ms).toBe(600_000);
    expect(Date.parse(moved.body.now) - Date.parse(before.body.now)).toBeGreaterThanOrEqual(600_000);
  });

  it('accepts the units ms, s, m, h, d and a number of ms', async () => {
    const expected: [string | number, number][] = [
      ['250ms', 250],
      ['2s', 2000],
      ['1.5m', 90_000],
      ['2h', 2 * HOUR],
      ['1d', DAY],
      [500, 500],
    ];
    let total = 0;
    for (const [by, ms] of expected) {
      total += ms;
      expect((await advance(by)).body.offset_ms).toBe(total);
    }
  });

  it('pins the clock at a time, advances the pinned clock, and lets it run again', async () => {
    const pinned = await t.control('/clock', { body: { pin: '2030-01-01T00:00:00Z' } });
    expect(pinned.body).toMatchObject({ now: '2030-01-01T00:00:00.000Z', pinned: true });
    await new Promise((r) => setTimeout(r, 20));
    expect((await t.control('/clock')).body.now).toBe('2030-01-01T00:00:00.000Z');
    expect((await advance('1h')).body.now).toBe('2030-01-01T01:00:00.000Z');
    const running = await t.control('/clock', { body: { pin: null } });
    expect(running.body.pinned).toBe(false);
    expect(Date.parse(running.body.now)).toBeGreaterThanOrEqual(Date.parse('2030-01-01T01:00:00Z'));
  });

  it('sets the clock to a time, forward or back', async () => {
    const set = await t.control('/clock', { body: { set: '2031-06-01T12:00:00Z' } });
    expect(Math.abs(Date.parse(set.body.now) - Date.parse('2031-06-01T12:00:00Z'))).toBeLessThan(1000);
    expect(set.body.pinned).toBe(false);
    const back = await t.control('/clock', { body: { set: '2020-01-01T00:00:00Z' } });
    expect(Date.parse(back.body.now)).toBeLessThan(Date.parse('2020-01-02T00:00:00Z'));
  });

  it('refuses what is not a move with 400 in the Error shape, and the clock stays', async () => {
    for (const body of [
      { advance: '-1m' },
      { advance: '10 minutes' },
      { advance: '5w' },
      { advance: -5 },
      { pin: 'tomorrow' },
      { set: 'soon' },
      {},
      { advance: '1m', pin: null },
      { jump: '1m' },
      'nope',
    ]) {
      const res = await t.control('/clock', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(expect.objectContaining({ error: expect.any(String) }));
    }
    expect((await t.control('/clock')).body.offset_ms).toBe(0);
  });

  it('the instance port serves the same clock', async () => {
    await advance('1h');
    expect((await t.control('/clock', { port: 'instance' })).body.offset_ms).toBe(HOUR);
  });
});

describe('advancing the clock drives time-based behaviour', () => {
  it('a new instance turns ready once the provision delay has passed on the clock', async () => {
    const created = await t.customer('/api/instances', undefined, {
      body: { name: 'orders', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    expect(created.status).toBe(200);
    expect((await t.customer(`/api/instances/${created.body.id}`)).body.ready).toBe(false);
    await advance('59s');
    expect((await t.customer(`/api/instances/${created.body.id}`)).body.ready).toBe(false);
    await advance('1s');
    expect((await t.customer(`/api/instances/${created.body.id}`)).body.ready).toBe(true);
  });

  it('a backup completes and its callback arrives; the outbox shows it delivered', async () => {
    const url = receiver.url('/backup-ready');
    const created = await t.instance('/api/backup', INSTANCE_1_KEY, { body: { callback: url } });
    expect(created.status).toBeLessThan(300);
    const listed = async () => (await t.instance('/api/backup', INSTANCE_1_KEY)).body as { id: number }[];
    const before = await listed();
    const pending = (await t.control('/outbox')).body.entries;
    expect(pending).toEqual([
      expect.objectContaining({ kind: 'callback', event: 'backup', target: url, status: 'pending', attempts: 0 }),
    ]);
    expect(receiver.at(url)).toEqual([]);

    await advance('5s');
    const got = await receiver.waitFor(url);
    expect(got.body).toMatchObject({ action: 'backup', status: 'ready' });
    const backupId = (got.body as { backup_id: number }).backup_id;
    expect((await listed()).map((b) => b.id)).toContain(backupId);
    expect(before.map((b) => b.id)).not.toContain(backupId);
    const entry = await eventually(async () =>
      (await t.control('/outbox')).body.entries.find((e: { status: string }) => e.status === 'delivered'),
    );
    expect(entry).toMatchObject({
      target: url,
      body: got.body,
      attempts: 1,
      result: 'HTTP 200',
      due_at: expect.any(String),
    });
  });

  it('restores and point-in-time recoveries call back after the restore delay', async () => {
    const [latest] = (await t.instance('/api/backup', INSTANCE_1_KEY)).body;
    const restoreUrl = receiver.url('/restored');
    expect(
      (
        await t.instance('/api/backup/restore', INSTANCE_1_KEY, {
          body: { backup_id: latest.id, callback: restoreUrl },
        })
      ).status,
    ).toBeLessThan(300);
    await advance('5s');
    expect((await receiver.waitFor(restoreUrl)).body).toMatchObject({ action: 'restore', backup_id: latest.id });
  });

  it('daily backups keep appearing as days pass, and the 30-day window moves', async () => {
    const list = async () =>
      (await t.instance('/api/backup?db=db1', INSTANCE_1_KEY)).body as { id: number; backup_date: string }[];
    const before = await list();
    await advance('3d');
    const after = await list();
    const newer = after.filter((b) => !before.some((x) => x.id === b.id));
    // three more days: three more daily backups of db1 (one per day, at the instance's fixed time)
    expect(newer.length).toBeGreaterThanOrEqual(2);
    expect(newer.length).toBeLessThanOrEqual(3);
    expect(Math.min(...newer.map((b) => b.id))).toBeGreaterThan(Math.max(...before.map((b) => b.id)));
    // the oldest days have left the window: every listed backup lies within 30 days of the clock's now
    const at = await now();
    const dates = after.map((b) => Date.parse(b.backup_date.replace(' ', 'T').replace('+0000', 'Z')));
    expect(Math.min(...dates)).toBeGreaterThanOrEqual(at - 30 * DAY);
    expect(after.some((b) => b.id === before.at(-1)!.id)).toBe(false);
    expect(after.length).toBe(before.length);
    // a month later the whole list has turned over
    await advance('31d');
    const month = await list();
    expect(month.length).toBe(before.length);
    expect(month.some((b) => before.some((x) => x.id === b.id))).toBe(false);
  });

  it('maintenance starts when its scheduled_by arrives and completes after its duration', async () => {
    const list = async () =>
      (await t.instance('/api/maintenance', INSTANCE_1_KEY)).body as {
        id: number;
        status: string;
        scheduled_by: string;
        duration: string;
      }[];
    const [first] = await list();
    expect(first!.status).toBe('scheduled');
    const start = Date.parse(first!.scheduled_by.replace(' +0000', 'Z').replace(' ', 'T'));
    await t.control('/clock', { body: { set: new Date(start).toISOString() } });
    expect((await list()).find((m) => m.id === first!.id)?.status).toBe('in_progress');
    await advance(first!.duration === '1 hour' ? '1h' : '30m');
    expect((await list()).some((m) => m.id === first!.id)).toBe(false);
  });

  it('run-now maintenance completes after its duration on the clock', async () => {
    const [first] = (await t.instance('/api/maintenance', INSTANCE_1_KEY)).body;
    expect((await t.instance(`/api/maintenance/${first.id}`, INSTANCE_1_KEY, { method: 'POST' })).body.status).toBe(
      'in_progress',
    );
    await advance('2h');
    expect(
      (await t.instance('/api/maintenance', INSTANCE_1_KEY)).body.some((m: { id: number }) => m.id === first.id),
    ).toBe(false);
  });
});

describe('rate limit windows roll with the clock', () => {
  it('a key over its limit is admitted again once the window has passed on the clock', async () => {
    await t.close();
    t = await start({ rateLimit: '2/60' });
    expect((await t.customer('/api/plans')).status).toBe(200);
    expect((await t.customer('/api/plans')).status).toBe(200);
    const limited = await t.customer('/api/plans');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(50);
    await advance('60s');
    expect((await t.customer('/api/plans')).status).toBe(200);
  });

  it('each instance key has a window of its own', async () => {
    await t.close();
    t = await start({ rateLimit: '2/60' });
    for (let i = 0; i < 2; i++) expect((await t.instance('/api/alarms', INSTANCE_1_KEY)).status).toBe(200);
    expect((await t.instance('/api/alarms', INSTANCE_1_KEY)).status).toBe(429);
    // Another instance of the same account is not limited by the first one's requests.
    expect((await t.instance('/api/alarms', instanceKey(4))).status).toBe(200);
  });
});
