// InstanceStore: upcoming maintenance, rescheduling and running it, driven by the registry's clock.
import { beforeEach, describe, expect, it } from 'vitest';
import type { InstanceStore } from '../../src/store/instance.js';
import { formatMaintenanceDate, parseMaintenanceDate } from '../../src/store/dates.js';
import { DAY, HOUR, MINUTE, NOW, refused, setup, snapshot, type Setup } from './instance-setup.js';

let s: Setup;
let i: InstanceStore;
beforeEach(async () => {
  s = await setup();
  i = s.instance({ id: 1 }); // odd id: two items
});

const at = (text: string) => parseMaintenanceDate(text)!;

describe('maintenance', () => {
  it('lists the upcoming items by scheduled_by', () => {
    const items = i.listMaintenance();
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
    const m = i.rescheduleMaintenance(1, '2026-12-01 03:00:00 +0000');
    expect(m).toMatchObject({ id: 1, status: 'scheduled', scheduled_by: '2026-12-01 03:00:00 +0000' });
    expect(i.listMaintenance().find((x) => x.id === 1)!.scheduled_by).toBe('2026-12-01 03:00:00 +0000');
    // The limits themselves are allowed (an item moved to now starts at once).
    expect(i.rescheduleMaintenance(1, m.required_by).scheduled_by).toBe(m.required_by);
    expect(i.rescheduleMaintenance(1, formatMaintenanceDate(NOW))).toMatchObject({ scheduled_by: '2026-11-21 13:30:00 +0000', status: 'in_progress' });
  });

  it('reads any offset and writes +0000', () => {
    expect(i.rescheduleMaintenance(1, '2026-12-01 05:00:00 +0200').scheduled_by).toBe('2026-12-01 03:00:00 +0000');
    expect(i.rescheduleMaintenance(1, '2026-11-30 22:30:00 -0430').scheduled_by).toBe('2026-12-01 03:00:00 +0000');
  });

  it('refuses a time in the past, after required_by, or not on the calendar (400 naming scheduled_by), and changes nothing', () => {
    const before = snapshot(i);
    expect(refused(() => i.rescheduleMaintenance(1, '2026-11-21 13:29:59 +0000'), 400, 'scheduled_by').detail.rule).toBe('not-in-past');
    expect(refused(() => i.rescheduleMaintenance(1, '2026-12-09 02:00:01 +0000'), 400, 'scheduled_by').detail.rule).toBe('not-after-required-by');
    expect(refused(() => i.rescheduleMaintenance(1, '2026-02-30 02:00:00 +0000'), 400, 'scheduled_by').detail.rule).toBe('format');
    expect(snapshot(i)).toEqual(before);
  });

  it('an unknown id is a 404', () => {
    const before = snapshot(i);
    refused(() => i.rescheduleMaintenance(9, '2026-12-01 03:00:00 +0000'), 404);
    refused(() => i.runMaintenance(9), 404);
    expect(snapshot(i)).toEqual(before);
  });

  it('running an item sets it in_progress now; it completes after its duration and leaves the list', () => {
    expect(i.runMaintenance(1)).toMatchObject({ id: 1, status: 'in_progress' });
    expect(i.listMaintenance().map((m) => [m.id, m.status])).toEqual([
      [1, 'in_progress'],
      [2, 'scheduled'],
    ]);
    s.clock.advance(30 * MINUTE - 1);
    expect(i.listMaintenance()[0]).toMatchObject({ id: 1, status: 'in_progress' });
    s.clock.advance(1);
    expect(i.listMaintenance().map((m) => m.id)).toEqual([2]);
    refused(() => i.runMaintenance(1), 404);
    refused(() => i.rescheduleMaintenance(1, '2026-12-01 03:00:00 +0000'), 404);
  });

  it('an item in progress can be neither run again nor rescheduled (400), and nothing changes', () => {
    i.runMaintenance(1);
    const before = snapshot(i);
    refused(() => i.runMaintenance(1), 400, 'id');
    refused(() => i.rescheduleMaintenance(1, '2026-12-01 03:00:00 +0000'), 400, 'scheduled_by');
    expect(snapshot(i)).toEqual(before);
  });

  it('an item not run by hand starts when its scheduled_by arrives', () => {
    const first = i.listMaintenance()[0]!;
    s.clock.advance(at(first.scheduled_by) - NOW);
    expect(i.listMaintenance()[0]).toMatchObject({ id: 1, status: 'in_progress' });
    s.clock.advance(30 * MINUTE);
    expect(i.listMaintenance().map((m) => m.id)).toEqual([2]);
  });

  it('a rescheduled item starts at its new time', () => {
    i.rescheduleMaintenance(1, formatMaintenanceDate(NOW + HOUR));
    s.clock.advance(HOUR);
    expect(i.listMaintenance()[0]).toMatchObject({ id: 1, status: 'in_progress' });
  });

  it('every instance has one or two items, a few days ahead', () => {
    expect(s.instance({ id: 2 }).listMaintenance()).toHaveLength(1);
    expect(s.instance({ id: 3 }).listMaintenance()).toHaveLength(2);
    s.clock.advance(30 * DAY);
    // A later instance gets items a few days after its own creation.
    const late = s.instance({ id: 4 }).listMaintenance();
    expect(at(late[0]!.scheduled_by)).toBeGreaterThan(NOW + 30 * DAY);
  });
});
