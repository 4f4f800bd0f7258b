// The alarms of one instance: the four default alarms (created with the instance) and those the
// client adds. Bodies arrive validated against their type's branch of the document (fields per type,
// ranges, disk percentage <= 100 when the body says percentage); this module applies the defaults
// and keeps the rules that need state: the plan's alarm types, recipients of this instance, the
// fixed type of an alarm and the merged disk rule of an update. What fires alarms (monitor.ts) is
// told of every change through `AlarmWatch` (wired by the instance, resources/instances/).
import { invalid, notFound, limitReached } from '../../core/errors.js';
import { LIST_CAPS } from '../../core/limits.js';
import { IdSequence } from '../../domain/ids.js';
import type { Alarm, CreateAlarmBody, UpdateAlarmBody } from '../../domain/types.js';
import type { AlarmsState } from '../../domain/state.js';

/** The default alarms of every instance (the spec's list). */
export const DEFAULT_ALARMS: readonly CreateAlarmBody[] = [
  { type: 'cpu', value_threshold: 90, time_threshold: 600 },
  { type: 'memory', value_threshold: 90, time_threshold: 600 },
  { type: 'disk', value_threshold: 5, time_threshold: 600, value_calculation: 'fixed' },
  { type: 'notice' },
];

/**
 * The record in the document's key order, with only the fields of its type: value_threshold and
 * time_threshold for cpu, memory and disk, value_calculation for disk. Each shape is built whole
 * (one hidden class per shape: a list is serialised on every GET).
 */
function record(a: Alarm): Alarm {
  const { id, type, enabled } = a;
  const recipients = a.recipients.slice();
  switch (type) {
    case 'cpu':
    case 'memory':
      return { id, type, enabled, value_threshold: a.value_threshold, time_threshold: a.time_threshold, recipients };
    case 'disk':
      return {
        id,
        type,
        enabled,
        value_threshold: a.value_threshold,
        value_calculation: a.value_calculation ?? 'fixed',
        time_threshold: a.time_threshold,
        recipients,
      };
    default:
      return { id, type, enabled, recipients };
  }
}

/** The fields only level alarms have; a body's branch for another type carries none of them. */
type LevelFields = Partial<Pick<Alarm, 'value_threshold' | 'time_threshold' | 'value_calculation'>>;

export interface AlarmRules {
  /** The alarm types the instance's plan accepts, and whether the plan is shared (for the message). */
  allowedTypes(): { types: readonly string[]; shared: boolean };
  /** Whether a recipient of this instance has the id. */
  recipientExists(id: number): boolean;
}

/** What watches the alarms (the monitor): told of each change, and before an update. */
export interface AlarmWatch {
  /** An alarm was created (the stored alarm, not a copy). */
  created(alarm: Readonly<Alarm>): void;
  /** An update is about to be made (evaluate what held before it). */
  updating(): void;
  /** An alarm was updated or deleted. */
  changed(): void;
}

const UNWATCHED: AlarmWatch = { created: () => {}, updating: () => {}, changed: () => {} };

export class Alarms {
  private readonly items = new Map<number, Alarm>();
  private readonly ids: IdSequence;

  /** @param state a state written by toJSON() to take over instead of the default alarms */
  constructor(
    private readonly rules: AlarmRules,
    state?: AlarmsState,
    private readonly watch: AlarmWatch = UNWATCHED,
  ) {
    if (state) {
      this.ids = IdSequence.fromJSON(state.last_id);
      for (const a of state.items) this.items.set(a.id, record(a));
      return;
    }
    this.ids = new IdSequence();
    for (const body of DEFAULT_ALARMS) this.insert(body);
  }

  toJSON(): AlarmsState {
    return { last_id: this.ids.toJSON(), items: this.list() };
  }

  list(): Alarm[] {
    return [...this.items.values()].map(record);
  }

  /**
   * The stored alarms themselves, not copies, for readers that change nothing (the monitor). An
   * update stores a new object, never changes one in place: the monitor takes the same object for
   * an unchanged alarm.
   */
  current(): readonly Alarm[] {
    return [...this.items.values()];
  }

