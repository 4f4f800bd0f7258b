// One account's state and the rules of the customer interface: instances, invoices, the audit log,
// regions and plans, the team and the customer API keys. Each operation of the customer document is
// one method; a refused request throws an ApiError before anything changes. The lists as the bytes
// of their answers, kept until they change, are account-views.ts (`views`).
import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { AccountFixture, Catalogue, InvoiceFixture } from '../../fixtures/index.js';
import { ApiError, invalid, notFound, limitReached } from '../core/errors.js';
import { LIST_CAPS } from '../core/limits.js';
import { AuditLog, type AuditEvent } from './auditlog/audit-log.js';
import { IdSequence } from '../domain/ids.js';
import { auditTimestamp, parsePitSecond } from '../domain/dates.js';
import { InstanceStore } from './instances/instance.js';
import { AccountViews } from './account-views.js';
import type { AccountState } from '../domain/state.js';
import type {
  ApiKeyRecord,
  Backend,
  CreateInstanceBody,
  CreatedInstance,
  InstanceRecord,
  InstanceSummary,
  InviteTeamMemberBody,
  InvoiceDetail,
  InvoiceSummary,
  Plan,
  Region,
  Role,
  StoreContext,
  TeamMember,
  TeamMemberState,
  UpdateInstanceBody,
  UpdateTeamMemberBody,
} from '../domain/types.js';

const requireHere = createRequire(import.meta.url);

/** csv-stringify's stringify, loaded by the first audit CSV made (start-up needs none of it; require caches it). */
const csvStringify = () => (requireHere('csv-stringify/sync') as typeof import('csv-stringify/sync')).stringify;

export type { AuditEvent };

export { auditTimestamp, parsePitSecond } from '../domain/dates.js';

export type { TeamMemberState } from '../domain/types.js';

/** The audit log's header line (the columns of the CSV). */
export const AUDIT_COLUMNS = ['Timestamp', 'Event', 'Source', 'User', 'Extras'] as const;

/** The fixed answers of the team operations (the spec's texts). */
export const TEAM_MESSAGES = {
  invite: 'Email invitation sent',
  remove: 'The user has been deleted from team',
  update: 'Role and tags updated for user.',
} as const;

/** The Postgres version of createInstance when `pg_version` is omitted (the latest). */
export const DEFAULT_PG_VERSION = '17';

/** Roles that may carry tags. */
const TAGGED_ROLES: readonly Role[] = ['member', 'monitor'];

/** A month index (year * 12 + month - 1) of `yyyy-mm`, of `yyyy/m`, or of a time. */
const monthIndexOfYearMonth = (text: string): number => {
  const [y, m] = text.split(/[-/]/).map(Number) as [number, number];
  return y * 12 + m - 1;
};
const monthIndexOfTime = (ms: number): number => {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
};

const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();
const splitTags = (tags: string) =>
  tags
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

export class AccountStore {
  readonly id: string;
  readonly name: string;
  readonly teamEmail: string;
  private readonly keys = new Map<string, ApiKeyRecord>();
  private readonly keyIds = new IdSequence();
  private readonly instances = new Map<number, InstanceStore>();
  private readonly instanceIds = new IdSequence();
  private readonly team: TeamMemberState[];
  /** Changes with every invite, removal and update of a member. */
  private teamChanges = 0;
  /** The team by lower-cased e-mail (e-mails compare without case): an invite or a removal finds the member without a walk. */
  private readonly teamByEmail = new Map<string, TeamMemberState>();
  private readonly invoices: InvoiceFixture[];
  /** Each invoice's month index and summary, in the order of `invoices` (invoices never change). */
  private readonly invoiceSummaries: { month: number; summary: InvoiceSummary }[];
  private readonly audit: AuditLog;
  /** Changes whenever an instance is added or removed. */
  private instanceChanges = 0;
  /** The lists as the bytes of their answers (account-views.ts). */
  readonly views = new AccountViews(this);

