// An account's instances, the rules of the customer interface's instance operations: list, get,
// create (standalone, a fork of another instance, or a copy of one at a point in time: its database
// is copied), update (name, tags, plan) and delete, with the account's limit, the catalogue's plans
// and regions and where shared plans are offered. Each change is written to the audit log. The list
// as the bytes of its answer is view.ts. One instance (its connection, its key, the instance
// interface's resources) is instance.ts.
import type { InstanceFixture } from '../../../fixtures/index.js';
import { invalid, limitReached, notFound } from '../../core/errors.js';
import { LIST_CAPS } from '../../core/limits.js';
import { auditTimestamp, parsePitSecond } from '../../domain/dates.js';
import { IdSequence } from '../../domain/ids.js';
import type { InstanceState } from '../../domain/state.js';
import type {
  ApiKeyRecord,
  CreateInstanceBody,
  CreatedInstance,
  InstanceRecord,
  InstanceSummary,
  Plan,
  Region,
  StoreContext,
  UpdateInstanceBody,
} from '../../domain/types.js';
import type { AuditWriter } from '../auditlog/audit-log.js';
import type { Plans } from '../plans/plans.js';
import type { Regions } from '../regions/regions.js';
import { InstanceStore } from './instance.js';
import { InstancesView } from './view.js';

/** The Postgres version of createInstance when `pg_version` is omitted (the latest). */
export const DEFAULT_PG_VERSION = '17';

/** What the instances read of their account. */
export interface InstancesOwner {
  accountId: string;
  /** The account's team e-mail: the value of every instance's default recipient. */
  teamEmail: string;
  ctx: StoreContext;
  plans: Plans;
  regions: Regions;
  log: AuditWriter;
}

export class Instances {
  private readonly items = new Map<number, InstanceStore>();
  private readonly ids = new IdSequence();
  /** Changes whenever an instance is added or removed. */
  private changes = 0;
  private readonly view = new InstancesView(this);

  /**
   * @param seeded the fixture's instances, and the ids its deleted instances used
   * @param state the instances and id sequence of a state dump to take over instead
   */
  constructor(
    private readonly owner: InstancesOwner,
    seeded: { instances: readonly InstanceFixture[]; usedIds: readonly number[] },
    state?: { last_instance_id: number; instances: readonly InstanceState[] },
  ) {
    for (const id of seeded.usedIds) this.ids.observe(id);
    for (const x of seeded.instances) {
      const plan = owner.plans.find(x.plan, 'plan');
      this.ids.observe(x.id);
      const init = { ...this.identity(plan), id: x.id, name: x.name, region: x.region, pgVersion: x.pgVersion };
      const secrets = { providerid: x.providerid, apikey: x.apikey, password: x.password };
      this.items.set(
        x.id,
        new InstanceStore({ ...init, ...secrets, createdAt: x.createdAt, readyAt: x.createdAt }, owner.ctx),
      );
    }
    if (!state) return;
    this.ids.observe(state.last_instance_id);
    for (const x of state.instances) {
      this.ids.observe(x.id);
      this.items.set(x.id, InstanceStore.fromJSON(x, this.identity(owner.plans.find(x.plan, 'plan')), owner.ctx));
    }
  }

  /** What every instance of the account is built with for a plan. */
  private identity(plan: Plan) {
    const { accountId, teamEmail, plans } = this.owner;
    return { accountId, teamEmail, plan, backend: plans.backendOf(plan) };
  }

  /** Changes whenever an instance is added or removed. */
  get version(): number {
    return this.changes;
  }

  /** The last instance id handed out (ids are never reused). */
  get lastId(): number {
    return this.ids.current;
  }

  /** Every instance (alarm evaluation, control API), in no order. */
  all(): IterableIterator<InstanceStore> {
    return this.items.values();
  }

  find(id: number): InstanceStore | undefined {
    return this.items.get(id);
  }

  /** The instances in id order. */
  sorted(): InstanceStore[] {
    return [...this.items.values()].sort((a, b) => a.id - b.id);
  }

  list(): InstanceSummary[] {
    return this.sorted().map((i) => this.summary(i));
  }

  /** list() as the bytes of its answer (view.ts). */
  listJson(): Uint8Array {
    return this.view.list();
  }

  /** What every instance's url has in common and can change: the database engine's address, once it has one. */
  urlEpoch(): string {
    const dbs = this.owner.ctx.databases;
    return dbs ? `${dbs.host}:${dbs.port}` : '';
  }

  get(id: number): InstanceRecord {
    return this.record(this.instance(id));
  }

