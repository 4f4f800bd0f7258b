// Alarms that fire: the simulated metrics of one instance and the rules that turn them, and events,
// into notifications. Nothing here is part of the contract: metrics are set and events raised
// through the control API (/__tusk/instances/{id}/metrics and /events, see src/control/instances.ts).
//
// The rules (also in README, "Alarms that fire", and the alarms document):
// - cpu and memory: the condition holds while the value (percent) is >= value_threshold;
//   disk with value_calculation fixed: while the free space (disk_total_gb - disk_used_gb) is
//   <= value_threshold gigabytes (the default disk alarm of 5 reads "5 GB or less free");
//   disk with percentage: while the used share (100 * used / total) is >= value_threshold percent.
// - An enabled level alarm triggers once when its condition has held continuously for
//   time_threshold seconds on the store's clock (triggered_at = start + time_threshold). It re-arms
//   when the condition stops holding (new metrics), when it is disabled, or when its thresholds change.
// - server_unreachable and netsplit alarms trigger on the matching event; notice alarms on a
//   `notice` event and when maintenance is rescheduled or starts (run now, or its scheduled_by arrives).
// - Each trigger notifies the alarm's recipients, or the default recipient when it has none: webhook,
//   chat_a and chat_b recipients get an HTTP POST of a NotificationBody through the outbox; the
//   other types (email, paging_a, incident_*) are recorded in the outbox (status `recorded`).
//
// Evaluation runs on every registry.tick() (the server's interval and every clock move), when
// metrics are set and after every change to the alarms; the times it uses are those of the events,
// not of the evaluation, so the outcome does not depend on how often it runs.
import type { Clock } from '../../domain/clock.js';
import type { Alarm, Maintenance } from '../../domain/types.js';
import type { MonitorState } from '../../domain/state.js';
import {
  DEFAULT_METRICS,
  EVENT_MESSAGES,
  armedKey,
  conditionHolds,
  describeLevel,
  isLevel,
  mergeMetrics,
  watchedValue,
  alarmStatus,
  type AlarmStatus,
  type EventType,
  type InstanceMetrics,
} from './conditions.js';
import { notify, type NotificationTargets } from './notifications.js';

/** A maintenance item that has started, and when. */
export interface MaintenanceStart {
  id: number;
  startedAt: number;
  record: Maintenance;
}

/** What the monitor reads of its instance. */
export interface MonitorHost extends NotificationTargets {
  clock: Clock;
  alarms(): Alarm[];
  /** Every maintenance item whose start is at or before `now` (completed ones included), but those in `except`. */
  maintenanceStarts(now: number, except?: ReadonlySet<number>): MaintenanceStart[];
  /** The earliest start after `now` of a maintenance item not started yet (undefined: none). Without it, tick() always evaluates. */
  nextMaintenanceStart?(now: number): number | undefined;
}

interface LevelState {
  armed: string;
  since: number | undefined;
  fired: boolean;
  /** The stored alarm object last seen with this key: the store replaces an alarm on update, so the same object is unchanged. */
  source?: Alarm;
}

export class Monitor {
  private metricsNow: InstanceMetrics;
  private metricsAt: number;
  private readonly level = new Map<number, LevelState>();
  private readonly maintenanceStarted = new Set<number>();
  /**
   * The earliest time at which evaluate() can trigger anything, as of its last run: the due time of
   * a holding level alarm, or the next maintenance start. The alarms only change through the
   * instance's methods, which evaluate() right after; a maintenance notice resets it.
   */
  private nextDue = -Infinity;

  /**
   * @param state a state written by toJSON() to take over
   * @param origin when the instance was built (default: now): the metrics date from it, and
   *   maintenance that started before it is not news
   */
  constructor(
    private readonly host: MonitorHost,
    state?: MonitorState,
    origin = host.clock.now(),
  ) {
    const now = origin;
    if (state) {
      this.metricsNow = { ...state.metrics };
      this.metricsAt = state.metrics_at;
      for (const a of state.alarms)
        this.level.set(a.id, { armed: a.armed, since: a.since ?? undefined, fired: a.fired });
      for (const id of state.maintenance_started) this.maintenanceStarted.add(id);
      return;
    }
    this.metricsNow = { ...DEFAULT_METRICS };
    this.metricsAt = now;
    // What has started before the monitor existed is not news.
    for (const s of host.maintenanceStarts(now)) this.maintenanceStarted.add(s.id);
    this.sync(now);
  }

