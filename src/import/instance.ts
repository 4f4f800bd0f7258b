// An instance of the state file `tusk import` writes (state.ts), built from what was read of it
// (read.ts), by the rules of state.ts's first comment: its records kept with their ids, each
// sequence's last id the largest read; its creation time from the audit log; its backups those of
// the stand-in's two databases, the daily ones going on from the latest; its maintenance with its
// times read; its key and password new unless kept. What cannot be carried is reported.
import type { components as Control } from '../generated/control.js';
import type { Redactor } from '../record/redact.js';
import type { AuditRow, Alarm, InstanceRead, Integration, Recipient } from './read.js';
import { freshSecret, parseDuration, parseTime, passwordOf } from './values.js';

type GenInstance = Control['schemas']['StateInstance'];
/** An instance of the State schema, with the records the schema leaves as "an object of the interface's schema" typed by them. */
export type StateInstance = Omit<GenInstance, 'recipients' | 'alarms' | 'integrations'> & {
  recipients: Omit<GenInstance['recipients'], 'items'> & { items: Recipient[] };
  alarms: Omit<GenInstance['alarms'], 'items'> & { items: Alarm[] };
  integrations: Omit<GenInstance['integrations'], 'logs' | 'metrics'> & { logs: Integration[]; metrics: Integration[] };
};

/** What building an instance needs of the account's building. */
export interface InstanceContext {
  /** The source's time when the reading ended (ms). */
  now: number;
  /** Keep the instance's key and password, and the integrations' keys. */
  keep: boolean;
  /** Puts placeholders in place of the integrations' keys (unless keep). */
  redactor: Redactor;
  /** The recipient added to an instance none of whose recipients was read. */
  teamEmail: string;
  /** Instance id -> its creation time (creationTimes). */
  created: Map<number, number>;
  /** What could not be carried, or only in part: one line each. */
  report: string[];
}

/** The databases the stand-in keeps per instance: `db<id>` (the one of its url) and `analytics` (src/store/instance-store.ts). */
const standInDatabases = (id: number) => [`db${id}`, 'analytics'];
/** pg_version is not shown by the API: createInstance's default (openapi/customer/instances.yaml). */
export const DEFAULT_PG_VERSION = '17';
/** An instance the source showed not ready turns ready this long after the import's time. */
const NOT_READY_MS = 60_000;
const DAY = 86_400_000;

/** The last id of a sequence: the largest id read (0: none). */
export const maxId = (items: readonly { id: number }[] | undefined) =>
  (items ?? []).reduce((m, x) => Math.max(m, x.id), 0);
const startOfDay = (t: number) => Math.floor(t / DAY) * DAY;

/** Instance id -> its creation time, from the audit log's `instance.create` rows (the first of each). */
export function creationTimes(audit: readonly AuditRow[]): Map<number, number> {
  const created = new Map<number, number>();
  for (const row of audit) {
    if (row.event !== 'instance.create') continue;
    const id = Number(row.extras.find(([k]) => k === 'instance_id')?.[1]);
    if (Number.isInteger(id) && !created.has(id)) created.set(id, row.at);
  }
  return created;
}