  create(body: CreateInstanceBody, actor: ApiKeyRecord): CreatedInstance {
    if (this.items.size >= LIST_CAPS.instancesPerAccount) {
      const cap = LIST_CAPS.instancesPerAccount;
      throw limitReached('instances', `an account has at most ${cap} instances; delete one to create another`);
    }
    const { ctx, plans, regions } = this.owner;
    const plan = plans.find(body.plan, 'plan');
    checkSharedPlan(plan, regions.find(body.region), 'region');
    const action = body.action ?? 'standalone';
    const source = action === 'fork' || action === 'pit' ? this.sourceOf(body, action) : undefined;
    const pit = action === 'pit' ? this.pitOf(body, source!) : undefined;
    const now = ctx.clock.now();
    const id = this.ids.next();
    const instance = new InstanceStore(
      {
        ...this.identity(plan),
        id,
        name: body.name,
        tags: body.tags ?? [],
        ...(source ? { copyOf: { source, ...(pit !== undefined ? { at: pit } : {}) } } : {}),
        region: body.region,
        pgVersion: body.pg_version ?? DEFAULT_PG_VERSION,
        createdAt: now,
        readyAt: now + ctx.provisionDelayMs,
      },
      ctx,
    );
    this.items.set(id, instance);
    this.changes++;
    this.owner.log(actor, 'instance.create', [
      ['instance_id', id],
      ['name', body.name],
      ['plan', plan.name],
      ['region', body.region],
      ['action', action],
      ...(source ? [['source_id', source.id] as [string, number]] : []),
      ...(pit !== undefined ? [['pit', body.pit!] as [string, string]] : []),
    ]);
    return { id, message: 'Instance created', url: instance.url, apikey: instance.apikey };
  }

  /** The instance a fork or a point-in-time copy is made of. */
  private sourceOf(body: CreateInstanceBody, action: string): InstanceStore {
    if (body.instance_id === undefined) throw invalid('instance_id', 'required', `is required with action ${action}`);
    const source = this.items.get(body.instance_id);
    if (!source) throw invalid('instance_id', 'exists', `no instance of this account has id ${body.instance_id}`);
    return source;
  }

  /** The time a point-in-time copy is made at: not in the future, not before its source was created. */
  private pitOf(body: CreateInstanceBody, source: InstanceStore): number {
    if (body.pit === undefined) throw invalid('pit', 'required', 'is required with action pit');
    const pit = parsePitSecond(body.pit);
    if (pit === undefined) throw invalid('pit', 'format', `${body.pit} is not a valid time (yyyy-mm-dd hh:mm:ss, UTC)`);
    // pit has whole seconds: compare at that precision.
    if (pit > this.owner.ctx.clock.now()) throw invalid('pit', 'not-in-future', `${body.pit} lies in the future`);
    if (pit < Math.floor(source.createdAt / 1000) * 1000) {
      const created = auditTimestamp(source.createdAt);
      throw invalid(
        'pit',
        'not-before-source',
        `${body.pit} lies before instance ${source.id} was created (${created})`,
      );
    }
    return pit;
  }

  update(id: number, body: UpdateInstanceBody, actor: ApiKeyRecord): InstanceRecord {
    const instance = this.instance(id);
    if (body.name === undefined && body.plan === undefined && body.tags === undefined)
      throw invalid('body', 'minProperties', 'give at least one of name, plan and tags');
    let plan: Plan | undefined;
    if (body.plan !== undefined) {
      plan = this.owner.plans.find(body.plan, 'plan');
      // The region is not part of this body: the plan is the field at fault.
      checkSharedPlan(plan, this.owner.regions.find(instance.region), 'plan');
    }
    if (body.name !== undefined) instance.name = body.name;
    if (body.tags !== undefined) instance.tags = [...body.tags];
    if (plan) instance.changePlan(plan, this.owner.plans.backendOf(plan));
    this.owner.log(actor, 'instance.update', [
      ['instance_id', id],
      ...(body.name !== undefined ? [['name', body.name] as [string, string]] : []),
      ...(plan ? [['plan', plan.name] as [string, string]] : []),
    ]);
    return this.record(instance);
  }

  /** Ends the instance: its key, its database and everything of the instance interface go with it. */
  delete(id: number, actor: ApiKeyRecord): void {
    const instance = this.instance(id);
    instance.destroy();
    this.items.delete(id);
    this.changes++;
    this.owner.log(actor, 'instance.delete', [
      ['instance_id', id],
      ['name', instance.name],
    ]);
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

  private record(i: InstanceStore): InstanceRecord {
    const { id, name, region, url, providerid } = i;
    return {
      id,
      name,
      plan: i.plan.name,
      region,
      url,
      providerid,
      tags: [...i.tags],
      apikey: i.apikey,
      ready: i.ready,
    };
  }

  private instance(id: number): InstanceStore {
    const instance = this.items.get(id);
    if (!instance) throw notFound('instance', id);
    return instance;
  }

  toJSON(): InstanceState[] {
    return this.sorted().map((i) => i.toJSON());
  }
}

/** A shared plan only where the region offers shared plans (a 400 naming `field`). */
function checkSharedPlan(plan: Plan, region: Region, field: string): void {
  if (plan.shared && !region.has_shared_plans) {
    const where = `${region.provider}::${region.region}`;
    throw invalid(
      field,
      'shared-plans',
      `the shared plan ${plan.name} is not offered in ${where}, which has no shared plans`,
    );
  }
}
