// What `tusk import` writes: a state file in the format `tusk serve --state FILE` loads (the State
// schema of the control document, src/control/control.openapi.yaml; types in
// src/generated/control.ts), made from what the source's public API answered (account.ts reads it).
// Pure: the same reads give the same state but for the fresh secrets. The rules, so that every GET
// the import made answers the same body when served, keys and passwords aside:
// - ids are kept (instances, recipients, alarms, integrations, backups, maintenance, invoices), and
//   each sequence's last id is the largest id read (a deleted record's id is not known);
// - records of the interfaces are kept in the shape they were answered in (the state keeps them so);
// - times come from the answers (`backup_date`, `scheduled_by`, `required_by`, audit timestamps);
//   an instance's creation time from its `instance.create` row of the audit log;
// - the served clock runs at the source's time (its answers' Date header), offset from this
//   machine's when the two differ by 5 s or more;
// - secrets are new unless keepSecrets: instance keys and passwords, the account's keys (the API
//   never shows them: one per role of the team, the admin one printed), integrations' keys
//   (placeholders `<redacted:KIND:N>`, as a recording has them).
import { randomBytes, randomUUID } from 'node:crypto';
import type { components as Control } from '../generated/control.js';
import type { components as Customer } from '../generated/customer.js';
import type { components as Instance } from '../generated/instance.js';
import { Redactor } from '../record/redact.js';

type S = Control['schemas'];
type GenInstance = S['StateInstance'];
/** An instance of the State schema, with the records the schema leaves as "an object of the interface's schema" typed by them. */
type StateInstance = Omit<GenInstance, 'recipients' | 'alarms' | 'integrations'> & {
  recipients: Omit<GenInstance['recipients'], 'items'> & { items: Recipient[] };
  alarms: Omit<GenInstance['alarms'], 'items'> & { items: Alarm[] };
  integrations: Omit<GenInstance['integrations'], 'logs' | 'metrics'> & { logs: Integration[]; metrics: Integration[] };
};
type StateAccount = Omit<S['StateAccount'], 'customer' | 'invoices' | 'instances'> & {
  customer: Customer['schemas']['InvoiceCustomer'];
  invoices: (Omit<S['StateAccount']['invoices'][number], 'detail'> & { detail: InvoiceDetail })[];
  instances: StateInstance[];
};
/** The State schema of the control document, as import writes it. */
export type State = Omit<S['State'], 'accounts'> & { accounts: StateAccount[] };
export type InstanceSummary = Customer['schemas']['InstanceSummary'];
export type InstanceDetail = Customer['schemas']['Instance'];
export type TeamMember = Customer['schemas']['TeamMember'];
export type InvoiceSummary = Customer['schemas']['InvoiceSummary'];
export type InvoiceDetail = Customer['schemas']['InvoiceDetail'];
export type Recipient = Instance['schemas']['Recipient'];
export type Alarm = Instance['schemas']['Alarm'];
export type Integration = Instance['schemas']['Integration'];
export type Backup = Instance['schemas']['Backup'];
export type Maintenance = Instance['schemas']['Maintenance'];

/** One row of the audit log as its CSV has it. */
export interface AuditRow {
  at: number;
  event: string;
  source: string;
  user: string;
  extras: [string, string][];
}

/** What was read of one instance; a part that could not be read is undefined (and reported). */
export interface InstanceRead {
  summary: InstanceSummary;
  detail?: InstanceDetail;
  recipients?: Recipient[];
  alarms?: Alarm[];
  logs?: Integration[];
  metrics?: Integration[];
  backups?: Backup[];
  maintenance?: Maintenance[];
}

/** What was read of the account. */
export interface AccountRead {
  /** The source's time when the reading ended (ms). */
  sourceNow: number;
  /** This machine's time then (ms). */
  localNow: number;
  instances: InstanceRead[];
  team?: TeamMember[];
  invoices?: { summary: InvoiceSummary; detail: InvoiceDetail }[];
  /** The audit rows of the months read (all of each), oldest first. */
  audit?: AuditRow[];
  /** The months read (`yyyy-mm`), newest first. */
  auditMonths?: string[];
  /** Notes of the reading (parts that could not be read). */
  notes: string[];
}

export interface BuildOptions {
  /** The customer key the account was read with. */
  apiKey: string;
  /** Keep instance keys, passwords, integration keys, and the given key as the admin key. */
  keepSecrets?: boolean;
}

export interface Built {
  state: State;
  /** The account's keys, role -> key (the admin key included). */
  keys: Record<string, string>;
  /** What could not be carried, or only in part: one line each. */
  report: string[];
}