  toJSON(): MonitorState {
    return {
      metrics: { ...this.metricsNow },
      metrics_at: this.metricsAt,
      alarms: [...this.level].map(([id, s]) => ({ id, armed: s.armed, since: s.since ?? null, fired: s.fired })),
      maintenance_started: [...this.maintenanceStarted].sort((a, b) => a - b),
    };
  }

  get metrics(): InstanceMetrics {
    return { ...this.metricsNow };
  }

  /**
   * Whether the control API set disk_used_gb: from then on it wins over the real size of the
   * instance's database (observeDiskUsed).
   */
  private diskFromControl = false;

  /**
   * The real size of the instance's database (GB), as the database engine measures it: it becomes
   * disk_used_gb unless the control API set disk_used_gb. Alarms react as to any other change.
   */
  observeDiskUsed(gb: number): void {
    if (this.diskFromControl || !Number.isFinite(gb) || gb < 0) return;
    const used = Math.min(Math.round(gb * 1e6) / 1e6, this.metricsNow.disk_total_gb);
    if (used === this.metricsNow.disk_used_gb) return;
    this.setMetrics({ disk_used_gb: used }, 'engine');
  }

  /** Merges `patch` into the metrics (a 400 for a bad field); what was due under the old ones triggers first. */
  setMetrics(patch: unknown, from: 'control' | 'engine' = 'control'): InstanceMetrics {
    const next = mergeMetrics(this.metricsNow, patch);
    if (from === 'control' && typeof patch === 'object' && patch !== null && 'disk_used_gb' in patch)
      this.diskFromControl = true;
    const now = this.host.clock.now();
    this.evaluate();
    this.metricsNow = next;
    this.metricsAt = now;
    for (const a of this.host.alarms()) {
      const s = this.level.get(a.id);
      if (!s || !a.enabled || !isLevel(a)) continue;
      if (!conditionHolds(a, next)) {
        s.since = undefined;
        s.fired = false;
      } else if (s.since === undefined) {
        s.since = now;
        s.fired = false;
      }
    }
    this.evaluate();
    return this.metrics;
  }

  /**
   * Brings the alarm states up to date (new, changed and deleted alarms) and triggers every level
   * alarm whose condition has held for its time_threshold and every maintenance start not yet
   * notified. Returns the number of notifications queued or recorded.
   */
  evaluate(): number {
    const alarms = this.host.alarms(); // read once per evaluation
    const sent = this.evaluateNow(alarms);
    this.nextDue = this.computeNextDue(this.host.clock.now(), alarms);
    return sent;
  }

  /**
   * The registry's tick: evaluate() when something can be due, else nothing (so a tick costs next
   * to nothing per instance, however many instances there are).
   */
  tick(now = this.host.clock.now()): number {
    return now < this.nextDue ? 0 : this.evaluate();
  }

  private computeNextDue(now: number, alarms: Alarm[]): number {
    if (!this.host.nextMaintenanceStart) return -Infinity;
    let next = this.host.nextMaintenanceStart(now) ?? Infinity;
    for (const a of alarms) {
      const s = this.level.get(a.id);
      if (!s || s.fired || s.since === undefined || !a.enabled) continue;
      next = Math.min(next, s.since + (a.time_threshold ?? 0) * 1000);
    }
    return next;
  }

  private evaluateNow(alarms: Alarm[]): number {
    const now = this.host.clock.now();
    this.sync(now, alarms);
    let sent = 0;
    for (const a of alarms) {
      const s = this.level.get(a.id);
      if (!s || s.fired || s.since === undefined || !a.enabled) continue;
      const due = s.since + (a.time_threshold ?? 0) * 1000;
      if (due > now) continue;
      s.fired = true;
      const value = watchedValue(a, this.metricsNow);
      sent += notify(this.host, a, 'threshold', due, {
        message: `${describeLevel(a, value)} for ${a.time_threshold} s`,
        value,
        metrics: { ...this.metricsNow },
      });
    }
    // Only the starts not notified yet: the others' records are not even made.
    for (const start of this.host.maintenanceStarts(now, this.maintenanceStarted)) {
      this.maintenanceStarted.add(start.id);
      sent += this.notice('maintenance_started', start.startedAt, start.record);
    }
    return sent;
  }

