// InstanceStore: simulated metrics and the alarms that fire (src/resources/alarms/monitor.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/domain/clock.js';
import type { InstanceStore } from '../../../src/resources/instances/instance.js';
import { Monitor } from '../../../src/resources/alarms/monitor.js';
import {
  conditionHolds,
  DEFAULT_METRICS,
  mergeMetrics,
  watchedValue,
} from '../../../src/resources/alarms/conditions.js';
import type { NotificationBody } from '../../../src/resources/alarms/notifications.js';
import { Outbox, type OutboxEntry } from '../../../src/domain/outbox.js';
import type { Alarm, Recipient } from '../../../src/domain/types.js';
import { DAY, MINUTE, NOW, refused, setup, TEAM_EMAIL, type Setup } from '../instance-setup.js';

let s: Setup;
let i: InstanceStore;
beforeEach(async () => {
  s = await setup();
  i = s.instance();
});

const notifications = (): OutboxEntry[] => s.registry.outbox.list().filter((e) => e.kind === 'notification');
const bodies = () => notifications().map((e) => e.body as NotificationBody);
const iso = (ms: number) => new Date(ms).toISOString();

describe('metrics', () => {
  it('start below every default alarm and are merged field by field', () => {
    expect(i.monitor.metrics).toEqual(DEFAULT_METRICS);
    expect(i.monitor.setMetrics({ cpu: 95 })).toEqual({ ...DEFAULT_METRICS, cpu: 95 });
    expect(i.monitor.setMetrics({ disk_used_gb: 50, disk_total_gb: 60 })).toEqual({
      ...DEFAULT_METRICS,
      cpu: 95,
      disk_used_gb: 50,
      disk_total_gb: 60,
    });
  });

  it('refuse unknown fields, non-numbers and impossible values, naming the field', () => {
    const before = i.monitor.metrics;
    refused(() => i.monitor.setMetrics({ cpus: 1 }), 400, 'cpus');
    refused(() => i.monitor.setMetrics({ cpu: '95' }), 400, 'cpu');
    refused(() => i.monitor.setMetrics({ memory: 101 }), 400, 'memory');
    refused(() => i.monitor.setMetrics({ cpu: -1 }), 400, 'cpu');
    refused(() => i.monitor.setMetrics({ disk_used_gb: 200 }), 400, 'disk_used_gb');
    refused(() => i.monitor.setMetrics({ disk_total_gb: 5 }), 400, 'disk_total_gb');
    refused(() => i.monitor.setMetrics({ disk_total_gb: 0, disk_used_gb: 0 }), 400, 'disk_total_gb');
    refused(() => i.monitor.setMetrics([1]), 400, 'body');
    expect(i.monitor.metrics).toEqual(before);
  });

  it('mergeMetrics keeps the current values of omitted fields', () => {
    expect(mergeMetrics(DEFAULT_METRICS, {})).toEqual(DEFAULT_METRICS);
  });

  it('refuse a body that is not an object, and an unknown field with the list of the metrics', () => {
    for (const body of [null, 5, 'cpu', [1]])
      expect(refused(() => i.monitor.setMetrics(body), 400, 'body', 'type').message).toBe(
        'body: must be a JSON object of metrics',
      );
    expect(refused(() => i.monitor.setMetrics({ cpus: 1 }), 400, 'cpus', 'additionalProperties').message).toBe(
      'cpus: is not a metric; the metrics are cpu, memory, disk_used_gb, disk_total_gb',
    );
  });

  it('refuse each bad value with its rule and a message saying what is allowed', () => {
    const cases: [unknown, string, string, string][] = [
      [{ cpu: '95' }, 'cpu', 'type', 'must be a number'],
      [{ memory: Number.NaN }, 'memory', 'type', 'must be a number'],
      [{ disk_total_gb: Number.POSITIVE_INFINITY }, 'disk_total_gb', 'type', 'must be a number'],
      [{ cpu: -1 }, 'cpu', 'minimum', 'must be at least 0'],
      [{ memory: 100.5 }, 'memory', 'maximum', 'is a percentage, at most 100'],
      [{ disk_total_gb: 0, disk_used_gb: 0 }, 'disk_total_gb', 'exclusiveMinimum', 'must be more than 0'],
      [{ disk_used_gb: 200 }, 'disk_used_gb', 'disk', 'disk_used_gb (200) cannot exceed disk_total_gb (100)'],
      [{ disk_total_gb: 5 }, 'disk_total_gb', 'disk', 'disk_used_gb (10) cannot exceed disk_total_gb (5)'],
    ];
    for (const [body, field, rule, message] of cases)
      expect(refused(() => i.monitor.setMetrics(body), 400, field, rule).message).toBe(`${field}: ${message}`);
    expect(i.monitor.metrics).toEqual(DEFAULT_METRICS);
  });

  it('accept the boundaries: 0, 100 percent, disks above 100 GB and a full disk', () => {
    expect(i.monitor.setMetrics({ cpu: 0, memory: 100 })).toEqual({ ...DEFAULT_METRICS, cpu: 0, memory: 100 });
    expect(i.monitor.setMetrics({ disk_used_gb: 500, disk_total_gb: 500 })).toEqual({
      cpu: 0,
      memory: 100,
      disk_used_gb: 500,
      disk_total_gb: 500,
    });
  });
});

