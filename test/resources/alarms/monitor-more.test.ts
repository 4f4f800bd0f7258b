// The monitor's rules that instance-monitor.test.ts leaves open: the percentage limit of cpu, the
// database's measured size as disk_used_gb (and the control API's value winning over it), and an
// alarm created between evaluations (src/resources/alarms/monitor.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/domain/clock.js';
import type { InstanceStore } from '../../../src/resources/instances/instance.js';
import { Monitor } from '../../../src/resources/alarms/monitor.js';
import { DEFAULT_METRICS } from '../../../src/resources/alarms/conditions.js';
import type { NotificationBody } from '../../../src/resources/alarms/notifications.js';
import { Outbox } from '../../../src/domain/outbox.js';
import type { Alarm, Recipient } from '../../../src/domain/types.js';
import { MINUTE, NOW, refused, setup, type Setup } from '../instance-setup.js';

describe('metrics: the percentages', () => {
  let s: Setup;
  beforeEach(async () => {
    s = await setup();
  });

  it('refuse cpu above 100 as they refuse memory above 100 (maximum), and accept 100', () => {
    const i = s.instance();
    expect(refused(() => i.monitor.setMetrics({ cpu: 101 }), 400, 'cpu', 'maximum').message).toBe(
      'cpu: is a percentage, at most 100',
    );
    expect(refused(() => i.monitor.setMetrics({ cpu: 100.5 }), 400, 'cpu', 'maximum').message).toBe(
      'cpu: is a percentage, at most 100',
    );
    expect(i.monitor.metrics).toEqual(DEFAULT_METRICS);
    expect(i.monitor.setMetrics({ cpu: 100 })).toEqual({ ...DEFAULT_METRICS, cpu: 100 });
  });
});

describe("the database's measured size", () => {
  const email: Recipient = { id: 1, type: 'email', value: 'ops@example.com', name: 'Ops', options: {} };
  const monitor = () => {
    const clock = new VirtualClock();
    clock.pin(NOW);
    const outbox = new Outbox({ clock });
    const alarms: Alarm[] = [];
    const m = new Monitor({
      clock,
      outbox,
      instance: () => ({ id: 3, name: 'measured' }),
      alarms: () => alarms,
      recipients: () => [email],
      defaultRecipientId: () => email.id,
      maintenanceStarts: () => [],
      nextMaintenanceStart: () => undefined,
    });
    return { clock, monitor: m };
  };

  it('becomes disk_used_gb, each new measurement replacing the last, an empty database included', () => {
    const { monitor: m } = monitor();
    m.observeDiskUsed(2.5);
    expect(m.metrics.disk_used_gb).toBe(2.5);
    m.observeDiskUsed(3);
    expect(m.metrics.disk_used_gb).toBe(3);
    m.observeDiskUsed(0);
    expect(m.metrics).toEqual({ ...DEFAULT_METRICS, disk_used_gb: 0 });
  });

  it('a negative size is ignored: no error reaches the engine and the metrics stay', () => {
    const { monitor: m } = monitor();
    expect(() => m.observeDiskUsed(-0.5)).not.toThrow();
    expect(m.metrics).toEqual(DEFAULT_METRICS);
  });

  it('a measurement equal to disk_used_gb leaves the metrics and their time (metrics_at) as they were', () => {
    const { clock, monitor: m } = monitor();
    m.observeDiskUsed(4);
    const before = m.toJSON();
    expect(before.metrics_at).toBe(NOW);
    clock.advance(MINUTE);
    m.observeDiskUsed(4);
    expect(m.toJSON()).toEqual(before);
    m.observeDiskUsed(5);
    expect(m.toJSON()).toMatchObject({ metrics: { disk_used_gb: 5 }, metrics_at: NOW + MINUTE });
  });

  it('still follows the database after the control API sets other metrics', () => {
    const { monitor: m } = monitor();
    m.setMetrics({ cpu: 50, disk_total_gb: 200 });
    m.observeDiskUsed(7);
    expect(m.metrics).toEqual({ cpu: 50, memory: DEFAULT_METRICS.memory, disk_used_gb: 7, disk_total_gb: 200 });
  });

  it('once the control API sets disk_used_gb, its value wins over every later measurement', () => {
    const { monitor: m } = monitor();
    m.observeDiskUsed(7);
    m.setMetrics({ disk_used_gb: 42 });
    m.observeDiskUsed(8);
    m.observeDiskUsed(0);
    expect(m.metrics.disk_used_gb).toBe(42);
  });
});

describe('an alarm created between evaluations', () => {
  let s: Setup;
  let i: InstanceStore;
  beforeEach(async () => {
    s = await setup();
    i = s.instance();
    // Build the instance's state and evaluate it, so that the next due time is known (the
    // maintenance days ahead): a new alarm is then armed on its own, without an evaluation.
    i.alarms.list();
    expect(i.evaluateAlarms()).toBe(0);
  });

  const triggeredIds = () =>
    s.registry.outbox
      .list()
      .filter((e) => e.kind === 'notification')
      .map((e) => (e.body as NotificationBody).alarm.id);

  it('whose condition does not hold is not due, and shows as not holding', () => {
    const a = i.alarms.create({ type: 'cpu', value_threshold: 50, time_threshold: 60 }); // cpu is at 10%
    expect(i.toJSON().monitor!.alarms.find((x) => x.id === a.id)).toMatchObject({ since: null, fired: false });
    expect(i.monitor.status().find((x) => x.id === a.id)).toMatchObject({
      holding: false,
      holding_since: null,
      triggers_at: null,
    });
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(0);
    expect(triggeredIds()).toEqual([]);
  });

  it('disabled, has no episode (in the state dump too) and does not trigger though its condition holds', () => {
    const a = i.alarms.create({ type: 'memory', value_threshold: 20, time_threshold: 60, enabled: false }); // memory is at 30%
    expect(i.toJSON().monitor!.alarms.find((x) => x.id === a.id)).toMatchObject({ since: null, fired: false });
    expect(i.monitor.status().find((x) => x.id === a.id)).toMatchObject({
      holding: true,
      holding_since: null,
      triggers_at: null,
      triggered: false,
    });
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(0);
    expect(triggeredIds()).toEqual([]);
  });
});
