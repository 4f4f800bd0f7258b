// What `tusk import` writes: a state file in the format `tusk serve --state FILE` loads (the State
// schema of the control document, src/control/control.openapi.yaml; types in
// src/generated/control.ts), made from what the source's public API answered (account.ts reads it,
// read.ts types it; each instance is built by instance.ts).
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
import { randomUUID } from 'node:crypto';
import type { components as Control } from '../generated/control.js';
import type { components as Customer } from '../generated/customer.js';
import { Redactor } from '../record/redact.js';
import { creationTimes, DEFAULT_PG_VERSION, maxId, stateInstance, type StateInstance } from './instance.js';
import type { AccountRead, InvoiceDetail } from './read.js';
import { freshSecret } from './values.js';

type S = Control['schemas'];
type StateAccount = Omit<S['StateAccount'], 'customer' | 'invoices' | 'instances'> & {
  customer: Customer['schemas']['InvoiceCustomer'];
  invoices: (Omit<S['StateAccount']['invoices'][number], 'detail'> & { detail: InvoiceDetail })[];
  instances: StateInstance[];
};
/** The State schema of the control document, as import writes it. */
export type State = Omit<S['State'], 'accounts'> & { accounts: StateAccount[] };

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

/** Clocks closer than this are taken as the same (the Date header has whole seconds). */
const SAME_CLOCK_MS = 5_000;
const ROLES = ['admin', 'devops', 'member', 'monitor', 'billing manager'];

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

  const created = creationTimes(audit);
  const instances = [...read.instances]
    .sort((a, b) => a.summary.id - b.summary.id)
    .flatMap((i) => stateInstance(i, { now, keep, redactor, teamEmail, created, report }));

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
