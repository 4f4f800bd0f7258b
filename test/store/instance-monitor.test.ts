// InstanceStore: simulated metrics and the alarms that fire (src/store/instance-monitor.ts).
import { beforeEach, describe, expect, it } from 'vitest';
import type { InstanceStore } from '../../src/store/instance.js';
import { conditionHolds, DEFAULT_METRICS, mergeMetrics, type NotificationBody } from '../../src/store/instance-monitor.js';
import type { OutboxEntry } from '../../src/store/outbox.js';
import type { Alarm } from '../../src/store/types.js';
import { DAY, MINUTE, NOW, refused, setup, TEAM_EMAIL, type Setup } from './instance-setup.js';

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
    expect(i.metrics).toEqual(DEFAULT_METRICS);
    expect(i.setMetrics({ cpu: 95 })).toEqual({ ...DEFAULT_METRICS, cpu: 95 });
    expect(i.setMetrics({ disk_used_gb: 50, disk_total_gb: 60 })).toEqual({ ...DEFAULT_METRICS, cpu: 95, disk_used_gb: 50, disk_total_gb: 60 });
  });

  it('refuse unknown fields, non-numbers and impossible values, naming the field', () => {
    const before = i.metrics;
    refused(() => i.setMetrics({ cpus: 1 }), 400, 'cpus');
    refused(() => i.setMetrics({ cpu: '95' }), 400, 'cpu');
    refused(() => i.setMetrics({ memory: 101 }), 400, 'memory');
    refused(() => i.setMetrics({ cpu: -1 }), 400, 'cpu');
    refused(() => i.setMetrics({ disk_used_gb: 200 }), 400, 'disk_used_gb');
    refused(() => i.setMetrics({ disk_total_gb: 5 }), 400, 'disk_total_gb');
    refused(() => i.setMetrics({ disk_total_gb: 0, disk_used_gb: 0 }), 400, 'disk_total_gb');
    refused(() => i.setMetrics([1]), 400, 'body');
    expect(i.metrics).toEqual(before);
  });

  it('mergeMetrics keeps the current values of omitted fields', () => {
    expect(mergeMetrics(DEFAULT_METRICS, {})).toEqual(DEFAULT_METRICS);
  });
});

describe('conditions', () => {
  const alarm = (a: Partial<Alarm>): Alarm => ({ id: 1, type: 'cpu', enabled: true, recipients: [], value_threshold: 90, time_threshold: 600, ...a });
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
    expect(conditionHolds(alarm({ type: 'disk', value_calculation: 'percentage', value_threshold: 96 }), m)).toBe(false);
  });
});

