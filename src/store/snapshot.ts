// The whole state of a registry as plain JSON (GET/PUT /__tusk/state, `tusk serve --state FILE`).
// Every store writes its part with toJSON() and is rebuilt from it (fromJSON / a constructor
// option), so that dump -> load -> dump gives the same document. Times are ms since the epoch on
// the virtual clock; API records (recipients, alarms, integrations, team members, invoices) are
// kept in their API shape.
import type { ApiKeyRecord, Alarm, Integration, InvoiceCustomer, Recipient, TeamMemberState } from './types.js';
import type { InvoiceFixture } from '../../fixtures/index.js';
import type { AuditEventFixture as AuditEvent } from '../../fixtures/index.js';
import type { OutboxEntry } from './outbox.js';
import type { MonitorState } from './instance-monitor.js';

/** The format version; a dump of another version is refused. */
export const STATE_VERSION = 1;

export interface RegistryState {
  tusk_state: typeof STATE_VERSION;
  /** The fixture seed: what reset() goes back to. */
  seed: number;
  clock: ClockState;
  outbox: OutboxState;
  accounts: AccountState[];
}

export interface ClockState {
  /** ms added to real time while the clock runs. */
  offset_ms: number;
  /** The time the clock stands still at (ms since the epoch), or null while it runs. */
  pinned_ms: number | null;
}

export interface OutboxState {
  last_id: number;
  entries: OutboxEntry[];
}

export type { TeamMemberState } from './types.js';

export interface AccountState {
  id: string;
  name: string;
  team_email: string;
  /** The customer the invoices are addressed to. */
  customer: InvoiceCustomer;
  keys: ApiKeyRecord[];
  last_key_id: number;
  team: TeamMemberState[];
  invoices: InvoiceFixture[];
  audit: AuditEvent[];
  last_instance_id: number;
  instances: InstanceState[];
}

export interface InstanceState {
  id: number;
  name: string;
  /** Absent in a state written before tags were kept: none. */
  tags?: string[];
  plan: string;
  region: string;
  pg_version: string;
  created_at: number;
  ready_at: number;
  providerid: string;
  apikey: string;
  password: string;
  recipients: RecipientsState;
  alarms: AlarmsState;
  integrations: IntegrationsState;
  backups: BackupsState;
  maintenance: MaintenanceState;
  /** Simulated metrics and alarm states (instance-monitor.ts); absent: the defaults. */
  monitor?: MonitorState;
}

export interface RecipientsState {
  last_id: number;
  default_id: number;
  items: Recipient[];
}

export interface AlarmsState {
  last_id: number;
  items: Alarm[];
}

export interface IntegrationsState {
  /** One id sequence for both kinds. */
  last_id: number;
  logs: Integration[];
  metrics: Integration[];
}

export interface BackupItemState {
  id: number;
  database_name: string;
  taken_at: number;
  ready_at: number;
  size: number;
}

export interface BackupsState {
  last_id: number;
  /** Per database (in the instance's order): when its next daily backup is taken. */
  next_daily: number[];
  items: BackupItemState[];
}

export interface MaintenanceItemState {
  id: number;
  scheduled_by: number;
  required_by: number;
  minutes: number;
  description: string;
  /** Set when it was run by hand (runMaintenance). */
  started_at?: number;
}

export interface MaintenanceState {
  last_id: number;
  items: MaintenanceItemState[];
}

/** A state that cannot be loaded: every problem found, each naming where it is. */
export class StateError extends Error {
  constructor(readonly problems: string[]) {
    super(`not a valid Tusk state: ${problems.slice(0, 10).join('; ')}${problems.length > 10 ? `; and ${problems.length - 10} more` : ''}`);
    this.name = 'StateError';
  }
}