/** The databases the stand-in keeps per instance: `db<id>` (the one of its url) and `analytics` (src/store/instance-store.ts). */
const standInDatabases = (id: number) => [`db${id}`, 'analytics'];
/** pg_version is not shown by the API: createInstance's default (openapi/customer/instances.yaml). */
const DEFAULT_PG_VERSION = '17';
/** An instance the source showed not ready turns ready this long after the import's time. */
const NOT_READY_MS = 60_000;
/** Clocks closer than this are taken as the same (the Date header has whole seconds). */
const SAME_CLOCK_MS = 5_000;
const DAY = 86_400_000;
const ROLES = ['admin', 'devops', 'member', 'monitor', 'billing manager'];

/** A fresh secret of letters and digits. */
export function freshSecret(length: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(length * 2);
  let out = '';
  for (const b of bytes) {
    if (b >= 248) continue; // 248 = 62 * 4: no bias
    out += alphabet[b % 62];
    if (out.length === length) break;
  }
  return out.length === length ? out : out + freshSecret(length - out.length);
}

/**
 * A time as the interfaces write them, in ms: `2026-11-28 03:27:00+0000`, `2026-12-02 02:00:00
 * +0000`, `2026-11-28 07:37:28 UTC`, ISO 8601; NaN when it is none of these.
 */
export function parseTime(text: string): number {
  const m = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d)(?::(\d\d)(\.\d+)?)?\s*(Z|UTC|GMT|[+-]\d\d:?\d\d)?$/i.exec(
    text.trim(),
  );
  if (!m) return Number.NaN;
  const [, y, mo, d, h, mi, s = '0', frac = '', zone = 'Z'] = m;
  const base = Date.UTC(+y!, +mo! - 1, +d!, +h!, +mi!, +s, Math.round(Number(`0${frac}`) * 1000));
  if (/^(Z|UTC|GMT)$/i.test(zone)) return base;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.replace(/[^0-9]/g, '');
  return base - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000;
}

/** Minutes of a maintenance `duration` (`30 minutes`, `1 hour`, `2 hours`, `1 hour 30 minutes`); NaN when unreadable. */
export function parseDuration(text: string): number {
  let minutes = 0;
  let found = false;
  for (const m of text.matchAll(/(\d+)\s*(hours?|h|minutes?|mins?|m)\b/gi)) {
    found = true;
    minutes += Number(m[1]) * (/^h/i.test(m[2]!) ? 60 : 1);
  }
  return found ? minutes : Number.NaN;
}

/**
 * The Extras column of an audit row (`key = value, key = value`) as pairs. A value may hold `, `
 * itself: a piece without ` = ` continues the value before it, so the pairs written again as
 * `key = value` joined by `, ` give the text back.
 */
export function parseExtras(text: string): [string, string][] | undefined {
  if (!text) return [];
  const pairs: [string, string][] = [];
  for (const piece of text.split(', ')) {
    const eq = piece.indexOf(' = ');
    if (eq > 0) pairs.push([piece.slice(0, eq), piece.slice(eq + 3)]);
    else if (pairs.length) pairs[pairs.length - 1]![1] += `, ${piece}`;
    else return undefined;
  }
  return pairs;
}

const maxId = (items: readonly { id: number }[] | undefined) => (items ?? []).reduce((m, x) => Math.max(m, x.id), 0);
const startOfDay = (t: number) => Math.floor(t / DAY) * DAY;

/** The password of a connection url (`postgres://user:PASSWORD@host/db`), if it has one. */
function passwordOf(url: string): string | undefined {
  const m = /^[a-z][a-z0-9+.-]*:\/\/[^:/@]*:([^@/]+)@/i.exec(url);
  if (!m) return undefined;
  try {
    return decodeURIComponent(m[1]!);
  } catch {
    return m[1];
  }
}