  /** The stored alarm itself, not a copy, for readers that change nothing (see current()). */
  stored(id: number): Readonly<Alarm> {
    return this.find(id);
  }

  get(id: number): Alarm {
    return record(this.find(id));
  }

  /** Defaults: enabled true, recipients [], value_calculation fixed for disk. */
  create(body: CreateAlarmBody): Alarm {
    const { types, shared } = this.rules.allowedTypes();
    if (!types.includes(body.type)) {
      throw invalid(
        'type',
        'plan',
        shared
          ? `alarm type ${body.type} is not available on shared plans; a shared instance accepts only ${types.join(', ')}`
          : `alarm type ${body.type} is not available on this instance's plan; it accepts ${types.join(', ')}`,
      );
    }
    this.checkRecipients(body.recipients);
    if (this.items.size >= LIST_CAPS.alarmsPerInstance) {
      throw limitReached(
        'alarms',
        `an instance has at most ${LIST_CAPS.alarmsPerInstance} alarms (the default ones included); delete one to create another`,
      );
    }
    const a = this.insert(body);
    this.watch.created(a);
    return record(a);
  }

  /** A merge update: `type` must equal the stored type; given fields replace stored ones. */
  update(id: number, body: UpdateAlarmBody): Alarm {
    this.watch.updating();
    const a = this.find(id);
    if (body.type !== a.type)
      throw invalid(
        'type',
        'unchanged',
        `alarm ${id} has type ${a.type}; the type of an alarm cannot change (got ${body.type})`,
      );
    this.checkRecipients(body.recipients);
    const given = body as LevelFields;
    const merged: Alarm = {
      ...a,
      enabled: body.enabled ?? a.enabled,
      recipients: [...(body.recipients ?? a.recipients)],
      value_threshold: given.value_threshold ?? a.value_threshold,
      time_threshold: given.time_threshold ?? a.time_threshold,
      value_calculation: given.value_calculation ?? a.value_calculation,
    };
    // Only disk alarms have a value_calculation.
    if (merged.value_calculation === 'percentage' && merged.value_threshold! > 100) {
      const field = given.value_threshold !== undefined ? 'value_threshold' : 'value_calculation';
      throw invalid(
        field,
        'maximum',
        `with value_calculation percentage, value_threshold must be at most 100 (it would be ${merged.value_threshold})`,
      );
    }
    this.items.set(id, merged);
    this.watch.changed();
    return record(merged);
  }

  delete(id: number): void {
    this.find(id);
    this.items.delete(id);
    this.watch.changed();
  }

  /** Drops a deleted recipient from every alarm. */
  forgetRecipient(recipientId: number): void {
    for (const a of this.items.values()) a.recipients = a.recipients.filter((r) => r !== recipientId);
  }

  /** A new alarm from a validated body (only the fields of its type; record() gives disk its default value_calculation). */
  private insert(body: CreateAlarmBody): Alarm {
    const given = body as LevelFields;
    const a: Alarm = {
      id: this.ids.next(),
      type: body.type,
      enabled: body.enabled ?? true,
      value_threshold: given.value_threshold,
      value_calculation: given.value_calculation,
      time_threshold: given.time_threshold,
      recipients: body.recipients ? body.recipients.slice() : [],
    };
    this.items.set(a.id, a);
    return a;
  }

  private checkRecipients(ids: number[] | undefined): void {
    const unknown = (ids ?? []).filter((r) => !this.rules.recipientExists(r));
    if (unknown.length) {
      // At most 10 ids in the message: a 64 KiB body can name thousands.
      const named =
        unknown.length > 10 ? `${unknown.slice(0, 10).join(', ')} and ${unknown.length - 10} more` : unknown.join(', ');
      throw invalid(
        'recipients',
        'exists',
        `no recipient of this instance has the id${unknown.length > 1 ? 's' : ''} ${named} (see listRecipients)`,
      );
    }
  }

  private find(id: number): Alarm {
    const a = this.items.get(id);
    if (!a) throw notFound('alarm', id);
    return a;
  }
}
