// InstanceStore: upcoming maintenance, rescheduling and running it, driven by the registry's clock.
import { beforeEach, describe, expect, it } from 'vitest';
import type { InstanceStore } from '../../../src/resources/instances/instance.js';
import { formatMaintenanceDate, parseMaintenanceDate } from '../../../src/domain/dates.js';
import { VirtualClock } from '../../../src/domain/clock.js';
import { MaintenanceSchedule } from '../../../src/resources/maintenance/maintenance.js';
import type { MaintenanceItemState } from '../../../src/domain/state.js';
import { DAY, HOUR, MINUTE, NOW, refused, setup, snapshot, type Setup } from '../instance-setup.js';

let s: Setup;
let i: InstanceStore;
beforeEach(async () => {
  s = await setup();
  i = s.instance({ id: 1 }); // odd id: two items
});

const at = (text: string) => parseMaintenanceDate(text)!;

describe('maintenance', () => {
  it('lists the upcoming items by scheduled_by', () => {
    const items = i.maintenance.list();
    expect(items).toHaveLength(2);
    expect(items.map((m) => m.id)).toEqual([1, 2]);
    expect(at(items[0]!.scheduled_by)).toBeLessThan(at(items[1]!.scheduled_by));
    expect(items[0]).toEqual({
      id: 1,
      scheduled_by: formatMaintenanceDate(Date.UTC(2026, 10, 25, 2)),
      status: 'scheduled',
      required_by: formatMaintenanceDate(Date.UTC(2026, 11, 9, 2)),
      duration: '30 minutes',
      description: 'Operating system security update',
    });
    expect(items[1]!.duration).toBe('1 hour');
  });

  it('reschedules a scheduled item within now .. required_by', () => {
    const m = i.maintenance.reschedule(1, '2026-12-01 03:00:00 +0000');
    expect(m).toMatchObject({ id: 1, status: 'scheduled', scheduled_by: '2026-12-01 03:00:00 +0000' });
    expect(i.maintenance.list().find((x) => x.id === 1)!.scheduled_by).toBe('2026-12-01 03:00:00 +0000');
    // The limits themselves are allowed (an item moved to now starts at once).
    expect(i.maintenance.reschedule(1, m.required_by).scheduled_by).toBe(m.required_by);
    expect(i.maintenance.reschedule(1, formatMaintenanceDate(NOW))).toMatchObject({
      scheduled_by: '2026-11-21 13:30:00 +0000',
      status: 'in_progress',
    });
  });

  it('reads any offset and writes +0000', () => {
    expect(i.maintenance.reschedule(1, '2026-12-01 05:00:00 +0200').scheduled_by).toBe('2026-12-01 03:00:00 +0000');
    expect(i.maintenance.reschedule(1, '2026-11-30 22:30:00 -0430').scheduled_by).toBe('2026-12-01 03:00:00 +0000');
  });

  it('refuses a time in the past, after required_by, or not on the calendar (400 naming scheduled_by), and changes nothing', () => {
    const before = snapshot(i);
    expect(
      refused(() => i.maintenance.reschedule(1, '2026-11-21 13:29:59 +0000'), 400, 'scheduled_by').detail.rule,
    ).toBe('not-in-past');
    expect(
      refused(() => i.maintenance.reschedule(1, '2026-12-09 02:00:01 +0000'), 400, 'scheduled_by').detail.rule,
    ).toBe('not-after-required-by');
    expect(
      refused(() => i.maintenance.reschedule(1, '2026-02-30 02:00:00 +0000'), 400, 'scheduled_by').detail.rule,
    ).toBe('format');
    expect(snapshot(i)).toEqual(before);
  });

  it('an unknown id is a 404', () => {
    const before = snapshot(i);
    refused(() => i.maintenance.reschedule(9, '2026-12-01 03:00:00 +0000'), 404);
    refused(() => i.maintenance.run(9), 404);
    expect(snapshot(i)).toEqual(before);
  });

  it('running an item sets it in_progress now; it completes after its duration and leaves the list', () => {
    expect(i.maintenance.run(1)).toMatchObject({ id: 1, status: 'in_progress' });
    expect(i.maintenance.list().map((m) => [m.id, m.status])).toEqual([
      [1, 'in_progress'],
      [2, 'scheduled'],
    ]);
    s.clock.advance(30 * MINUTE - 1);
    expect(i.maintenance.list()[0]).toMatchObject({ id: 1, status: 'in_progress' });
    s.clock.advance(1);
    expect(i.maintenance.list().map((m) => m.id)).toEqual([2]);
    refused(() => i.maintenance.run(1), 404);
    refused(() => i.maintenance.reschedule(1, '2026-12-01 03:00:00 +0000'), 404);
  });

  it('an item in progress can be neither run again nor rescheduled (400), and nothing changes', () => {
    i.maintenance.run(1);
    const before = snapshot(i);
    refused(() => i.maintenance.run(1), 400, 'id');
    refused(() => i.maintenance.reschedule(1, '2026-12-01 03:00:00 +0000'), 400, 'scheduled_by');
    expect(snapshot(i)).toEqual(before);
  });

  it('an item not run by hand starts when its scheduled_by arrives', () => {
    const first = i.maintenance.list()[0]!;
    s.clock.advance(at(first.scheduled_by) - NOW);
    expect(i.maintenance.list()[0]).toMatchObject({ id: 1, status: 'in_progress' });
    s.clock.advance(30 * MINUTE);
    expect(i.maintenance.list().map((m) => m.id)).toEqual([2]);
  });

  it('a rescheduled item starts at its new time', () => {
    i.maintenance.reschedule(1, formatMaintenanceDate(NOW + HOUR));
    s.clock.advance(HOUR);
    expect(i.maintenance.list()[0]).toMatchObject({ id: 1, status: 'in_progress' });
  });

  it('every instance has one or two items, a few days ahead', () => {
    expect(s.instance({ id: 2 }).maintenance.list()).toHaveLength(1);
    expect(s.instance({ id: 3 }).maintenance.list()).toHaveLength(2);
    s.clock.advance(30 * DAY);
    // A later instance gets items a few days after its own creation.
    const late = s.instance({ id: 4 }).maintenance.list();
    expect(at(late[0]!.scheduled_by)).toBeGreaterThan(NOW + 30 * DAY);
  });
});