  /** @param state the instances and id sequences to take over (AccountStore.fromJSON) */
  constructor(
    readonly fixture: AccountFixture,
    readonly catalogue: Catalogue,
    readonly ctx: StoreContext,
    state?: Pick<AccountState, 'last_key_id' | 'last_instance_id' | 'instances'>,
  ) {
    this.id = fixture.id;
    this.name = fixture.name;
    this.teamEmail = fixture.teamEmail;
    for (const k of fixture.keys) {
      this.keys.set(k.id, { ...k });
      this.keyIds.observe(Number(/(\d+)$/.exec(k.id)?.[1] ?? 0));
      ctx.keys.addCustomerKey(k.key, this.id, k.id);
    }
    this.team = fixture.team.map((m) => ({
      id: m.id,
      email: m.email,
      tfa_auth_enabled: m.tfa_auth_enabled,
      roles: [...m.roles],
      tags: [...m.tags],
    }));
    for (const m of this.team) this.teamByEmail.set(m.email.toLowerCase(), m);
    this.invoices = [...fixture.invoices].sort(
      (a, b) => monthIndexOfYearMonth(a.detail.period) - monthIndexOfYearMonth(b.detail.period) || a.id - b.id,
    );
    this.invoiceSummaries = this.invoices.map((inv) => ({
      month: monthIndexOfYearMonth(inv.detail.period),
      summary: {
        id: inv.id,
        period: inv.detail.period,
        number: inv.number,
        paid: inv.paid,
        total: inv.detail.total,
        currency: inv.detail.currency,
        account_name: inv.detail.customer.account_name,
      },
    }));
    this.audit = new AuditLog(
      LIST_CAPS.auditEventsPerAccount,
      fixture.audit.map((e) => ({ ...e, extras: e.extras.map(([k, v]) => [k, v] as [string, string | number]) })),
    );
    for (const id of fixture.usedInstanceIds) this.instanceIds.observe(id);
    for (const x of fixture.instances) {
      const plan = this.plan(x.plan, 'plan');
      this.instanceIds.observe(x.id);
      this.instances.set(
        x.id,
        new InstanceStore(
          {
            id: x.id,
            accountId: this.id,
            name: x.name,
            plan,
            backend: this.backendOf(plan),
            region: x.region,
            pgVersion: x.pgVersion,
            teamEmail: this.teamEmail,
            createdAt: x.createdAt,
            readyAt: x.createdAt,
            providerid: x.providerid,
            apikey: x.apikey,
            password: x.password,
          },
          ctx,
        ),
      );
    }
    if (state) {
      this.keyIds.observe(state.last_key_id);
      this.instanceIds.observe(state.last_instance_id);
      for (const x of state.instances) {
        const plan = this.plan(x.plan, 'plan');
        this.instanceIds.observe(x.id);
        this.instances.set(
          x.id,
          InstanceStore.fromJSON(
            x,
            { accountId: this.id, teamEmail: this.teamEmail, plan, backend: this.backendOf(plan) },
            ctx,
          ),
        );
      }
    }
  }

  /** Rebuilds an account from toJSON(); its keys are registered with the context's key index. */
  static fromJSON(state: AccountState, catalogue: Catalogue, ctx: StoreContext): AccountStore {
    const fixture: AccountFixture = {
      id: state.id,
      name: state.name,
      teamEmail: state.team_email,
      customer: structuredClone(state.customer),
      keys: state.keys.map((k) => ({ ...k })),
      team: state.team.map((m) => ({ ...m, roles: [...m.roles], tags: [...m.tags], joinedAt: 0 })),
      instances: [],
      usedInstanceIds: [],
      invoices: structuredClone(state.invoices),
      audit: state.audit,
    };
    return new AccountStore(fixture, catalogue, ctx, state);
  }