describe('conditions', () => {
  const alarm = (a: Partial<Alarm>): Alarm => ({
    id: 1,
    type: 'cpu',
    enabled: true,
    recipients: [],
    value_threshold: 90,
    time_threshold: 600,
    ...a,
  });
  const m = { cpu: 90, memory: 89, disk_used_gb: 95, disk_total_gb: 100 };
  it('cpu and memory hold at or above the percentage', () => {
    expect(conditionHolds(alarm({ type: 'cpu' }), m)).toBe(true);
    expect(conditionHolds(alarm({ type: 'memory' }), m)).toBe(false);
  });
  it('disk fixed holds while the free gigabytes are at or below the threshold', () => {
    expect(conditionHolds(alarm({ type: 'disk', value_calculation: 'fixed', value_threshold: 5 }), m)).toBe(true);
    expect(conditionHolds(alarm({ type: 'disk', value_calculation: 'fixed', value_threshold: 4 }), m)).toBe(false);
  });
  it('disk percentage holds while the used share is at or above the threshold', () => {
    expect(conditionHolds(alarm({ type: 'disk', value_calculation: 'percentage', value_threshold: 95 }), m)).toBe(true);
    expect(conditionHolds(alarm({ type: 'disk', value_calculation: 'percentage', value_threshold: 96 }), m)).toBe(
      false,
    );
  });
  it('disk without value_calculation reads fixed: the free gigabytes', () => {
    const disk = alarm({ type: 'disk', value_threshold: 5 });
    expect(watchedValue(disk, m)).toBe(5);
    expect(conditionHolds(disk, m)).toBe(true);
    expect(conditionHolds({ ...disk, value_threshold: 4 }, m)).toBe(false);
  });
});