/** The instance of the state for what was read of it; none when its record could not be read. */
export function stateInstance(i: InstanceRead, ctx: InstanceContext): StateInstance[] {
  const { now, keep, redactor, teamEmail, created, report } = ctx;
  const s = i.summary;
  const label = `instance ${s.id} (${s.name})`;
  if (!i.detail) {
    report.push(`${label}: getInstance could not be read; not carried`);
    return [];
  }
  let createdAt = created.get(s.id);
  const earliestBackup = Math.min(
    ...(i.backups ?? []).map((b) => parseTime(b.backup_date)).filter((t) => !Number.isNaN(t)),
  );
  if (createdAt === undefined) {
    createdAt = Number.isFinite(earliestBackup) ? Math.min(earliestBackup, now) : now;
    report.push(
      `${label}: no instance.create row in the audit months read; created_at taken as ${new Date(createdAt).toISOString()}${Number.isFinite(earliestBackup) ? ' (its oldest backup)' : ' (the import)'}`,
    );
  }
  const readyAt = i.detail.ready ? Math.min(createdAt, now) : now + NOT_READY_MS;
  if (!i.detail.ready)
    report.push(`${label}: not ready at the source; ready ${NOT_READY_MS / 1000} s after the import's time`);
  const password = (keep && passwordOf(i.detail.url)) || freshSecret(24);
  const apikey = keep ? i.detail.apikey : freshSecret(36);

  const recipients = i.recipients ?? [];
  let defaultId = recipients.find((r) => r.name === 'Default' && r.type === 'email')?.id ?? recipients[0]?.id;
  const recipientItems = [...recipients];
  if (defaultId === undefined) {
    defaultId = 1;
    recipientItems.push({ id: 1, type: 'email', value: teamEmail, name: 'Default', options: null });
    report.push(`${label}: no recipient read; a default recipient (${teamEmail}) was added`);
  }
  const integrate = (list: Integration[] | undefined) =>
    (list ?? []).map((x) => ({ ...x, config: redactor.value(x.config) }));

  // Backups: those of the stand-in's two databases; the daily ones go on from the day after
  // the latest of each (today, when that was yesterday: today's is not taken yet).
  const databases = standInDatabases(s.id);
  const backups = (i.backups ?? []).filter((b) => databases.includes(b.database_name));
  const dropped = (i.backups ?? []).length - backups.length;
  if (dropped)
    report.push(
      `${label}: ${dropped} backups of databases the stand-in does not keep (it keeps ${databases.join(' and ')}) not carried`,
    );
  const today = startOfDay(now);
  const nextDaily = databases.map((db) => {
    const latest = Math.max(...backups.filter((b) => b.database_name === db).map((b) => parseTime(b.backup_date)));
    return Number.isFinite(latest) && startOfDay(latest) === today - DAY ? today : today + DAY;
  });
  const backupItems = backups.flatMap((b) => {
    const at = parseTime(b.backup_date);
    if (Number.isNaN(at)) {
      report.push(
        `${label}: backup ${b.id} has an unreadable backup_date ${JSON.stringify(b.backup_date)}; not carried`,
      );
      return [];
    }
    return [{ id: b.id, database_name: b.database_name, taken_at: at, ready_at: at, size: b.size }];
  });

  const maintenance = (i.maintenance ?? []).flatMap((m) => {
    const scheduledBy = parseTime(m.scheduled_by);
    const requiredBy = parseTime(m.required_by);
    const minutes = parseDuration(m.duration);
    if ([scheduledBy, requiredBy, minutes].some(Number.isNaN)) {
      report.push(`${label}: maintenance ${m.id} has unreadable times or duration; not carried`);
      return [];
    }
    // Started by hand before its time: when is not shown; taken as the import's time.
    const startedByHand = m.status === 'in_progress' && scheduledBy > now;
    if (startedByHand)
      report.push(`${label}: maintenance ${m.id} was started before its time; started_at taken as the import's time`);
    return [
      {
        id: m.id,
        scheduled_by: scheduledBy,
        required_by: requiredBy,
        minutes: Math.min(Math.max(minutes, 1), 525_600),
        description: m.description,
        ...(startedByHand ? { started_at: now } : {}),
      },
    ];
  });

  for (const [part, value] of Object.entries({
    recipients: i.recipients,
    alarms: i.alarms,
    'log integrations': i.logs,
    'metrics integrations': i.metrics,
    backups: i.backups,
    maintenance: i.maintenance,
  }))
    if (value === undefined) report.push(`${label}: its ${part} could not be read; none carried`);

  return [
    {
      id: s.id,
      name: s.name,
      tags: [...(s.tags ?? i.detail.tags ?? [])],
      plan: s.plan,
      region: s.region,
      pg_version: DEFAULT_PG_VERSION,
      created_at: createdAt,
      ready_at: readyAt,
      providerid: s.providerid,
      apikey,
      password,
      recipients: {
        last_id: Math.max(maxId(recipientItems), defaultId),
        default_id: defaultId,
        items: recipientItems,
      },
      alarms: { last_id: maxId(i.alarms), items: [...(i.alarms ?? [])] },
      integrations: {
        last_id: Math.max(maxId(i.logs), maxId(i.metrics)),
        logs: integrate(i.logs),
        metrics: integrate(i.metrics),
      },
      backups: { last_id: maxId(i.backups), next_daily: nextDaily, items: backupItems },
      maintenance: { last_id: maxId(i.maintenance), items: maintenance },
    },
  ];
}