  /** The whole account as plain JSON (see snapshot.ts). */
  toJSON(): AccountState {
    return {
      id: this.id,
      name: this.name,
      team_email: this.teamEmail,
      customer: structuredClone(this.fixture.customer),
      keys: this.apiKeys(),
      last_key_id: this.keyIds.current,
      team: this.team.map((m) => ({
        id: m.id,
        email: m.email,
        tfa_auth_enabled: m.tfa_auth_enabled,
        roles: [...m.roles],
        tags: [...m.tags],
      })),
      invoices: structuredClone(this.invoices),
      audit: this.audit
        .rows()
        .map((e) => ({ ...e, extras: e.extras.map(([k, v]) => [k, v] as [string, string | number]) })),
      last_instance_id: this.instanceIds.current,
      instances: [...this.instances.values()].sort((a, b) => a.id - b.id).map((i) => i.toJSON()),
    };
  }

  // ---- lookups used by the registry ----
  apiKey(id: string): ApiKeyRecord | undefined {
    return this.keys.get(id);
  }

  /** Every instance of the account (alarm evaluation, control API). */
  instanceStores(): IterableIterator<InstanceStore> {
    return this.instances.values();
  }

  instanceStore(id: number): InstanceStore | undefined {
    return this.instances.get(id);
  }

  // ---- regions and plans ----
  listRegions(provider?: string): Region[] {
    return this.catalogue.regions.filter((r) => provider === undefined || r.provider === provider);
  }

  listPlans(backend?: string): Plan[] {
    return this.catalogue.plans.filter((p) => backend === undefined || p.backend === backend);
  }

  // ---- instances ----
  listInstances(): InstanceSummary[] {
    return this.sortedInstances().map((i) => this.summary(i));
  }

  /** The instances in id order. */
  sortedInstances(): InstanceStore[] {
    return [...this.instances.values()].sort((a, b) => a.id - b.id);
  }

  /** Changes whenever an instance is added or removed. */
  get instancesVersion(): number {
    return this.instanceChanges;
  }

  /** What every instance's url has in common and can change: the database engine's address, once it has one. */
  urlEpoch(): string {
    const dbs = this.ctx.databases;
    return dbs ? `${dbs.host}:${dbs.port}` : '';
  }

  getInstance(id: number): InstanceRecord {
    return this.instanceRecord(this.instance(id));
  }

  createInstance(body: CreateInstanceBody, actor: ApiKeyRecord): CreatedInstance {
    if (this.instances.size >= LIST_CAPS.instancesPerAccount) {
      throw limitReached(
        'instances',
        `an account has at most ${LIST_CAPS.instancesPerAccount} instances; delete one to create another`,
      );
    }
    const plan = this.plan(body.plan, 'plan');
    const region = this.region(body.region);
    this.checkSharedPlan(plan, region, 'region');
    const action = body.action ?? 'standalone';
    let source: InstanceStore | undefined;
    if (action === 'fork' || action === 'pit') {
      if (body.instance_id === undefined) throw invalid('instance_id', 'required', `is required with action ${action}`);
      source = this.instances.get(body.instance_id);
      if (!source) throw invalid('instance_id', 'exists', `no instance of this account has id ${body.instance_id}`);
    }
    if (action === 'pit') {
      if (body.pit === undefined) throw invalid('pit', 'required', 'is required with action pit');
      const pit = parsePitSecond(body.pit);
      if (pit === undefined)
        throw invalid('pit', 'format', `${body.pit} is not a valid time (yyyy-mm-dd hh:mm:ss, UTC)`);
      // pit has whole seconds: compare at that precision.
      if (pit > this.ctx.clock.now()) throw invalid('pit', 'not-in-future', `${body.pit} lies in the future`);
      if (pit < Math.floor(source!.createdAt / 1000) * 1000) {
        throw invalid(
          'pit',
          'not-before-source',
          `${body.pit} lies before instance ${source!.id} was created (${auditTimestamp(source!.createdAt)})`,
        );
      }
    }

    const now = this.ctx.clock.now();
    const id = this.instanceIds.next();
    const instance = new InstanceStore(
      {
        id,
        accountId: this.id,
        name: body.name,
        tags: body.tags ?? [],
        ...(source
          ? { copyOf: { source, ...(action === 'pit' && body.pit ? { at: parsePitSecond(body.pit)! } : {}) } }
          : {}),
        plan,
        backend: this.backendOf(plan),
        region: body.region,
        pgVersion: body.pg_version ?? DEFAULT_PG_VERSION,
        teamEmail: this.teamEmail,
        createdAt: now,
        readyAt: now + this.ctx.provisionDelayMs,
      },
      this.ctx,
    );
    this.instances.set(id, instance);
    this.instanceChanges++;
    this.log(actor, 'instance.create', [
      ['instance_id', id],
      ['name', body.name],
      ['plan', plan.name],
      ['region', body.region],
      ['action', action],
      ...(source ? [['source_id', source.id] as [string, number]] : []),
      ...(action === 'pit' && body.pit ? [['pit', body.pit] as [string, string]] : []),
    ]);
    return { id, message: 'Instance created', url: instance.url, apikey: instance.apikey };
  }