describe('level alarms', () => {
  it('trigger once the condition has held for time_threshold, at start + time_threshold', () => {
    const hook = i.createRecipient({ type: 'webhook', value: 'https://hooks.example.com/a', name: 'ops' });
    const alarm = i.createAlarm({ type: 'cpu', value_threshold: 80, time_threshold: 300, recipients: [hook.id] });
    i.setMetrics({ cpu: 85 });
    s.clock.advance(299_000);
    expect(i.evaluateAlarms()).toBe(0);
    s.clock.advance(1_000);
    expect(i.evaluateAlarms()).toBe(1);
    const [entry] = notifications();
    expect(entry).toMatchObject({ kind: 'notification', event: 'alarm.cpu', target: 'https://hooks.example.com/a', status: 'pending' });
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
    i.setMetrics({ memory: 95 });
    s.clock.advance(3 * DAY);
    i.evaluateAlarms();
    expect(bodies().filter((b) => b.reason === 'threshold').map((b) => [b.alarm.type, b.triggered_at])).toEqual([['memory', iso(NOW + 600_000)]]);
  });

  it('notify the default recipient (recorded, not sent) when the alarm has no recipients', () => {
    i.setMetrics({ cpu: 91 });
    s.clock.advance(10 * MINUTE);
    i.evaluateAlarms();
    expect(notifications()).toMatchObject([{ event: 'alarm.cpu', target: TEAM_EMAIL, status: 'recorded', attempts: 0 }]);
    expect(bodies()[0]!.recipient).toEqual({ id: 1, type: 'email', name: 'Default' });
  });

  it('re-arm when the value drops below, and trigger again on a new episode', () => {
    i.setMetrics({ cpu: 95 });
    s.clock.advance(10 * MINUTE);
    i.setMetrics({ cpu: 20 });
    i.setMetrics({ cpu: 96 });
    s.clock.advance(5 * MINUTE);
    i.setMetrics({ cpu: 93 }); // still above: the episode goes on
    s.clock.advance(5 * MINUTE);
    i.evaluateAlarms();
    expect(bodies().map((b) => b.triggered_at)).toEqual([iso(NOW + 10 * MINUTE), iso(NOW + 20 * MINUTE)]);
  });

  it('trigger what was due before new metrics end the condition', () => {
    i.setMetrics({ cpu: 95 });
    s.clock.advance(15 * MINUTE);
    i.setMetrics({ cpu: 10 });
    expect(bodies().map((b) => b.triggered_at)).toEqual([iso(NOW + 10 * MINUTE)]);
  });

  it('do not trigger while disabled; enabling arms them from then on', () => {
    const cpu = i.listAlarms().find((a) => a.type === 'cpu')!;
    i.updateAlarm(cpu.id, { type: 'cpu', enabled: false });
    i.setMetrics({ cpu: 99 });
    s.clock.advance(HOUR_MS);
    expect(i.evaluateAlarms()).toBe(0);
    i.updateAlarm(cpu.id, { type: 'cpu', enabled: true });
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies()[0]!.triggered_at).toBe(iso(NOW + HOUR_MS + 10 * MINUTE));
  });

  it('an alarm created while the condition holds counts from its creation', () => {
    i.setMetrics({ memory: 50 });
    s.clock.advance(HOUR_MS);
    const a = i.createAlarm({ type: 'memory', value_threshold: 40, time_threshold: 60 });
    s.clock.advance(60_000);
    i.evaluateAlarms();
    expect(bodies().map((b) => [b.alarm.id, b.triggered_at])).toEqual([[a.id, iso(NOW + HOUR_MS + 60_000)]]);
  });

  it('creating an alarm first triggers what was due already, at its own time', () => {
    i.setMetrics({ cpu: 95 }); // the default cpu alarm (90%, 600 s) holds from NOW
    s.clock.advance(HOUR_MS); // no evaluation in between
    const a = i.createAlarm({ type: 'memory', value_threshold: 20, time_threshold: 60 }); // memory is at 30%
    expect(bodies().map((b) => [b.alarm.id, b.triggered_at])).toEqual([[1, iso(NOW + 600_000)]]);
    s.clock.advance(60_000);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => b.alarm.id)).toEqual([1, a.id]);
  });

  it('an alarm created while its condition does not hold is not due', () => {
    const a = i.createAlarm({ type: 'cpu', value_threshold: 50, time_threshold: 60 });
    s.clock.advance(DAY);
    expect(i.evaluateAlarms()).toBe(0);
    i.setMetrics({ cpu: 50 });
    s.clock.advance(60_000);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies().map((b) => b.alarm.id)).toEqual([a.id]);
  });

  it('the default disk alarm reads 5 GB or less free', () => {
    i.setMetrics({ disk_used_gb: 94, disk_total_gb: 100 });
    s.clock.advance(HOUR_MS);
    expect(i.evaluateAlarms()).toBe(0);
    i.setMetrics({ disk_used_gb: 95 });
    s.clock.advance(10 * MINUTE);
    expect(i.evaluateAlarms()).toBe(1);
    expect(bodies()[0]).toMatchObject({ alarm: { type: 'disk', value_threshold: 5, value_calculation: 'fixed' }, value: 5, message: 'disk has 5 GB free (threshold 5 GB or less) for 600 s' });
  });

  it('a disk percentage alarm reads the used share', () => {
    const a = i.createAlarm({ type: 'disk', value_calculation: 'percentage', value_threshold: 80, time_threshold: 60 });
    i.setMetrics({ disk_used_gb: 40, disk_total_gb: 50 });
    s.clock.advance(60_000);
    i.evaluateAlarms();
    expect(bodies().filter((b) => b.alarm.id === a.id)).toMatchObject([{ value: 80 }]);
  });

  it('notify every recipient by its channel: HTTP for webhook and chat, recorded for the rest', () => {
    const ids = [
      i.createRecipient({ type: 'webhook', value: 'https://hooks.example.com/w' }),
      i.createRecipient({ type: 'chat_a', value: 'https://chat-a.example.com/x' }),
      i.createRecipient({ type: 'chat_b', value: 'https://chat-b.example.com/y' }),
      i.createRecipient({ type: 'email', value: 'oncall@example.com' }),
      i.createRecipient({ type: 'paging_a', value: 'pager-key-123' }),
    ].map((r) => r.id);
    i.createAlarm({ type: 'cpu', value_threshold: 50, time_threshold: 1, recipients: ids });
    i.setMetrics({ cpu: 60 });
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

  it('a deleted alarm is forgotten', () => {
    const a = i.createAlarm({ type: 'cpu', value_threshold: 50, time_threshold: 60 });
    i.setMetrics({ cpu: 60 });
    i.deleteAlarm(a.id);
    s.clock.advance(60_000);
    i.evaluateAlarms();
    expect(bodies().some((b) => b.alarm.id === a.id)).toBe(false);
  });

  it('status shows the value, since when the condition holds and when it triggers', () => {
    i.setMetrics({ cpu: 95 });
    const cpu = i.alarmStatus().find((a) => a.type === 'cpu');
    expect(cpu).toMatchObject({ value: 95, holding: true, holding_since: iso(NOW), triggers_at: iso(NOW + 10 * MINUTE), triggered: false });
    expect(i.alarmStatus().find((a) => a.type === 'notice')).toEqual({ id: 4, type: 'notice', enabled: true });
  });
});