describe('maintenance (more)', () => {
  it('seeds an odd id with a second item: an hour-long Postgres minor version upgrade, required three weeks after it', () => {
    expect(i.maintenance.list()[1]).toStrictEqual({
      id: 2,
      scheduled_by: '2026-11-28 03:00:00 +0000',
      status: 'scheduled',
      required_by: '2026-12-19 03:00:00 +0000',
      duration: '1 hour',
      description: 'Postgres minor version upgrade',
    });
  });

  it('a rescheduled item moves in the list to its new place', () => {
    i.maintenance.reschedule(1, '2026-12-01 03:00:00 +0000');
    expect(i.maintenance.list().map((m) => m.id)).toEqual([2, 1]);
  });

  it('explains each refusal in the message a client reads', () => {
    expect(
      refused(() => i.maintenance.reschedule(1, '2026-02-30 02:00:00 +0000'), 400, 'scheduled_by', 'format').message,
    ).toBe('scheduled_by: 2026-02-30 02:00:00 +0000 is not a real time (yyyy-mm-dd hh:mm:ss +0000)');
    expect(
      refused(() => i.maintenance.reschedule(1, '2026-11-21 13:29:59 +0000'), 400, 'scheduled_by', 'not-in-past')
        .message,
    ).toBe('scheduled_by: 2026-11-21 13:29:59 +0000 lies in the past');
    expect(
      refused(
        () => i.maintenance.reschedule(1, '2026-12-09 02:00:01 +0000'),
        400,
        'scheduled_by',
        'not-after-required-by',
      ).message,
    ).toBe("scheduled_by: 2026-12-09 02:00:01 +0000 lies after the item's required_by 2026-12-09 02:00:00 +0000");
    expect(refused(() => i.maintenance.run(9), 404).message).toBe('Not found: no upcoming maintenance with id 9');
    i.maintenance.run(1);
    expect(refused(() => i.maintenance.run(1), 400, 'id', 'status').message).toBe(
      'id: maintenance 1 is in_progress; only scheduled maintenance can be run',
    );
    expect(
      refused(() => i.maintenance.reschedule(1, '2026-12-01 03:00:00 +0000'), 400, 'scheduled_by', 'status').message,
    ).toBe('scheduled_by: maintenance 1 is in_progress; only scheduled maintenance can be rescheduled');
  });
});