  updateInstance(id: number, body: UpdateInstanceBody, actor: ApiKeyRecord): InstanceRecord {
    const instance = this.instance(id);
    if (body.name === undefined && body.plan === undefined && body.tags === undefined)
      throw invalid('body', 'minProperties', 'give at least one of name, plan and tags');
    let plan: Plan | undefined;
    if (body.plan !== undefined) {
      plan = this.plan(body.plan, 'plan');
      // The region is not part of this body: the plan is the field at fault.
      this.checkSharedPlan(plan, this.region(instance.region), 'plan');
    }
    if (body.name !== undefined) instance.name = body.name;
    if (body.tags !== undefined) instance.tags = [...body.tags];
    if (plan) instance.changePlan(plan, this.backendOf(plan));
    this.log(actor, 'instance.update', [
      ['instance_id', id],
      ...(body.name !== undefined ? [['name', body.name] as [string, string]] : []),
      ...(plan ? [['plan', plan.name] as [string, string]] : []),
    ]);
    return this.instanceRecord(instance);
  }

  deleteInstance(id: number, actor: ApiKeyRecord): void {
    const instance = this.instance(id);
    instance.destroy();
    this.instances.delete(id);
    this.instanceChanges++;
    this.log(actor, 'instance.delete', [
      ['instance_id', id],
      ['name', instance.name],
    ]);
  }

  // ---- invoices ----
  /** `from` and `to` are `yyyy-mm`, both inclusive, both optional. */
  listInvoices(from?: string, to?: string): InvoiceSummary[] {
    const lo = from === undefined ? -Infinity : monthIndexOfYearMonth(from);
    const hi = to === undefined ? Infinity : monthIndexOfYearMonth(to);
    if (lo > hi) throw invalid('to', 'not-before-from', `${to} lies before from ${from}`);
    return this.invoiceSummaries.filter((x) => x.month >= lo && x.month <= hi).map((x) => ({ ...x.summary }));
  }

  getInvoice(id: number): InvoiceDetail {
    const inv = this.invoices.find((x) => x.id === id);
    if (!inv) throw notFound('invoice', id);
    return structuredClone(inv.detail);
  }

  /** `year` must equal the year part of `month` (`yyyy-mm`). */
  getInvoiceForPeriod(year: number, month: string): InvoiceDetail {
    const [y, m] = month.split('-').map(Number) as [number, number];
    if (y !== year) throw invalid('month', 'year-matches', `the year of ${month} must equal year ${year}`);
    const period = `${y}/${m}`;
    const inv = this.invoices.find((x) => x.detail.period === period);
    if (!inv) throw new ApiError(404, `Not found: no invoice for the period ${period}`);
    return structuredClone(inv.detail);
  }

