// The maintenance of one instance. Life cycle (the document's choice): scheduled -> in_progress
// (on runMaintenance, or when scheduled_by arrives) -> completed once its duration has passed, and
// completed items leave the list. The status is derived from timestamps against the store's clock
// whenever it is read; nothing runs in the background. What a reschedule or a run sets off beyond
// the schedule (notice alarms, the database's sessions ended) is told through `MaintenanceHooks`.
import { invalid, notFound } from '../../core/errors.js';
import { IdSequence } from '../../domain/ids.js';
import {
  DAY,
  HOUR,
  MINUTE,
  formatDuration,
  formatMaintenanceDate,
  parseMaintenanceDate,
  startOfUtcDay,
} from '../../domain/dates.js';
import type { Clock } from '../../domain/clock.js';
import type { Maintenance } from '../../domain/types.js';
import type { MaintenanceState as MaintenanceSnapshot } from '../../domain/state.js';

interface MaintenanceState {
  id: number;
  scheduledBy: number;
  requiredBy: number;
  minutes: number;
  description: string;
  /** Set by runMaintenance. */
  startedAt?: number;
}

type Status = 'scheduled' | 'in_progress' | 'completed';

/** The items an instance starts with: a few days ahead of `origin`, deterministic from the instance id. */
export function seededMaintenance(instanceId: number, origin: number): Omit<MaintenanceState, 'id'>[] {
  const base = startOfUtcDay(origin) + 2 * HOUR;
  const first = base + (3 + (instanceId % 3)) * DAY;
  const items: Omit<MaintenanceState, 'id'>[] = [
    { scheduledBy: first, requiredBy: first + 14 * DAY, minutes: 30, description: 'Operating system security update' },
  ];
  if (instanceId % 2 === 1) {
    const second = base + (6 + (instanceId % 4)) * DAY + HOUR;
    items.push({
      scheduledBy: second,
      requiredBy: second + 21 * DAY,
      minutes: 60,
      description: 'Postgres minor version upgrade',
    });
  }
  return items;
}

/** What is told of a reschedule or a run (the monitor's notice alarms, the instance's database). */
export interface MaintenanceHooks {
  /** Before either is tried (the alarms evaluate what held until now). */
  before(): void;
  rescheduled(record: Maintenance): void;
  started(id: number, record: Maintenance): void;
}

const NO_HOOKS: MaintenanceHooks = { before: () => {}, rescheduled: () => {}, started: () => {} };

export class MaintenanceSchedule {
  private readonly items = new Map<number, MaintenanceState>();
  private readonly ids: IdSequence;

  /** @param state a state written by toJSON() to take over instead of `seed` */
  constructor(
    private readonly clock: Clock,
    seed: Omit<MaintenanceState, 'id'>[],
    state?: MaintenanceSnapshot,
    private readonly hooks: MaintenanceHooks = NO_HOOKS,
  ) {
    if (state) {
      this.ids = IdSequence.fromJSON(state.last_id);
      for (const m of state.items) {
        this.items.set(m.id, {
          id: m.id,
          scheduledBy: m.scheduled_by,
          requiredBy: m.required_by,
          minutes: m.minutes,
          description: m.description,
          ...(m.started_at !== undefined ? { startedAt: m.started_at } : {}),
        });
      }
      return;
    }
    this.ids = new IdSequence();
    for (const s of seed) {
      const id = this.ids.next();
      this.items.set(id, { ...s, id });
    }
  }

  /** Every item kept (completed ones included) and the id sequence. */
  toJSON(): MaintenanceSnapshot {
    return {
      last_id: this.ids.toJSON(),
      items: [...this.items.values()].map((m) => ({
        id: m.id,
        scheduled_by: m.scheduledBy,
        required_by: m.requiredBy,
        minutes: m.minutes,
        description: m.description,
        ...(m.startedAt !== undefined ? { started_at: m.startedAt } : {}),
      })),
    };
  }

