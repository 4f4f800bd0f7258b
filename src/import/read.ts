// What `tusk import` read of an account through its public API, as account.ts hands it to
// state.ts: the interfaces' records, typed by the generated types of the documents, what was read
// of each instance, and of the account (a part that could not be read is undefined).
import type { components as Customer } from '../generated/customer.js';
import type { components as Instance } from '../generated/instance.js';

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