/** The state file for what was read (see the first comment). */
export function buildState(read: AccountRead, options: BuildOptions): Built {
  const report: string[] = [...read.notes];
  const keep = Boolean(options.keepSecrets);
  const now = read.sourceNow;
  const redactor = new Redactor(!keep);
  const audit = read.audit ?? [];

  // The account: its id is the one integrations name; its name and address the invoices'.
  const integrationAccount = read.instances
    .flatMap((i) => [...(i.logs ?? []), ...(i.metrics ?? [])])
    .map((x) => x.account_id)
    .find(Boolean);
  const latestInvoice = [...(read.invoices ?? [])].sort((a, b) => b.summary.id - a.summary.id)[0];
  const customer = latestInvoice?.detail.customer;
  const team = read.team ?? [];
  const defaultRecipient = read.instances
    .flatMap((i) => i.recipients ?? [])
    .find((r) => r.name === 'Default' && r.type === 'email');
  const name = customer?.account_name || latestInvoice?.summary.account_name || 'Imported account';
  const teamEmail =
    defaultRecipient?.value ??
    team.find((m) => m.roles.includes('admin'))?.email ??
    team[0]?.email ??
    'team@imported.example';
  if (!integrationAccount)
    report.push(
      'account id: no integration names it; the imported account has a new id (integrations created later show it)',
    );

  // Keys: the API shows none; one per role of the team (the admin key always).
  const roles = ROLES.filter((r) => r === 'admin' || team.some((m) => (m.roles as string[]).includes(r)));
  const keys: Record<string, string> = {};
  const keyRecords: StateAccount['keys'] = roles.map((role, i) => {
    const key = role === 'admin' && keep ? options.apiKey : `tusk-imported-${freshSecret(28)}`;
    keys[role] = key;
    return {
      id: `key-${i + 1}`,
      key,
      role,
      comment: role === 'admin' && keep ? 'the key the account was imported with' : `imported: a new ${role} key`,
      email: team.find((m) => (m.roles as string[]).includes(role))?.email ?? teamEmail,
    };
  });

  const created = new Map<number, number>();
  for (const row of audit) {
    if (row.event !== 'instance.create') continue;
    const id = Number(row.extras.find(([k]) => k === 'instance_id')?.[1]);
    if (Number.isInteger(id) && !created.has(id)) created.set(id, row.at);
  }

  const instances = [...read.instances]
    .sort((a, b) => a.summary.id - b.summary.id)
    .flatMap((i): StateInstance[] => {
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
          report.push(
            `${label}: maintenance ${m.id} was started before its time; started_at taken as the import's time`,
          );
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
    });

  const account: StateAccount = {
    id: integrationAccount ?? randomUUID(),
    clock: null,
    name,
    team_email: teamEmail,
    customer: customer ?? { company: name, address: '', country: '', account_name: name },
    keys: keyRecords,
    last_key_id: keyRecords.length,
    team: team.map((m) => ({
      id: m.id,
      email: m.email,
      tfa_auth_enabled: m.tfa_auth_enabled,
      roles: [...m.roles],
      tags: [],
    })),
    invoices: (read.invoices ?? []).map(({ summary, detail }) => ({
      id: summary.id,
      number: summary.number,
      paid: summary.paid,
      detail,
    })),
    audit: audit.map((r) => ({ at: r.at, event: r.event, source: r.source, user: r.user, extras: r.extras })),
    last_instance_id: maxId(read.instances.map((i) => i.summary)),
    instances,
  };

  const offset = now - read.localNow;
  const state: State = {
    tusk_state: 1,
    seed: 1,
    clock: { offset_ms: Math.abs(offset) < SAME_CLOCK_MS ? 0 : Math.round(offset), pinned_ms: null },
    outbox: { last_id: 0, entries: [] },
    accounts: [account],
  };

  report.push(
    "databases' data: not readable through the API; each instance gets a new, empty database (with `tusk serve --databases`), and its url names the stand-in's server",
    `pg_version: not shown by the API; recorded as ${DEFAULT_PG_VERSION}, createInstance's default`,
    keep
      ? `the account's keys: not readable; the key given (--api-key) is the admin key, new keys for ${roles.filter((r) => r !== 'admin').join(', ') || 'no other role'}`
      : `the account's keys: not readable; new keys, one per role of the team (${roles.join(', ')})`,
    keep
      ? 'instance keys, passwords and integration keys: kept as the source answered them (--keep-secrets)'
      : `instance keys and passwords: new; integration keys: placeholders <redacted:KIND:N> (${redactor.count} replaced); --keep-secrets keeps them`,
    'invoices: carried as answered (number, period, paid, lines, totals); the payments behind them are not in the API',
    read.auditMonths?.length
      ? `audit log: the months ${[...read.auditMonths].reverse().join(', ')} carried (${audit.length} events); earlier months were not read`
      : 'audit log: not read; none carried',
    'team members: carried; their tags are not in the API (none)',
    'simulated metrics and alarm states: not in the API; every instance starts at the defaults, no alarm triggered',
    'the outbox (callbacks and notifications sent or due): not in the API; empty',
  );
  return { state, keys, report };
}