describe('level alarms', () => {
  it('trigger once the condition has held for time_threshold, at start + time_threshold', () => {
    const hook = i.recipients.create({ type: 'webhook', value: 'https://hooks.example.com/a', name: 'ops' });
    const alarm = i.alarms.create({ type: 'cpu', value_threshold: 80, time_threshold: 300, recipients: [hook.id] });
    i.monitor.setMetrics({ cpu: 85 });
    s.clock.advance(299_000);
    expect(i.evaluateAlarms()).toBe(0);
    s.clock.advance(1_000);
    expect(i.evaluateAlarms()).toBe(1);
    const [entry] = notifications();
    expect(entry).toMatchObject({
      kind: 'notification',
      event: 'alarm.cpu',
      target: 'https://hooks.example.com/a',
      status: 'pending',
    });
    expect(entry!.body).toEqual({
      event: 'alarm',
      reason: 'threshold',
      message: 'cpu at 85% (threshold 80%) for 300 s',
      alarm: { id: alarm.id, type: 'cpu', value_threshold: 80, time_threshold: 300 },
      instance: { id: i.id, name: 'orders-db' },
      value: 85,
      metrics: { ...DEFAULT_METRICS, cpu: 85 },
      triggered_at: iso(NOW + 300_000),
      recipient: { id: hook.id, type: 'webhook', name: 'Ops' },
    });
    s.clock.advance(DAY);
    expect(i.evaluateAlarms()).toBe(0);
  });

  it('use the time of the trigger even when evaluated much later', () => {
    i.monitor.setMetrics({ memory: 95 });
    s.clock.advance(3 * DAY);
    i.evaluateAlarms();
    expect(
      bodies()
        .filter((b) => b.reason === 'threshold')
        .map((b) => [b.alarm.type, b.triggered_at]),
    ).toEqual([['memory', iso(NOW + 600_000)]]);
  });

  it('notify the default recipient (recorded, not sent) when the alarm has no recipients', () => {
    i.monitor.setMetrics({ cpu: 91 });
    s.clock.advance(10 * MINUTE);
    i.evaluateAlarms();
    expect(notifications()).toMatchObject([
      { event: 'alarm.cpu', target: TEAM_EMAIL, status: 'recorded', attempts: 0 },
    ]);
    expect(bodies()[0]!.recipient).toEqual({ id: 1, type: 'email', name: 'Default' });
  });

  it('re-arm when the value drops below, and trigger again on a new episode', () => {
    i.monitor.setMetrics({ cpu: 95 });
    s.clock.advance(10 * MINUTE);
    i.monitor.setMetrics({ cpu: 20 });
    i.monitor.setMetrics({ cpu: 96 });
    s.clock.advance(5 * MINUTE);
    i.monitor.setMetrics({ cpu: 93 }); // still above: the episode goes on
    s.clock.advance(5 * MINUTE);
    i.evaluateAlarms();
    expect(bodies().map((b) => b.triggered_at)).toEqual([iso(NOW + 10 * MINUTE), iso(NOW + 20 * MINUTE)]);
  });

  it('trigger what was due before new metrics end the condition', () => {
    i.monitor.setMetrics({ cpu: 95 });
    s.clock.advance(15 * MINUTE);
    i.monitor.setMetrics({ cpu: 10 });
    expect(bodies().map((b) => b.triggered_at)).toEqual([iso(NOW + 10 * MINUTE)]);
  });

  it('do not trigger while disabled; enabling arms them from then on', () => {
    const cpu = i.alarms.list().find((a) => a.type === 'cpu')!;
    i.alarms.update(cpu.id, { type: 'cpu', enabled: false });
    i.monitor.setMetrics({ cpu: 99 });
    s.clock.advance(HOUR_MS);
    expect(i.evaluateAlarms()).toBe(0);
    i.alarms.update(cpu.id, { type: 'cpu', enabled: true });
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies()[0]!.triggered_at).toBe(iso(NOW + HOUR_MS + 10 * MINUTE));
  });

  it('an alarm created while the condition holds counts from its creation', () => {
    i.monitor.setMetrics({ memory: 50 });
    s.clock.advance(HOUR_MS);
    const a = i.alarms.create({ type: 'memory', value_threshold: 40, time_threshold: 60 });
    s.clock.advance(60_000);
    i.evaluateAlarms();
    expect(bodies().map((b) => [b.alarm.id, b.triggered_at])).toEqual([[a.id, iso(NOW + HOUR_MS + 60_000)]]);
  });

  it('creating an alarm first triggers what was due already, at its own time', () => {
    i.monitor.setMetrics({ cpu: 95 }); // the default cpu alarm (90%, 600 s) holds from NOW
    s.clock.advance(HOUR_MS); // no evaluation in between
    const a = i.alarms.create({ type: 'memory', value_threshold: 20, time_threshold: 60 }); // memory is at 30%
    expect(bodies().map((b) => [b.alarm.id, b.triggered_at])).toEqual([[1, iso(NOW + 600_000)]]);
    s.clock.advance(60_000);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => b.alarm.id)).toEqual([1, a.id]);
  });

  it('an alarm created while its condition does not hold is not due', () => {
    const a = i.alarms.create({ type: 'cpu', value_threshold: 50, time_threshold: 60 });
    s.clock.advance(DAY);
    expect(i.evaluateAlarms()).toBe(0);
    i.monitor.setMetrics({ cpu: 50 });
    s.clock.advance(60_000);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => b.alarm.id)).toEqual([a.id]);
  });

  it('the default disk alarm reads 5 GB or less free', () => {
    i.monitor.setMetrics({ disk_used_gb: 94, disk_total_gb: 100 });
    s.clock.advance(HOUR_MS);
    expect(i.evaluateAlarms()).toBe(0);
    i.monitor.setMetrics({ disk_used_gb: 95 });
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies()[0]).toMatchObject({
      alarm: { type: 'disk', value_threshold: 5, value_calculation: 'fixed' },
      value: 5,
      message: 'disk has 5 GB free (threshold 5 GB or less) for 600 s',
    });
  });

  it('a disk percentage alarm reads the used share', () => {
    const a = i.alarms.create({
      type: 'disk',
      value_calculation: 'percentage',
      value_threshold: 80,
      time_threshold: 60,
    });
    i.monitor.setMetrics({ disk_used_gb: 40, disk_total_gb: 50 });
    s.clock.advance(60_000);
    i.evaluateAlarms();
    expect(bodies().filter((b) => b.alarm.id === a.id)).toMatchObject([
      { value: 80, message: 'disk is 80% used (threshold 80%) for 60 s' },
    ]);
  });

  it('notify every recipient by its channel: HTTP for webhook and chat, recorded for the rest', () => {
    const ids = [
      i.recipients.create({ type: 'webhook', value: 'https://hooks.example.com/w' }),
      i.recipients.create({ type: 'chat_a', value: 'https://chat-a.example.com/x' }),
      i.recipients.create({ type: 'chat_b', value: 'https://chat-b.example.com/y' }),
      i.recipients.create({ type: 'email', value: 'oncall@example.com' }),
      i.recipients.create({ type: 'paging_a', value: 'pager-key-123' }),
    ].map((r) => r.id);
    i.alarms.create({ type: 'cpu', value_threshold: 50, time_threshold: 1, recipients: ids });
    i.monitor.setMetrics({ cpu: 60 });
    s.clock.advance(1000);
    expect(i.evaluateAlarms()).toBe(5);
    expect(notifications().map((e) => [e.target, e.status])).toEqual([
      ['https://hooks.example.com/w', 'pending'],
      ['https://chat-a.example.com/x', 'pending'],
      ['https://chat-b.example.com/y', 'pending'],
      ['oncall@example.com', 'recorded'],
      ['pager-key-123', 'recorded'],
    ]);
  });

  it('changing value_calculation re-arms a disk alarm', () => {
    const disk = i.alarms.list().find((a) => a.type === 'disk')!;
    i.monitor.setMetrics({ disk_used_gb: 95 }); // 5 GB free: the default disk alarm (5 GB, 600 s) holds
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    i.alarms.update(disk.id, { type: 'disk', value_calculation: 'percentage' }); // 95% used >= 5%: holds anew
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => [b.message, b.triggered_at])).toEqual([
      ['disk has 5 GB free (threshold 5 GB or less) for 600 s', iso(NOW + 10 * MINUTE)],
      ['disk is 95% used (threshold 5%) for 600 s', iso(NOW + 20 * MINUTE)],
    ]);
  });

  it('an alarm created after an evaluation is armed at once, and counts only while its condition holds', () => {
    expect(i.evaluateAlarms()).toBe(0);
    i.alarms.create({ type: 'cpu', value_threshold: 50, time_threshold: 60 }); // cpu is at 10%
    const holding = i.alarms.create({ type: 'memory', value_threshold: 20, time_threshold: 60 }); // memory is at 30%
    s.clock.advance(60_000);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => [b.alarm.id, b.triggered_at])).toEqual([[holding.id, iso(NOW + 60_000)]]);
  });

  it('creating an alarm right when another is due triggers that one first', () => {
    i.monitor.setMetrics({ cpu: 95 });
    s.clock.advance(10 * MINUTE);
    i.alarms.create({ type: 'netsplit' });
    expect(bodies().map((b) => [b.alarm.id, b.triggered_at])).toEqual([[1, iso(NOW + 10 * MINUTE)]]);
  });

  it('the state keeps the level alarms only, and no episode for a disabled one', () => {
    const levelIds = i.alarms
      .list()
      .filter((a) => a.type === 'cpu' || a.type === 'memory' || a.type === 'disk')
      .map((a) => a.id);
    expect(i.evaluateAlarms()).toBe(0);
    i.alarms.create({ type: 'netsplit' });
    expect(i.toJSON().monitor!.alarms.map((a) => a.id)).toEqual(levelIds);
    i.alarms.update(1, { type: 'cpu', enabled: false });
    i.monitor.setMetrics({ cpu: 99 });
    expect(i.toJSON().monitor!.alarms.find((a) => a.id === 1)).toMatchObject({ since: null, fired: false });
  });

  it('a deleted alarm leaves the state, and the episodes of the others run on', () => {
    const levelIds = i.toJSON().monitor!.alarms.map((a) => a.id);
    const a = i.alarms.create({ type: 'memory', value_threshold: 50, time_threshold: 60 });
    i.monitor.setMetrics({ cpu: 95 }); // the default cpu alarm holds from NOW
    s.clock.advance(5 * MINUTE);
    i.alarms.delete(a.id);
    expect(i.toJSON().monitor!.alarms.map((x) => x.id)).toEqual(levelIds);
    s.clock.advance(5 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => [b.alarm.id, b.triggered_at])).toEqual([[1, iso(NOW + 10 * MINUTE)]]);
  });

  it('a deleted alarm is forgotten', () => {
    const a = i.alarms.create({ type: 'cpu', value_threshold: 50, time_threshold: 60 });
    i.monitor.setMetrics({ cpu: 60 });
    i.alarms.delete(a.id);
    s.clock.advance(60_000);
    i.evaluateAlarms();
    expect(bodies().some((b) => b.alarm.id === a.id)).toBe(false);
  });

  it('status shows the value, since when the condition holds and when it triggers', () => {
    i.monitor.setMetrics({ cpu: 95 });
    const cpu = i.monitor.status().find((a) => a.type === 'cpu');
    expect(cpu).toMatchObject({
      value: 95,
      holding: true,
      holding_since: iso(NOW),
      triggers_at: iso(NOW + 10 * MINUTE),
      triggered: false,
    });
    expect(i.monitor.status().find((a) => a.type === 'notice')).toEqual({ id: 4, type: 'notice', enabled: true });
  });

  it('status shows triggered for the current episode only', () => {
    i.monitor.setMetrics({ cpu: 95 });
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    expect(i.monitor.status().find((a) => a.type === 'cpu')).toStrictEqual({
      id: 1,
      type: 'cpu',
      enabled: true,
      value: 95,
      holding: true,
      holding_since: iso(NOW),
      triggers_at: iso(NOW + 10 * MINUTE),
      triggered: true,
    });
    i.monitor.setMetrics({ cpu: 20 });
    expect(i.monitor.status().find((a) => a.type === 'cpu')).toStrictEqual({
      id: 1,
      type: 'cpu',
      enabled: true,
      value: 20,
      holding: false,
      holding_since: null,
      triggers_at: null,
      triggered: false,
    });
  });

  it('still trigger on time after maintenance is rescheduled or run', () => {
    const [m] = i.maintenance.list();
    i.monitor.setMetrics({ cpu: 95 }); // due at NOW + 10 min
    i.maintenance.reschedule(m!.id, maintenanceDate(NOW + DAY));
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    i.monitor.setMetrics({ memory: 95 }); // due at NOW + 20 min
    i.maintenance.run(m!.id);
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    expect(
      bodies()
        .filter((b) => b.reason === 'threshold')
        .map((b) => [b.alarm.type, b.triggered_at]),
    ).toEqual([
      ['cpu', iso(NOW + 10 * MINUTE)],
      ['memory', iso(NOW + 20 * MINUTE)],
    ]);
  });
});