  // ---- audit log ----
  /** The CSV of one month (`yyyy-mm`); omitted, the latest month with events (else the current month). */
  auditLogCsv(month?: string): string {
    const latest = this.audit.size ? this.audit.latest : this.ctx.clock.now();
    const index = month === undefined ? monthIndexOfTime(latest) : monthIndexOfYearMonth(month);
    const rows = this.audit
      .rows()
      .filter((e) => monthIndexOfTime(e.at) === index)
      .sort((a, b) => a.at - b.at)
      .map((e) => [
        auditTimestamp(e.at),
        e.event,
        e.source,
        e.user,
        e.extras.map(([k, v]) => `${k} = ${v}`).join(', '),
      ]);
    return csvStringify()(rows, { header: true, columns: [...AUDIT_COLUMNS], record_delimiter: 'windows' });
  }

  /** Changes with every audit row. */
  get auditVersion(): number {
    return this.audit.version;
  }

  /** The audit rows as kept (oldest first). */
  auditEvents(): readonly AuditEvent[] {
    return this.audit.rows();
  }

  // ---- team ----
  /** Changes with every invite, removal and update of a member. */
  get teamVersion(): number {
    return this.teamChanges;
  }

  listTeamMembers(): TeamMember[] {
    return this.team.map(({ id, email, tfa_auth_enabled, roles }) => ({
      id,
      email,
      tfa_auth_enabled,
      roles: [...roles],
    }));
  }

  inviteTeamMember(body: InviteTeamMemberBody, actor: ApiKeyRecord): { message: typeof TEAM_MESSAGES.invite } {
    const role = body.role ?? 'member';
    if (this.teamByEmail.has(body.email.toLowerCase()))
      throw invalid('email', 'not-a-member', `${body.email} is already a member of the team`);
    if (body.tags !== undefined && !TAGGED_ROLES.includes(role))
      throw invalid('tags', 'role', `tags are only allowed with role member or monitor, not ${role}`);
    const tags = body.tags === undefined ? [] : splitTags(body.tags);
    if (this.team.length >= LIST_CAPS.teamMembersPerAccount) {
      throw limitReached(
        'team',
        `a team has at most ${LIST_CAPS.teamMembersPerAccount} members; remove one to invite another`,
      );
    }
    const member: TeamMemberState = {
      id: randomUUID(),
      email: body.email,
      tfa_auth_enabled: false,
      roles: [role],
      tags,
    };
    this.team.push(member);
    this.teamByEmail.set(body.email.toLowerCase(), member);
    this.teamChanges++;
    this.log(actor, 'team.invite', [
      ['email', body.email],
      ['role', role],
      ...(tags.length ? [['tags', tags.join(',')] as [string, string]] : []),
    ]);
    return { message: TEAM_MESSAGES.invite };
  }

  /** Removes the member; the customer keys acting for that e-mail are revoked with them. */
  removeTeamMember(email: string, actor: ApiKeyRecord): { message: typeof TEAM_MESSAGES.remove } {
    const found = this.teamByEmail.get(email.toLowerCase());
    if (!found) throw new ApiError(404, `Not found: no team member with the e-mail ${email}`);
    const [member] = this.team.splice(this.team.indexOf(found), 1);
    this.teamByEmail.delete(email.toLowerCase());
    this.teamChanges++;
    for (const k of [...this.keys.values()].filter((x) => sameEmail(x.email, member!.email))) {
      this.ctx.keys.revoke(k.key);
      this.keys.delete(k.id);
    }
    this.log(actor, 'team.remove', [
      ['user_id', member!.id],
      ['email', member!.email],
    ]);
    return { message: TEAM_MESSAGES.remove };
  }

