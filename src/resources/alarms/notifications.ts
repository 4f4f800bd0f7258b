// An alarm's notifications: one per recipient of the alarm (the default recipient when it has
// none), a JSON NotificationBody POSTed through the outbox to webhook and chat recipients, recorded
// (status `recorded`) for the other types (email, paging, incident tools).
import { isoTime as iso } from '../../domain/dates.js';
import type { OutboxWriter } from '../../domain/outbox.js';
import type { Alarm, Recipient, RecipientType } from '../../domain/types.js';
import type { EventType, InstanceMetrics } from './conditions.js';
import type { Maintenance } from '../../domain/types.js';

/** Why an alarm triggered. */
export type TriggerReason = 'threshold' | EventType | 'maintenance_scheduled' | 'maintenance_started';

/** Recipient types reached by an HTTP POST; the others are only recorded. */
export const HTTP_RECIPIENT_TYPES: readonly RecipientType[] = ['webhook', 'chat_a', 'chat_b'];

/** The JSON body of a notification (POSTed to webhook and chat recipients, recorded for the others). */
export interface NotificationBody {
  event: 'alarm';
  reason: TriggerReason;
  /** A sentence saying what happened. */
  message: string;
  alarm: Pick<Alarm, 'id' | 'type' | 'value_threshold' | 'value_calculation' | 'time_threshold'>;
  instance: { id: number; name: string };
  /** Level alarms: the watched value at the trigger (percent; for disk fixed the free gigabytes). */
  value?: number;
  /** Level alarms: every metric at the trigger. */
  metrics?: InstanceMetrics;
  /** Notice alarms triggered by maintenance: the item. */
  maintenance?: Maintenance;
  /** ISO 8601 time on the store's clock. */
  triggered_at: string;
  recipient: { id: number; type: RecipientType; name: string };
}

/** What a notification is sent with: the outbox, and the instance's recipients. */
export interface NotificationTargets {
  outbox: OutboxWriter;
  instance(): { id: number; name: string };
  recipients(): Recipient[];
  defaultRecipientId(): number;
}

/** Notifies every recipient of the alarm (the default recipient when it has none); returns how many. */
export function notify(
  host: NotificationTargets,
  a: Alarm,
  reason: TriggerReason,
  at: number,
  extra: Pick<NotificationBody, 'message' | 'value' | 'metrics' | 'maintenance'>,
): number {
  const all = host.recipients();
  const wanted = a.recipients.length ? a.recipients : [host.defaultRecipientId()];
  const targets = wanted.map((id) => all.find((r) => r.id === id)).filter((r): r is Recipient => r !== undefined);
  const instance = host.instance();
  for (const r of targets) {
    const body: NotificationBody = {
      event: 'alarm',
      reason,
      message: extra.message,
      alarm: {
        id: a.id,
        type: a.type,
        ...(a.value_threshold !== undefined ? { value_threshold: a.value_threshold } : {}),
        ...(a.value_calculation !== undefined ? { value_calculation: a.value_calculation } : {}),
        ...(a.time_threshold !== undefined ? { time_threshold: a.time_threshold } : {}),
      },
      instance: { id: instance.id, name: instance.name },
      ...(extra.value !== undefined ? { value: extra.value } : {}),
      ...(extra.metrics ? { metrics: extra.metrics } : {}),
      ...(extra.maintenance ? { maintenance: extra.maintenance } : {}),
      triggered_at: iso(at),
      recipient: { id: r.id, type: r.type, name: r.name ?? '' },
    };
    const entry = { kind: 'notification' as const, event: `alarm.${a.type}`, target: r.value, body };
    if (HTTP_RECIPIENT_TYPES.includes(r.type)) host.outbox.schedule(entry);
    else host.outbox.record(entry);
  }
  return targets.length;
}
