// The whole state of a registry as plain JSON (GET/PUT /__tusk/state, `tusk serve --state FILE`).
// Every store writes its part with toJSON() and is rebuilt from it (fromJSON / a constructor
// option), so that dump -> load -> dump gives the same document. Times are ms since the epoch on
// the virtual clock; API records (recipients, alarms, integrations, team members, invoices) are
// kept in their API shape.
import type { ApiKeyRecord, Alarm, Integration, InvoiceCustomer, Recipient, TeamMemberState } from './types.js';
import type { InvoiceFixture } from '../../fixtures/index.js';
import type { AuditEventFixture as AuditEvent } from '../../fixtures/index.js';
import type { OutboxEntry } from './outbox.js';
import type { components } from '../generated/control.js';

/** The format version; a dump of another version is refused. */
export const STATE_VERSION = 1;

// The shapes come from the control document's State schemas (src/generated/control.ts, one source
// with the validation of PUT /__tusk/state); where the document leaves a record as "an object of
// the interface's schema", the store's own type of that record takes its place.
type S = components['schemas'];
type GenInstance = S['StateInstance'];

export type RegistryState = Omit<S['State'], 'outbox' | 'accounts'> & { outbox: OutboxState; accounts: AccountState[] };
/** offset_ms: added to real time while the clock runs; pinned_ms: the time it stands still at, or null. */
export type ClockState = S['StateClock'];
export type OutboxState = Omit<S['State']['outbox'], 'entries'> & { entries: OutboxEntry[] };

export type { TeamMemberState } from './types.js';

/** One account's part of the state (GET/PUT /__tusk/state scoped to an account). */
export type AccountDump = Omit<S['AccountState'], 'account' | 'outbox'> & {
  account: AccountState;
  outbox: { entries: OutboxEntry[] };
};

export type AccountState = Omit<
  S['StateAccount'],
  'customer' | 'keys' | 'team' | 'invoices' | 'audit' | 'instances'
> & {
  /** The customer the invoices are addressed to. */
  customer: InvoiceCustomer;
  keys: ApiKeyRecord[];
  team: TeamMemberState[];
  invoices: InvoiceFixture[];
  audit: AuditEvent[];
  instances: InstanceState[];
};

/** The monitor's part of an instance's state: simulated metrics and alarm states (resources/alarms/monitor.ts). */
export type MonitorState = NonNullable<GenInstance['monitor']>;

export type InstanceState = Omit<GenInstance, 'recipients' | 'alarms' | 'integrations' | 'monitor'> & {
  recipients: RecipientsState;
  alarms: AlarmsState;
  integrations: IntegrationsState;
  /** Simulated metrics and alarm states; absent: the defaults. */
  monitor?: MonitorState;
};

export type RecipientsState = Omit<GenInstance['recipients'], 'items'> & { items: Recipient[] };
export type AlarmsState = Omit<GenInstance['alarms'], 'items'> & { items: Alarm[] };
/** One id sequence for both kinds. */
export type IntegrationsState = Omit<GenInstance['integrations'], 'logs' | 'metrics'> & {
  logs: Integration[];
  metrics: Integration[];
};
export type BackupsState = GenInstance['backups'];
export type BackupItemState = BackupsState['items'][number];
export type MaintenanceState = GenInstance['maintenance'];
/** started_at: set when it was run by hand (runMaintenance). */
export type MaintenanceItemState = MaintenanceState['items'][number];

/**
 * One reason a state cannot be loaded: the field (its place in the dump, e.g.
 * `accounts.0.instances.2.providerid`), the rule it breaks (`unique`, `maximum`, `maxDepth`, ...)
 * and the problem in words.
 */
export interface StateProblem {
  field: string;
  rule: string;
  message: string;
}

/** A problem as text: `field: message`. */
export const problemText = (p: string | StateProblem): string =>
  typeof p === 'string' ? p : `${p.field}: ${p.message}`;

/** A state that cannot be loaded: every problem found, each naming where it is. */
export class StateError extends Error {
  /** Every problem as text (`field: message`). */
  readonly problems: string[];
  /** The first problem's field and rule, which the 400 names (no field for a problem given as text only). */
  readonly field: string | undefined;
  readonly rule: string;

  constructor(problems: readonly (string | StateProblem)[]) {
    const texts = problems.map(problemText);
    super(
      `not a valid Tusk state: ${texts.slice(0, 10).join('; ')}${texts.length > 10 ? `; and ${texts.length - 10} more` : ''}`,
    );
    this.name = 'StateError';
    this.problems = texts;
    const first = problems[0];
    this.field = typeof first === 'object' ? first.field : undefined;
    this.rule = typeof first === 'object' ? first.rule : 'state';
  }
}
