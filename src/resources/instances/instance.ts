// One instance, the aggregate of the instance interface: its identity and connection (read and
// changed through the customer interface: name, tags, plan, key and password, the url of its real
// database) and the instance interface's resources of this instance (recipients, alarms,
// integrations, backups, maintenance, the monitor that fires alarms), which instance-resources.ts
// builds and wires on first use. Ending it (destroy) ends its key and its database.
import { randomUUID } from 'node:crypto';
import type { Backend, BrokerKind, Plan, StoreContext } from '../../domain/types.js';
import type { IntegrationKind, Integrations } from '../integrations/integrations.js';
import type { Monitor } from '../alarms/monitor.js';
import type { Alarms } from '../alarms/alarms.js';
import type { Recipients } from '../recipients/recipients.js';
import type { Backups } from '../backups/backups.js';
import type { MaintenanceSchedule } from '../maintenance/maintenance.js';
import {
  InstanceResources,
  SECOND_DATABASE,
  firstDueOfInitialState,
  type InstanceResourcesDump,
} from './instance-resources.js';
import type { InstanceState } from '../../domain/state.js';
import type { DatabaseRef } from '../../databases/instance-databases.js';
import { connectionLimitOf } from '../../../fixtures/index.js';
import { provisionDatabase } from './database.js';

export type { IntegrationKind, SystemBodyValidator } from '../integrations/integrations.js';

export { SECOND_DATABASE } from './instance-resources.js';

/** The part of a providerid that names the instance's real database and role (src/databases/instance-databases.ts). */
export { databaseKeyOf } from '../../databases/instance-databases.js';

export interface InstanceInit {
  id: number;
  accountId: string;
  name: string;
  plan: Plan;
  backend: Backend;
  /** `<provider>::<region>` */
  region: string;
  pgVersion: string;
  /** The account's team e-mail: the value of the default recipient. */
  teamEmail: string;
  /** ms since the epoch on the store's clock. */
  createdAt: number;
  readyAt: number;
  /** Free strings, as given on create (production stores and returns them). */
  tags?: string[];
  /** fork and pit: the source instance, and for pit the time copied (ms); its database is copied (src/databases/). */
  copyOf?: { source: InstanceStore; at?: number };
  /** Given for seeded instances (deterministic); generated otherwise. */
  providerid?: string;
  apikey?: string;
  password?: string;
}

export class InstanceStore {
  readonly id: number;
  readonly accountId: string;
  readonly providerid: string;
  readonly region: string;
  readonly pgVersion: string;
  readonly createdAt: number;
  readonly readyAt: number;
  readonly teamEmail: string;
  private _name: string;
  private _plan: Plan;
  backend: Backend;
  private _tags: string[];
  /**
   * Changes whenever a field of the instance's summary changes (name, tags, plan, the password in
   * its url): the instance list's view (view.ts) keeps each summary's JSON until then.
   */
  private _revision = 0;
  private key: string;
  private password: string;
  private readonly database: string;
  /** The instance's real database, when the server has a database engine (src/databases/). */
  readonly db?: DatabaseRef;
  /** When the instance was built: its initial per-instance state is dated from it. */
  private readonly origin: number;
  /** Until the resources are built: when their initial state has something to notify (evaluateAlarms builds them then). */
  private readonly initialDue: number;
  /** The instance interface's resources (see the section at the end), built on first use. */
  private built: InstanceResources | undefined;

  /** @param state the per-instance state to take over (InstanceStore.fromJSON) instead of the initial one */
  constructor(
    init: InstanceInit,
    readonly ctx: StoreContext,
    state?: InstanceResourcesDump,
  ) {
    this.id = init.id;
    this.accountId = init.accountId;
    this._name = init.name;
    this._tags = [...(init.tags ?? [])];
    this._plan = init.plan;
    this.backend = init.backend;
    this.region = init.region;
    this.pgVersion = init.pgVersion;
    this.teamEmail = init.teamEmail;
    this.createdAt = init.createdAt;
    this.readyAt = init.readyAt;
    this.providerid = init.providerid ?? randomUUID();
    this.key = init.apikey ?? ctx.secrets.secret(36);
    this.password = init.password ?? ctx.secrets.secret(24);
    this.database = `db${init.id}`;
    // The per-instance state: taken over from `state`, or the initial one (the default recipient,
    // the four default alarms, a history of daily backups and upcoming maintenance, dated from now
    // on the store's clock), built on first use.
    this.origin = ctx.clock.now();
    this.initialDue = state ? -Infinity : firstDueOfInitialState(this.id, this.origin);
    // Its real database, a copy of its source's for a fork or a point-in-time copy (database.ts).
    if (ctx.databases)
      this.db = provisionDatabase(ctx.databases, this, { ...init, loaded: state !== undefined }, this.password);
    if (state) this.built = new InstanceResources(this, ctx, this.origin, this.databaseNames, state);
    ctx.keys.addInstanceKey(this.key, this.accountId, this.id);
  }

  /** The instance interface's resources of this instance, built the first time they are needed. */
  private get resources(): InstanceResources {
    return (this.built ??= new InstanceResources(this, this.ctx, this.origin, this.databaseNames));
  }

