// Types shared by the stores. Records that the API returns are the generated schema types, so the
// stores and the documents cannot drift apart.
import type { components as C } from '../generated/customer.js';
import type { components as I } from '../generated/instance.js';
import type { Clock } from './clock.js';
import type { OutboxWriter } from './outbox.js';
import type { SecretSource } from './secrets.js';
import type { ContractRules } from '../openapi/rules.js';

export type Role = C['schemas']['TeamRole'];
export type Plan = C['schemas']['Plan'];
export type Region = C['schemas']['Region'];

/** Defined with the document's rules that read it (openapi/rules.ts). */
export type { BrokerKind } from '../openapi/rules.js';

/** A backend software of the fixtures' plans, with the kind and version the availability table needs. */
export interface Backend {
  name: string;
  kind: 'primary' | 'alternative';
  version: string;
}

export interface ApiKeyRecord {
  id: string;
  key: string;
  role: Role;
  comment: string;
  /** E-mail of the team member the key acts for (the audit log's User column). */
  email: string;
}

/** Where stores register and revoke the keys they hand out, so the registry can authenticate them. */
export interface KeyIndex {
  addCustomerKey(key: string, accountId: string, keyId: string): void;
  addInstanceKey(key: string, accountId: string, instanceId: number): void;
  revoke(key: string): void;
}

/** What every store of one registry shares. */
import type { InstanceDatabases } from '../databases/instance-databases.js';

export interface StoreContext {
  /** The account's clock (domain/clock.ts, AccountClock): the server's until the account moves its own. */
  clock: Clock;
  keys: KeyIndex;
  /** The outbox as the account writes to it. */
  outbox: OutboxWriter;
  /** ms from create-instance until ready turns true. */
  provisionDelayMs: number;
  /** ms from create-backup until the backup is ready (and its callback fires). */
  backupDelayMs: number;
  /** ms a restore or point-in-time recovery takes before its callback fires. */
  restoreDelayMs: number;
  /** Rules the instance document carries as extensions (metrics availability, alarm types by plan). */
  rules: ContractRules;
  /** The real databases behind the instances (src/databases/); absent: instances are records only. */
  databases?: InstanceDatabases;
  /** Where instances' keys and passwords come from. */
  secrets: SecretSource;
  /**
   * Applies what background work (a database step) announces when it is done, to instance
   * `instanceId` as the account holds it then (undefined: gone), as a change of the account: at
   * once in one process; in a team's replica, as a write of the account's row. Absent: `apply`
   * runs at once on what the caller holds.
   */
  settle?: (instanceId: number, apply: (instance: SettledInstance | undefined) => void) => void;
}

/** An instance as background work finds it again when done (its resources are checked by their class). */
export interface SettledInstance {
  readonly backups: unknown;
}

/** A fresh random secret: URL-safe, `length` characters. */
export { randomSecret } from './secrets.js';

// ---- customer interface records (generated schema types) ----
export type InstanceSummary = C['schemas']['InstanceSummary'];
export type InstanceRecord = C['schemas']['Instance'];
export type CreateInstanceBody = C['schemas']['CreateInstance'];
export type CreatedInstance = C['schemas']['CreatedInstance'];
export type UpdateInstanceBody = C['schemas']['UpdateInstance'];
export type InvoiceSummary = C['schemas']['InvoiceSummary'];
export type InvoiceDetail = C['schemas']['InvoiceDetail'];
export type InvoiceLine = C['schemas']['InvoiceLine'];
export type InvoiceCustomer = C['schemas']['InvoiceCustomer'];
export type InvoiceSeller = C['schemas']['InvoiceSeller'];
export type TeamMember = C['schemas']['TeamMember'];
/** A team member as the store keeps it and a state dump holds it: the API record plus the member's tags. */
export interface TeamMemberState extends TeamMember {
  tags: string[];
}
export type InviteTeamMemberBody = C['schemas']['InviteTeamMember'];
export type UpdateTeamMemberBody = C['schemas']['UpdateTeamMember'];

// ---- instance interface records (generated schema types) ----
export type Recipient = I['schemas']['Recipient'];
export type RecipientType = I['schemas']['RecipientType'];
export type RecipientBody = I['schemas']['CreateRecipient'];
export type Alarm = I['schemas']['Alarm'];
export type AlarmType = I['schemas']['AlarmType'];
export type CreateAlarmBody = I['schemas']['CreateAlarm'];
export type UpdateAlarmBody = I['schemas']['UpdateAlarm'];
export type Integration = I['schemas']['Integration'];
export type LogSystem = I['schemas']['LogSystem'];
export type MetricsSystem = I['schemas']['MetricsSystem'];
export type Backup = I['schemas']['Backup'];
export type CreateBackupBody = I['schemas']['CreateBackup'];
export type RestoreBackupBody = I['schemas']['RestoreBackup'];
export type RecoverToPointInTimeBody = I['schemas']['RecoverToPointInTime'];
export type BackupReadyCallback = I['schemas']['BackupReadyCallback'];
export type RestoreCompletedCallback = I['schemas']['RestoreCompletedCallback'];
export type PitrCompletedCallback = I['schemas']['PitrCompletedCallback'];
export type Maintenance = I['schemas']['Maintenance'];