describe('event alarms', () => {
  it('server_unreachable and netsplit trigger at once on their event', () => {
    const hook = i.recipients.create({ type: 'webhook', value: 'https://hooks.example.com/e' });
    i.alarms.create({ type: 'server_unreachable', recipients: [hook.id] });
    i.alarms.create({ type: 'netsplit' });
    expect(i.monitor.raise('server_unreachable')).toBe(1);
    expect(i.monitor.raise('netsplit', 'split brain')).toBe(1);
    expect(bodies().map((b) => [b.reason, b.message, b.recipient.type, b.triggered_at])).toEqual([
      ['server_unreachable', 'The server of the instance is unreachable', 'webhook', iso(NOW)],
      ['netsplit', 'split brain', 'email', iso(NOW)],
    ]);
  });

  it('an event without an enabled alarm of its type notifies nobody', () => {
    expect(i.monitor.raise('netsplit')).toBe(0);
  });

  it('notice alarms trigger when maintenance is rescheduled or run', () => {
    const [m] = i.maintenance.list();
    const at = new Date(NOW + DAY);
    const text = `${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 19)} +0000`;
    i.maintenance.reschedule(m!.id, text);
    i.maintenance.run(m!.id);
    expect(bodies().map((b) => [b.reason, b.alarm.type, b.maintenance?.id, b.maintenance?.status])).toEqual([
      ['maintenance_scheduled', 'notice', m!.id, 'scheduled'],
      ['maintenance_started', 'notice', m!.id, 'in_progress'],
    ]);
    // Run by hand, it is not notified again when the clock moves on.
    s.clock.advance(30 * DAY);
    i.evaluateAlarms();
    expect(bodies().filter((b) => b.maintenance?.id === m!.id)).toHaveLength(2);
  });

  it('notice alarms trigger when scheduled maintenance starts on the clock', () => {
    const items = i.maintenance.list();
    s.clock.advance(30 * DAY);
    i.evaluateAlarms();
    expect(bodies().map((b) => [b.reason, b.maintenance?.id])).toEqual(items.map((m) => ['maintenance_started', m.id]));
    expect(bodies()[0]!.maintenance?.status).toBe('in_progress');
    i.evaluateAlarms();
    expect(bodies()).toHaveLength(items.length);
  });

  it('a maintenance start is notified by the first evaluation at its scheduled_by, and counted', () => {
    const j = s.instance({ id: 9001 }); // an odd id: two maintenance items
    const starts = j.maintenance.list().map((m) => Date.parse(m.scheduled_by.replace(' ', 'T').replace(' +0000', 'Z')));
    expect(starts).toHaveLength(2);
    expect(j.evaluateAlarms()).toBe(0);
    s.clock.set(starts[0]! - 1000);
    expect(j.evaluateAlarms()).toBe(0);
    s.clock.set(starts[0]!);
    expect(j.evaluateAlarms()).toBe(1);
    s.clock.set(starts[1]!);
    expect(j.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => [b.reason, b.triggered_at])).toEqual(starts.map((t) => ['maintenance_started', iso(t)]));
  });

  it('an item run by hand before its time leaves the other starts on time, and its own is not notified again', () => {
    const j = s.instance({ id: 9001 }); // an odd id: two maintenance items
    const [first, second] = j.maintenance.list();
    const startOf = (m: typeof first) => Date.parse(m!.scheduled_by.replace(' ', 'T').replace(' +0000', 'Z'));
    expect(j.maintenance.run(first!.id).status).toBe('in_progress'); // the start the next tick waited for
    expect(j.evaluateAlarms()).toBe(0);
    s.clock.set(startOf(first));
    expect(j.evaluateAlarms()).toBe(0);
    s.clock.set(startOf(second) - 1000);
    expect(j.evaluateAlarms()).toBe(0);
    s.clock.set(startOf(second));
    expect(j.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => [b.reason, b.maintenance?.id, b.triggered_at])).toEqual([
      ['maintenance_started', first!.id, iso(NOW)],
      ['maintenance_started', second!.id, iso(startOf(second))],
    ]);
  });

  it('a maintenance notice says what was scheduled or has started, with the item', () => {
    const [m] = i.maintenance.list();
    const text = maintenanceDate(NOW + DAY);
    const scheduled = i.maintenance.reschedule(m!.id, text);
    s.clock.advance(MINUTE);
    const started = i.maintenance.run(m!.id);
    const common = {
      event: 'alarm',
      alarm: { id: 4, type: 'notice' },
      instance: { id: i.id, name: 'orders-db' },
      recipient: { id: 1, type: 'email', name: 'Default' },
    };
    expect(bodies()).toStrictEqual([
      {
        ...common,
        reason: 'maintenance_scheduled',
        message: `Maintenance ${m!.id} (Operating system security update) is scheduled for ${text}`,
        maintenance: scheduled,
        triggered_at: iso(NOW),
      },
      {
        ...common,
        reason: 'maintenance_started',
        message: `Maintenance ${m!.id} (Operating system security update) has started; it takes 30 minutes`,
        maintenance: started,
        triggered_at: iso(NOW + MINUTE),
      },
    ]);
  });

  it('an event notification carries no level fields', () => {
    const a = i.alarms.create({ type: 'netsplit' });
    i.alarms.update(a.id, { type: 'netsplit', enabled: true }); // an updated alarm too
    i.monitor.raise('netsplit');
    expect(bodies()).toStrictEqual([
      {
        event: 'alarm',
        reason: 'netsplit',
        message: 'A network split separates the nodes of the instance',
        alarm: { id: a.id, type: 'netsplit' },
        instance: { id: i.id, name: 'orders-db' },
        triggered_at: iso(NOW),
        recipient: { id: 1, type: 'email', name: 'Default' },
      },
    ]);
  });
});