// The schedule itself, on items loaded from a state (in any order): what the list and the alarms read.
describe('maintenance schedule', () => {
  const T1 = NOW + HOUR;
  const T2 = NOW + DAY;
  const T3 = NOW + 2 * DAY;
  const item = (id: number, scheduledBy: number): MaintenanceItemState => ({
    id,
    scheduled_by: scheduledBy,
    required_by: scheduledBy + 14 * DAY,
    minutes: 30,
    description: `item ${id}`,
  });
  const schedule = (...items: MaintenanceItemState[]) => {
    const clock = new VirtualClock();
    clock.pin(NOW);
    return new MaintenanceSchedule(clock, [], { last_id: items.length, items });
  };

  it('lists by scheduled_by, then by id', () => {
    const m = schedule(item(3, T2), item(2, T1), item(1, T2));
    expect(m.list().map((x) => x.id)).toEqual([2, 1, 3]);
  });

  it('starts: every item started by now (by hand, or when its scheduled_by arrives, the instant included), completed ones too, by start, then by id', () => {
    const m = schedule(item(3, T1), item(1, T1), item(2, T3));
    m.run(2); // at NOW
    expect(m.starts(NOW - 1)).toEqual([]);
    expect(m.starts(NOW)).toStrictEqual([
      {
        id: 2,
        startedAt: NOW,
        record: {
          id: 2,
          scheduled_by: formatMaintenanceDate(T3),
          status: 'in_progress',
          required_by: formatMaintenanceDate(T3 + 14 * DAY),
          duration: '30 minutes',
          description: 'item 2',
        },
      },
    ]);
    expect(m.starts(T1 - 1).map((x) => x.id)).toEqual([2]);
    expect(m.starts(T1).map((x) => [x.id, x.startedAt, x.record.status])).toEqual([
      [2, NOW, 'in_progress'],
      [1, T1, 'in_progress'],
      [3, T1, 'in_progress'],
    ]);
    // Long completed, still there, each with its record as it was when it started.
    expect(m.starts(T3 + DAY).map((x) => [x.id, x.startedAt, x.record.status])).toEqual([
      [2, NOW, 'in_progress'],
      [1, T1, 'in_progress'],
      [3, T1, 'in_progress'],
    ]);
  });

  it('starts leaves out the items it is told to (those already notified)', () => {
    const m = schedule(item(3, T1), item(1, T1), item(2, T3));
    m.run(2);
    expect(m.starts(T1, new Set([1, 2])).map((x) => [x.id, x.startedAt])).toEqual([[3, T1]]);
    expect(m.starts(T1, new Set())).toEqual(m.starts(T1));
  });

  it('nextStart: the earliest scheduled_by after now of an item not started yet; undefined when none', () => {
    const m = schedule(item(2, T2), item(1, T1), item(3, T3));
    expect(m.nextStart(NOW)).toBe(T1);
    // At its scheduled_by an item starts by itself: the next start is another's.
    expect(m.nextStart(T1)).toBe(T2);
    expect(m.nextStart(T2 - 1)).toBe(T2);
    expect(m.nextStart(T3)).toBeUndefined();
    // Run by hand, an item no longer starts at its scheduled_by.
    m.run(1);
    expect(m.nextStart(NOW)).toBe(T2);
  });
});