describe('event alarms', () => {
  it('server_unreachable and netsplit trigger at once on their event', () => {
    const hook = i.createRecipient({ type: 'webhook', value: 'https://hooks.example.com/e' });
    i.createAlarm({ type: 'server_unreachable', recipients: [hook.id] });
    i.createAlarm({ type: 'netsplit' });
    expect(i.raiseEvent('server_unreachable')).toBe(1);
    expect(i.raiseEvent('netsplit', 'split brain')).toBe(1);
    expect(bodies().map((b) => [b.reason, b.message, b.recipient.type, b.triggered_at])).toEqual([
      ['server_unreachable', 'The server of the instance is unreachable', 'webhook', iso(NOW)],
      ['netsplit', 'split brain', 'email', iso(NOW)],
    ]);
  });

  it('an event without an enabled alarm of its type notifies nobody', () => {
    expect(i.raiseEvent('netsplit')).toBe(0);
  });

  it('notice alarms trigger when maintenance is rescheduled or run', () => {
    const [m] = i.listMaintenance();
    const at = new Date(NOW + DAY);
    const text = `${at.toISOString().slice(0, 10)} ${at.toISOString().slice(11, 19)} +0000`;
    i.rescheduleMaintenance(m!.id, text);
    i.runMaintenance(m!.id);
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
    const items = i.listMaintenance();
    s.clock.advance(30 * DAY);
    i.evaluateAlarms();
    expect(bodies().map((b) => [b.reason, b.maintenance?.id])).toEqual(items.map((m) => ['maintenance_started', m.id]));
    expect(bodies()[0]!.maintenance?.status).toBe('in_progress');
    i.evaluateAlarms();
    expect(bodies()).toHaveLength(items.length);
  });
});

describe('state', () => {
  it('survives toJSON and fromJSON', () => {
    i.setMetrics({ cpu: 95 });
    s.clock.advance(5 * MINUTE);
    const state = i.toJSON();
    const copy = (i.constructor as typeof import('../../src/store/instance.js').InstanceStore).fromJSON(
      state,
      { accountId: i.accountId, teamEmail: TEAM_EMAIL, plan: i.plan, backend: i.backend },
      s.ctx,
    );
    expect(copy.metrics).toEqual(i.metrics);
    expect(copy.alarmStatus()).toEqual(i.alarmStatus());
    expect(copy.toJSON().monitor).toEqual(state.monitor);
    s.clock.advance(5 * MINUTE);
    expect(copy.evaluateAlarms()).toBe(1);
  });
});

const HOUR_MS = 60 * MINUTE;
