// One instance: its identity and connection (read and changed through the customer interface) and
// its per-instance state (the instance interface: recipients, alarms, integrations, backups,
// maintenance; see the sections below).
import { randomUUID } from 'node:crypto';
import type { Backend, BrokerKind, Plan, StoreContext } from './types.js';
import { randomSecret } from './secrets.js';

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
  name: string;
  plan: Plan;
  backend: Backend;
  private key: string;
  private password: string;
  private readonly user: string;
  private readonly host: string;
  private readonly database: string;

  constructor(
    init: InstanceInit,
    readonly ctx: StoreContext,
  ) {
    this.id = init.id;
    this.accountId = init.accountId;
    this.name = init.name;
    this.plan = init.plan;
    this.backend = init.backend;
    this.region = init.region;
    this.pgVersion = init.pgVersion;
    this.teamEmail = init.teamEmail;
    this.createdAt = init.createdAt;
    this.readyAt = init.readyAt;
    this.providerid = init.providerid ?? randomUUID();
    this.key = init.apikey ?? randomSecret(36);
    this.password = init.password ?? randomSecret(24);
    this.user = `u${this.providerid.slice(0, 8)}`;
    const [, region = 'local'] = init.region.split('::');
    this.host = `pg-${this.providerid.slice(0, 8)}.${region}.db.tusk.example`;
    this.database = `db${init.id}`;
    ctx.keys.addInstanceKey(this.key, this.accountId, this.id);
  }

  get apikey(): string {
    return this.key;
  }

  get ready(): boolean {
    return this.ctx.clock.now() >= this.readyAt;
  }

  /** `postgres://<user>:<password>@<host>:<port>/<database>` */
  get url(): string {
    return `postgres://${this.user}:${this.password}@${this.host}:5432/${this.database}`;
  }

  /** The broker kind of the spec's metrics availability table, from the backend and its version. */
  get brokerKind(): BrokerKind {
    if (this.backend.kind === 'alternative') return 'alternative';
    const [major = 0, minor = 0] = this.backend.version.split('.').map(Number);
    return major > 4 || (major === 4 && minor >= 2) ? 'primary_from_4_2' : 'primary_below_4_2';
  }

  /** Moves the instance to another plan (and that plan's backend). */
  changePlan(plan: Plan, backend: Backend): void {
    this.plan = plan;
    this.backend = backend;
  }

  /** Issues a new instance key; the old one is revoked at once. */
  rotateApiKey(): string {
    this.ctx.keys.revoke(this.key);
    this.key = randomSecret(36);
    this.ctx.keys.addInstanceKey(this.key, this.accountId, this.id);
    return this.key;
  }

  /** Gives the instance user a new password (visible in `url`). */
  rotatePassword(): void {
    this.password = randomSecret(24);
  }

  /** Revokes the key; the account drops the store. */
  destroy(): void {
    this.ctx.keys.revoke(this.key);
  }

  // ---- per-instance interface state: recipients, alarms, integrations, backups, maintenance ----
}