  /** Rebuilds an instance from toJSON(); its key is registered with the context's key index. */
  static fromJSON(
    state: InstanceState,
    who: { accountId: string; teamEmail: string; plan: Plan; backend: Backend },
    ctx: StoreContext,
  ): InstanceStore {
    return new InstanceStore(
      {
        id: state.id,
        accountId: who.accountId,
        name: state.name,
        tags: state.tags ?? [],
        plan: who.plan,
        backend: who.backend,
        region: state.region,
        pgVersion: state.pg_version,
        teamEmail: who.teamEmail,
        createdAt: state.created_at,
        readyAt: state.ready_at,
        providerid: state.providerid,
        apikey: state.apikey,
        password: state.password,
      },
      ctx,
      state,
    );
  }

  /** The whole instance as plain JSON (see domain/state.ts). */
  toJSON(): InstanceState {
    return {
      id: this.id,
      name: this.name,
      tags: [...this.tags],
      plan: this.plan.name,
      region: this.region,
      pg_version: this.pgVersion,
      created_at: this.createdAt,
      ready_at: this.readyAt,
      providerid: this.providerid,
      apikey: this.key,
      password: this.password,
      ...this.resources.toJSON(),
    };
  }

  get apikey(): string {
    return this.key;
  }

  /** Provisioned on the clock, and (with a database engine) once its database accepts connections. */
  get ready(): boolean {
    return this.ctx.clock.now() >= this.readyAt && (!this.db || this.ctx.databases!.isReady(this.db));
  }

  /** `postgres://<user>:<password>@<host>:<port>/<database>`: with a database engine, its real server, role and database. */
  get url(): string {
    const dbs = this.ctx.databases;
    if (this.db && dbs)
      return `postgres://${this.db.role}:${this.password}@${dbs.host}:${dbs.port}/${this.db.database}`;
    // Without an engine, a url of the form production gives (nothing listens there).
    const [, region = 'local'] = this.region.split('::');
    const short = this.providerid.slice(0, 8);
    return `postgres://u${short}:${this.password}@pg-${short}.${region}.db.tusk.example:5432/${this.database}`;
  }

  /** The broker kind of the spec's metrics availability table, from the backend and its version. */
  get brokerKind(): BrokerKind {
    if (this.backend.kind === 'alternative') return 'alternative';
    const [major = 0, minor = 0] = this.backend.version.split('.').map(Number);
    return major > 4 || (major === 4 && minor >= 2) ? 'primary_from_4_2' : 'primary_below_4_2';
  }

  get revision(): number {
    return this._revision;
  }

  get name(): string {
    return this._name;
  }

  set name(name: string) {
    this._name = name;
    this._revision++;
  }

  get plan(): Plan {
    return this._plan;
  }

  /** Replaced whole by an update that gives them. */
  get tags(): readonly string[] {
    return this._tags;
  }

  set tags(tags: readonly string[]) {
    this._tags = [...tags];
    this._revision++;
  }

  /** Moves the instance to another plan (and that plan's backend). */
  changePlan(plan: Plan, backend: Backend): void {
    const limit = connectionLimitOf(plan.name);
    if (this.db && limit !== connectionLimitOf(this._plan.name)) this.ctx.databases!.setConnectionLimit(this.db, limit);
    this._plan = plan;
    this.backend = backend;
    this._revision++;
  }

  /** Issues a new instance key; the old one is revoked at once. */
  rotateApiKey(): string {
    this.ctx.keys.revoke(this.key);
    this.key = this.ctx.secrets.secret(36);
    this.ctx.keys.addInstanceKey(this.key, this.accountId, this.id);
    return this.key;
  }

  /** Gives the instance user a new password (visible in `url`). */
  rotatePassword(): void {
    this.password = this.ctx.secrets.secret(24);
    this._revision++;
    if (this.db) this.ctx.databases!.setPassword(this.db, this.password);
  }

  /** Revokes the key and drops the database; the account drops the store. */
  destroy(): void {
    this.ctx.keys.revoke(this.key);
    if (this.db) this.ctx.databases!.drop(this.db);
  }

  // ---- the instance interface's resources of this instance (instance-resources.ts), built on first use ----

  /** The databases of the instance; the first is the default one (the database of `url`). */
  get databaseNames(): readonly string[] {
    return [this.database, SECOND_DATABASE];
  }

  get recipients(): Recipients {
    return this.resources.recipients;
  }

  get alarms(): Alarms {
    return this.resources.alarms;
  }

  /** The log and metrics integrations. */
  get integrations(): Record<IntegrationKind, Integrations> {
    return this.resources.integrations;
  }

  get backups(): Backups {
    return this.resources.backups;
  }

  get maintenance(): MaintenanceSchedule {
    return this.resources.maintenance;
  }

  /** Simulated metrics and the alarms that fire (outside the contract; the control API sets them). */
  get monitor(): Monitor {
    return this.resources.monitor;
  }

  /** Whether evaluateAlarms(now) could trigger anything (nothing changes; a team's leader asks first). */
  alarmsDue(now: number): boolean {
    return this.built ? this.built.monitor.isDue(now) : now >= this.initialDue;
  }

  /** Triggers what is due on the store's clock (`now`: the registry's one reading for a tick); returns the number of notifications. */
  evaluateAlarms(now?: number): number {
    // Every instance on every tick: the built state read directly, not through the getter.
    const built = this.built;
    if (built) return built.monitor.tick(now);
    if ((now ?? this.ctx.clock.now()) < this.initialDue) return 0;
    return this.resources.monitor.tick(now);
  }
}