  updateTeamMember(
    userId: string,
    body: UpdateTeamMemberBody,
    actor: ApiKeyRecord,
  ): { message: typeof TEAM_MESSAGES.update } {
    const member = this.team.find((m) => m.id.toLowerCase() === userId.toLowerCase());
    if (!member) throw new ApiError(404, `Not found: no team member with id ${userId}`);
    if (body.role === undefined && body.tags === undefined)
      throw invalid('body', 'minProperties', 'give at least one of role and tags');
    const roles: Role[] = body.role !== undefined ? [body.role] : member.roles;
    const tagged = roles.every((r) => TAGGED_ROLES.includes(r));
    if (body.tags !== undefined && !tagged)
      throw invalid('tags', 'role', `tags are only allowed for role member or monitor, not ${roles.join(', ')}`);
    member.roles = [...roles];
    this.teamChanges++;
    // Given tags replace the member's tags; a role that takes no tags drops them.
    if (body.tags !== undefined) member.tags = splitTags(body.tags);
    else if (!tagged) member.tags = [];
    this.log(actor, 'team.update', [
      ['user_id', member.id],
      ['email', member.email],
      ...(body.role !== undefined ? [['role', body.role] as [string, string]] : []),
      ...(body.tags !== undefined ? [['tags', member.tags.join(',')] as [string, string]] : []),
    ]);
    return { message: TEAM_MESSAGES.update };
  }

  /** The tags of a team member (not part of the API's records). */
  memberTags(userId: string): string[] | undefined {
    return this.team.find((m) => m.id === userId)?.tags.slice();
  }

  // ---- API keys ----
  /** Revokes the key used and issues a new one with the same role, e-mail and comment. */
  rotateApiKey(keyId: string): { apikey: string } {
    const old = this.keys.get(keyId);
    if (!old) throw notFound('API key', keyId);
    const fresh: ApiKeyRecord = {
      id: `key-${this.keyIds.next()}`,
      key: randomUUID(),
      role: old.role,
      comment: old.comment,
      email: old.email,
    };
    this.ctx.keys.revoke(old.key);
    this.keys.delete(old.id);
    this.keys.set(fresh.id, fresh);
    this.ctx.keys.addCustomerKey(fresh.key, this.id, fresh.id);
    this.log(old, 'apikey.rotate', [
      ['role', old.role],
      ['comment', old.comment],
    ]);
    return { apikey: fresh.key };
  }

  /** The key records of the account (without changing them). */
  apiKeys(): ApiKeyRecord[] {
    return [...this.keys.values()].map((k) => ({ ...k }));
  }

  // ---- helpers ----
  private instance(id: number): InstanceStore {
    const instance = this.instances.get(id);
    if (!instance) throw notFound('instance', id);
    return instance;
  }

  private plan(name: string, field: string): Plan {
    const plan = this.catalogue.plans.find((p) => p.name === name);
    if (!plan) throw invalid(field, 'exists', `${name} is not a plan (see listPlans)`);
    return plan;
  }

  private backendOf(plan: Plan): Backend {
    const backend = this.catalogue.backends.find((b) => b.name === plan.backend);
    if (!backend) throw new Error(`catalogue: plan ${plan.name} names the unknown backend ${plan.backend}`);
    return backend;
  }

  private region(name: string): Region {
    const region = this.catalogue.regions.find((r) => `${r.provider}::${r.region}` === name);
    if (!region)
      throw invalid('region', 'exists', `${name} is not a region (see listRegions; form <provider>::<region>)`);
    return region;
  }

  private checkSharedPlan(plan: Plan, region: Region, field: string): void {
    if (plan.shared && !region.has_shared_plans) {
      throw invalid(
        field,
        'shared-plans',
        `the shared plan ${plan.name} is not offered in ${region.provider}::${region.region}, which has no shared plans`,
      );
    }
  }

  summary(i: InstanceStore): InstanceSummary {
    return {
      id: i.id,
      name: i.name,
      plan: i.plan.name,
      region: i.region,
      url: i.url,
      providerid: i.providerid,
      tags: [...i.tags],
    };
  }

  private instanceRecord(i: InstanceStore): InstanceRecord {
    return {
      id: i.id,
      name: i.name,
      plan: i.plan.name,
      region: i.region,
      url: i.url,
      providerid: i.providerid,
      tags: [...i.tags],
      apikey: i.apikey,
      ready: i.ready,
    };
  }

  /** Appends an audit row for a successful state-changing call. */
  private log(actor: ApiKeyRecord, event: string, extras: [string, string | number][]): void {
    const at = this.ctx.clock.now();
    this.audit.push({ at, event, source: 'api', user: actor.email, extras });
  }
}
