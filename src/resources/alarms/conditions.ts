// The conditions of level alarms against an instance's simulated metrics (outside the contract; the
// rules are listed in monitor.ts's first comment): the value an alarm watches, whether its condition
// holds, what re-arms it, and a metrics patch checked and merged (a 400 naming the field).
import { invalid } from '../../core/errors.js';
import type { Alarm, AlarmType } from '../../domain/types.js';
import type { components } from '../../generated/control.js';
import { isoTime } from '../../domain/dates.js';

/** The simulated metrics of an instance: cpu and memory in percent (0 to 100), disk in GB (used within total > 0). */
export type InstanceMetrics = Required<components['schemas']['Metrics']>;

/** What every instance starts with: below every default alarm. */
export const DEFAULT_METRICS: Readonly<InstanceMetrics> = { cpu: 10, memory: 30, disk_used_gb: 10, disk_total_gb: 100 };

/** Events raised through the control API (the control document's EventRequest). */
export type EventType = components['schemas']['EventRequest']['type'];

/** The state of one alarm as GET /__tusk/instances/{id}/metrics shows it (the control document's AlarmStatus). */
export type AlarmStatus = components['schemas']['AlarmStatus'];

export const LEVEL_TYPES: readonly AlarmType[] = ['cpu', 'memory', 'disk'];
export const isLevel = (a: Alarm) => LEVEL_TYPES.includes(a.type);
const round = (n: number) => Math.round(n * 100) / 100;

/** The value a level alarm watches: percent, or for disk fixed the free gigabytes. */
export function watchedValue(a: Alarm, m: InstanceMetrics): number {
  if (a.type === 'cpu') return m.cpu;
  if (a.type === 'memory') return m.memory;
  if ((a.value_calculation ?? 'fixed') === 'fixed') return round(m.disk_total_gb - m.disk_used_gb);
  return round((100 * m.disk_used_gb) / m.disk_total_gb);
}

/** Whether a level alarm's condition holds for these metrics. */
export function conditionHolds(a: Alarm, m: InstanceMetrics): boolean {
  const threshold = a.value_threshold ?? 0;
  const v = watchedValue(a, m);
  return a.type === 'disk' && (a.value_calculation ?? 'fixed') === 'fixed' ? v <= threshold : v >= threshold;
}

/** The part of an alarm that re-arms it when changed. */
export const armedKey = (a: Alarm) =>
  JSON.stringify([a.enabled, a.value_threshold, a.value_calculation ?? null, a.time_threshold]);

const METRIC_FIELDS = ['cpu', 'memory', 'disk_used_gb', 'disk_total_gb'] as const;

/** Checks a metrics patch (unknown fields, types, ranges) and merges it; throws a 400 naming the field. */
export function mergeMetrics(current: InstanceMetrics, patch: unknown): InstanceMetrics {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
    throw invalid('body', 'type', 'must be a JSON object of metrics');
  const unknown = Object.keys(patch).filter((k) => !(METRIC_FIELDS as readonly string[]).includes(k));
  if (unknown.length)
    throw invalid(unknown[0]!, 'additionalProperties', `is not a metric; the metrics are ${METRIC_FIELDS.join(', ')}`);
  const next = { ...current };
  for (const [k, v] of Object.entries(patch) as [keyof InstanceMetrics, unknown][]) {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(k, 'type', 'must be a number');
    if (v < 0) throw invalid(k, 'minimum', 'must be at least 0');
    if ((k === 'cpu' || k === 'memory') && v > 100) throw invalid(k, 'maximum', 'is a percentage, at most 100');
    next[k] = v;
  }
  if (next.disk_total_gb <= 0) throw invalid('disk_total_gb', 'exclusiveMinimum', 'must be more than 0');
  if (next.disk_used_gb > next.disk_total_gb) {
    const field = 'disk_used_gb' in patch ? 'disk_used_gb' : 'disk_total_gb';
    throw invalid(
      field,
      'disk',
      `disk_used_gb (${next.disk_used_gb}) cannot exceed disk_total_gb (${next.disk_total_gb})`,
    );
  }
  return next;
}

/** The message of an event raised without one. */
export const EVENT_MESSAGES: Record<EventType, string> = {
  server_unreachable: 'The server of the instance is unreachable',
  netsplit: 'A network split separates the nodes of the instance',
  notice: 'Notice about the instance',
};

/** A sentence saying what a level alarm saw. */
export function describeLevel(a: Alarm, value: number): string {
  if (a.type === 'disk' && (a.value_calculation ?? 'fixed') === 'fixed')
    return `disk has ${value} GB free (threshold ${a.value_threshold} GB or less)`;
  if (a.type === 'disk') return `disk is ${value}% used (threshold ${a.value_threshold}%)`;
  return `${a.type} at ${value}% (threshold ${a.value_threshold}%)`;
}

/** An alarm's state against `metrics`: for a level alarm, holding since `since` and `fired` once triggered. */
export function alarmStatus(
  a: Alarm,
  metrics: InstanceMetrics,
  since: number | undefined,
  fired: boolean,
): AlarmStatus {
  const base: AlarmStatus = { id: a.id, type: a.type, enabled: a.enabled };
  if (!isLevel(a)) return base;
  return {
    ...base,
    value: watchedValue(a, metrics),
    holding: conditionHolds(a, metrics),
    holding_since: since === undefined ? null : isoTime(since),
    triggers_at: since === undefined ? null : isoTime(since + (a.time_threshold ?? 0) * 1000),
    triggered: fired,
  };
}
