// One account, the aggregate of the customer interface's resources: its API keys, team, invoices,
// audit log and instances, with the catalogue's plans and regions (each resource's rules live in its
// own folder: resources/<name>/). What spans resources is wired here: every change is written to the
// account's audit log, a team member removed takes the keys acting for them along, and an instance
// is built with the account's team e-mail (its default recipient) and plans. It is dumped and
// rebuilt whole (toJSON / fromJSON, see domain/state.ts).
import type { AccountFixture, Catalogue } from '../../fixtures/index.js';
import { LIST_CAPS } from '../core/limits.js';
import type { AccountState } from '../domain/state.js';
import type { ApiKeyRecord, StoreContext } from '../domain/types.js';
import { AuditLog } from './auditlog/audit-log.js';
import { ApiKeys } from './apikeys/apikeys.js';
import { Team } from './team/team.js';
import { Invoices } from './invoices/invoices.js';
import { Plans } from './plans/plans.js';
import { Regions } from './regions/regions.js';
import { Instances } from './instances/instances.js';
import type { InstanceStore } from './instances/instance.js';

export class AccountStore {
  readonly id: string;
  readonly name: string;
  readonly teamEmail: string;
  readonly audit: AuditLog;
  readonly apiKeys: ApiKeys;
  readonly team: Team;
  readonly invoices: Invoices;
  readonly plans: Plans;
  readonly regions: Regions;
  readonly instances: Instances;

  /** @param state the key and instance sequences and the instances to take over (AccountStore.fromJSON) */
  constructor(
    readonly fixture: AccountFixture,
    readonly catalogue: Catalogue,
    readonly ctx: StoreContext,
    state?: Pick<AccountState, 'last_key_id' | 'last_instance_id' | 'instances'>,
  ) {
    this.id = fixture.id;
    this.name = fixture.name;
    this.teamEmail = fixture.teamEmail;
    this.audit = new AuditLog(LIST_CAPS.auditEventsPerAccount, fixture.audit, ctx.clock);
    const log = this.audit.write;
    this.apiKeys = new ApiKeys(fixture.keys, { accountId: this.id, index: ctx.keys, log }, state?.last_key_id);
    this.team = new Team(fixture.team, { log, removed: (member) => this.apiKeys.revokeFor(member.email) });
    this.invoices = new Invoices(fixture.invoices);
    this.plans = new Plans(catalogue);
    this.regions = new Regions(catalogue);
    this.instances = new Instances(
      { accountId: this.id, teamEmail: this.teamEmail, ctx, plans: this.plans, regions: this.regions, log },
      { instances: fixture.instances, usedIds: fixture.usedInstanceIds },
      state,
    );
  }

  /** Rebuilds an account from toJSON(); its keys are registered with the context's key index. */
  static fromJSON(state: AccountState, catalogue: Catalogue, ctx: StoreContext): AccountStore {
    const fixture: AccountFixture = {
      id: state.id,
      name: state.name,
      teamEmail: state.team_email,
      customer: structuredClone(state.customer),
      keys: state.keys,
      team: state.team.map((m) => ({ ...m, joinedAt: 0 })),
      instances: [],
      usedInstanceIds: [],
      invoices: state.invoices,
      audit: state.audit,
    };
    return new AccountStore(fixture, catalogue, ctx, state);
  }

  /** The whole account as plain JSON (see domain/state.ts). */
  toJSON(): AccountState {
    return {
      id: this.id,
      name: this.name,
      team_email: this.teamEmail,
      customer: structuredClone(this.fixture.customer),
      keys: this.apiKeys.list(),
      last_key_id: this.apiKeys.lastId,
      team: this.team.toJSON(),
      invoices: this.invoices.toJSON(),
      audit: this.audit.toJSON(),
      last_instance_id: this.instances.lastId,
      instances: this.instances.toJSON(),
    };
  }

  /** The key record `id` (the registry's authentication). */
  apiKey(id: string): ApiKeyRecord | undefined {
    return this.apiKeys.get(id);
  }

  /** Every instance of the account (alarm evaluation, control API). */
  instanceStores(): IterableIterator<InstanceStore> {
    return this.instances.all();
  }

  instanceStore(id: number): InstanceStore | undefined {
    return this.instances.find(id);
  }
}