  /**
   * A new alarm (the stored object), without a walk over every alarm: it is armed now and its due
   * time noted. Everything is evaluated instead when something is due already: the outcome is that
   * of evaluate(). Returns the number of notifications.
   */
  added(a: Alarm): number {
    const now = this.host.clock.now();
    if (now >= this.nextDue) return this.evaluate();
    if (!isLevel(a)) return 0;
    const holds = a.enabled && conditionHolds(a, this.metricsNow);
    this.level.set(a.id, { armed: armedKey(a), since: holds ? now : undefined, fired: false, source: a });
    if (!holds) return 0;
    // time_threshold is at least 1 s (the document's minimum): not due yet.
    this.nextDue = Math.min(this.nextDue, now + (a.time_threshold ?? 0) * 1000);
    return 0;
  }

  /** An event: every enabled alarm of its type triggers now. Returns the number of notifications. */
  raise(type: EventType, message?: string): number {
    this.evaluate();
    const now = this.host.clock.now();
    const text = message ?? EVENT_MESSAGES[type];
    let sent = 0;
    for (const a of this.host.alarms())
      if (a.enabled && a.type === type) sent += notify(this.host, a, type, now, { message: text });
    return sent;
  }

  /** Maintenance was rescheduled by the client. */
  maintenanceScheduled(record: Maintenance): number {
    this.nextDue = -Infinity; // the schedule changed
    return this.notice('maintenance_scheduled', this.host.clock.now(), record);
  }

  /**
   * Maintenance was run by the client: it started now (and is not notified again). The due time
   * stays: a start run early only takes a start away, so nothing falls due sooner (a tick at the
   * old due time finds nothing and computes the next).
   */
  maintenanceRun(id: number, record: Maintenance): number {
    this.maintenanceStarted.add(id);
    return this.notice('maintenance_started', this.host.clock.now(), record);
  }

  /** Every alarm with its state against the current metrics. */
  status(): AlarmStatus[] {
    this.sync(this.host.clock.now());
    return this.host.alarms().map((a) => {
      const s = this.level.get(a.id);
      return alarmStatus(a, this.metricsNow, a.enabled ? s?.since : undefined, a.enabled && (s?.fired ?? false));
    });
  }

  /** New or changed level alarms are armed at `now`; deleted ones are forgotten. */
  private sync(now: number, alarms: Alarm[] = this.host.alarms()): void {
    let levels = 0;
    for (const a of alarms) {
      if (!isLevel(a)) continue;
      levels++;
      const s = this.level.get(a.id);
      if (s && s.source === a) continue; // the very object seen before: nothing changed
      const key = armedKey(a);
      if (s && s.armed === key) {
        s.source = a;
        continue;
      }
      const holds = a.enabled && conditionHolds(a, this.metricsNow);
      this.level.set(a.id, { armed: key, since: holds ? now : undefined, fired: false, source: a });
    }
    // Every level alarm has its state now: any further state is of a deleted alarm.
    if (this.level.size > levels) {
      const ids = new Set(alarms.filter(isLevel).map((a) => a.id));
      for (const id of [...this.level.keys()]) if (!ids.has(id)) this.level.delete(id);
    }
  }

  private notice(reason: 'maintenance_scheduled' | 'maintenance_started', at: number, m: Maintenance): number {
    const message =
      reason === 'maintenance_scheduled'
        ? `Maintenance ${m.id} (${m.description}) is scheduled for ${m.scheduled_by}`
        : `Maintenance ${m.id} (${m.description}) has started; it takes ${m.duration}`;
    let sent = 0;
    for (const a of this.host.alarms())
      if (a.enabled && a.type === 'notice') sent += notify(this.host, a, reason, at, { message, maintenance: m });
    return sent;
  }
}