  /** The upcoming items (scheduled or in progress), by scheduled_by. */
  list(): Maintenance[] {
    const now = this.clock.now();
    return [...this.items.values()]
      .filter((m) => this.status(m, now) !== 'completed')
      .sort((a, b) => a.scheduledBy - b.scheduledBy || a.id - b.id)
      .map((m) => this.record(m, now));
  }

  /** Moves a scheduled item: not into the past, not after its required_by. */
  reschedule(id: number, scheduledBy: string): Maintenance {
    this.hooks.before();
    const now = this.clock.now();
    const m = this.upcoming(id, now);
    const status = this.status(m, now);
    if (status !== 'scheduled')
      throw invalid(
        'scheduled_by',
        'status',
        `maintenance ${id} is ${status}; only scheduled maintenance can be rescheduled`,
      );
    const at = parseMaintenanceDate(scheduledBy);
    if (at === undefined)
      throw invalid('scheduled_by', 'format', `${scheduledBy} is not a real time (yyyy-mm-dd hh:mm:ss +0000)`);
    // scheduled_by has whole seconds: compare at that precision.
    if (at < Math.floor(now / 1000) * 1000)
      throw invalid('scheduled_by', 'not-in-past', `${scheduledBy} lies in the past`);
    if (at > m.requiredBy) {
      throw invalid(
        'scheduled_by',
        'not-after-required-by',
        `${scheduledBy} lies after the item's required_by ${formatMaintenanceDate(m.requiredBy)}`,
      );
    }
    m.scheduledBy = at;
    const done = this.record(m, now);
    this.hooks.rescheduled(done);
    return done;
  }

  /** Starts a scheduled item now; it completes after its duration. */
  run(id: number): Maintenance {
    this.hooks.before();
    const now = this.clock.now();
    const m = this.upcoming(id, now);
    const status = this.status(m, now);
    if (status !== 'scheduled')
      throw invalid('id', 'status', `maintenance ${id} is ${status}; only scheduled maintenance can be run`);
    m.startedAt = now;
    const done = this.record(m, now);
    this.hooks.started(id, done);
    return done;
  }

  /**
   * Every item that has started by `now` (completed ones included), with its start and its record
   * at that time (alarms); the items in `except` are left out (their records not made).
   */
  starts(now: number, except?: ReadonlySet<number>): { id: number; startedAt: number; record: Maintenance }[] {
    const out: { id: number; startedAt: number; record: Maintenance }[] = [];
    for (const m of this.items.values()) {
      if (except?.has(m.id)) continue;
      const startedAt = m.startedAt ?? (now >= m.scheduledBy ? m.scheduledBy : undefined);
      if (startedAt !== undefined && startedAt <= now)
        out.push({ id: m.id, startedAt, record: this.record(m, startedAt) });
    }
    return out.sort((a, b) => a.startedAt - b.startedAt || a.id - b.id);
  }

  /** The earliest scheduled_by after `now` of an item not started (by hand or by time); undefined: none. */
  nextStart(now: number): number | undefined {
    let next: number | undefined;
    for (const m of this.items.values()) {
      if (m.startedAt === undefined && m.scheduledBy > now && (next === undefined || m.scheduledBy < next))
        next = m.scheduledBy;
    }
    return next;
  }

  private status(m: MaintenanceState, now: number): Status {
    // Not run by hand, an item starts when its scheduled_by arrives.
    const startedAt = m.startedAt ?? (now >= m.scheduledBy ? m.scheduledBy : undefined);
    if (startedAt === undefined) return 'scheduled';
    return now < startedAt + m.minutes * MINUTE ? 'in_progress' : 'completed';
  }

  private upcoming(id: number, now: number): MaintenanceState {
    const m = this.items.get(id);
    if (!m || this.status(m, now) === 'completed') throw notFound('upcoming maintenance', id);
    return m;
  }

  private record(m: MaintenanceState, now: number): Maintenance {
    const status = this.status(m, now);
    return {
      id: m.id,
      scheduled_by: formatMaintenanceDate(m.scheduledBy),
      status: status === 'completed' ? 'in_progress' : status,
      required_by: formatMaintenanceDate(m.requiredBy),
      duration: formatDuration(m.minutes),
      description: m.description,
    };
  }
}