describe('state', () => {
  it('survives toJSON and fromJSON', () => {
    i.monitor.setMetrics({ cpu: 95 });
    s.clock.advance(5 * MINUTE);
    const state = i.toJSON();
    const copy = (
      i.constructor as typeof import('../../../src/resources/instances/instance.js').InstanceStore
    ).fromJSON(state, { accountId: i.accountId, teamEmail: TEAM_EMAIL, plan: i.plan, backend: i.backend }, s.ctx);
    expect(copy.monitor.metrics).toEqual(i.monitor.metrics);
    expect(copy.monitor.status()).toEqual(i.monitor.status());
    expect(copy.toJSON().monitor).toEqual(state.monitor);
    s.clock.advance(5 * MINUTE);
    expect(copy.evaluateAlarms()).toBe(1);
  });

  it('lists the started maintenance by id', () => {
    const j = s.instance({ id: 9001 }); // an odd id: two maintenance items
    const ids = j.maintenance.list().map((m) => m.id);
    expect(ids).toEqual([1, 2]);
    j.maintenance.run(2);
    j.maintenance.run(1);
    expect(j.toJSON().monitor!.maintenance_started).toEqual([1, 2]);
  });
});

describe('a host without nextMaintenanceStart', () => {
  const hook: Recipient = { id: 2, type: 'webhook', value: 'https://hooks.example.com/d', name: 'Disk', options: null };
  const bare = (alarm: Alarm) => {
    const clock = new VirtualClock();
    clock.pin(NOW);
    const outbox = new Outbox({ clock });
    const monitor = new Monitor({
      clock,
      outbox,
      instance: () => ({ id: 3, name: 'bare' }),
      alarms: () => [alarm],
      recipients: () => [hook],
      defaultRecipientId: () => hook.id,
      maintenanceStarts: () => [],
    });
    return { clock, outbox, monitor };
  };

  it('evaluates on every tick; a disk alarm without value_calculation reads the free gigabytes', () => {
    const { clock, outbox, monitor } = bare({
      id: 1,
      type: 'disk',
      enabled: true,
      recipients: [],
      value_threshold: 5,
      time_threshold: 60,
    });
    monitor.setMetrics({ disk_used_gb: 96 });
    clock.advance(60_000);
    expect(monitor.tick()).toBe(1);
    expect(outbox.list().map((e) => [e.target, (e.body as NotificationBody).message])).toEqual([
      ['https://hooks.example.com/d', 'disk has 4 GB free (threshold 5 GB or less) for 60 s'],
    ]);
  });

  it('skips a recipient id that names no recipient', () => {
    const { clock, outbox, monitor } = bare({
      id: 1,
      type: 'cpu',
      enabled: true,
      recipients: [7, hook.id],
      value_threshold: 50,
      time_threshold: 60,
    });
    monitor.setMetrics({ cpu: 60 });
    clock.advance(60_000);
    expect(monitor.tick()).toBe(1);
    expect(outbox.list().map((e) => e.target)).toEqual([hook.value]);
  });
});

const HOUR_MS = 60 * MINUTE;

/** A time as rescheduleMaintenance takes it (yyyy-mm-dd hh:mm:ss +0000). */
function maintenanceDate(ms: number): string {
  const at = new Date(ms).toISOString();
  return `${at.slice(0, 10)} ${at.slice(11, 19)} +0000`;
}
