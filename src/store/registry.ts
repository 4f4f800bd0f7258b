// The registry holds one AccountStore per account, built from the fixtures, and the index from API
// keys to what they open. There is no module-level state: a server owns one registry, and reset()
// builds new stores from the same fixtures.
import { createHash, timingSafeEqual } from 'node:crypto';
import { buildFixtures, type Fixtures, type FixtureOptions } from '../../fixtures/index.js';
import { AccountStore } from './account.js';
import type { InstanceStore } from './instance.js';
import { VirtualClock } from './clock.js';
import { Outbox, type OutboxOptions } from './outbox.js';
import type { ApiKeyRecord, KeyIndex, StoreContext } from './types.js';
import type { ContractRules } from '../openapi/rules.js';

export interface RegistryOptions extends FixtureOptions {
  /** Rules read from the instance document (readContractRules). */
  rules: ContractRules;
  provisionDelayMs?: number;
  backupDelayMs?: number;
  restoreDelayMs?: number;
  clock?: VirtualClock;
  outbox?: Omit<OutboxOptions, 'clock'>;
}

export interface CustomerPrincipal {
  kind: 'customer';
  account: AccountStore;
  key: ApiKeyRecord;
}

export interface InstancePrincipal {
  kind: 'instance';
  account: AccountStore;
  instance: InstanceStore;
}

type KeyTarget = { kind: 'customer'; accountId: string; keyId: string } | { kind: 'instance'; accountId: string; instanceId: number };

/** Keys are indexed by their SHA-256, and the stored key is compared in constant time. */
const digest = (key: string) => createHash('sha256').update(key).digest('base64');

export class Registry implements KeyIndex {
  readonly clock: VirtualClock;
  readonly outbox: Outbox;
  readonly context: StoreContext;
  private fixtures!: Fixtures;
  private accounts = new Map<string, AccountStore>();
  private keys = new Map<string, { key: string; target: KeyTarget }>();

  constructor(readonly options: RegistryOptions) {
    this.clock = options.clock ?? new VirtualClock();
    this.outbox = new Outbox({ clock: this.clock, ...options.outbox });
    this.context = {
      clock: this.clock,
      keys: this,
      outbox: this.outbox,
      provisionDelayMs: options.provisionDelayMs ?? 0,
      backupDelayMs: options.backupDelayMs ?? 5_000,
      restoreDelayMs: options.restoreDelayMs ?? 5_000,
      rules: options.rules,
    };
    this.reset();
  }

  /** Throws away every store and builds them anew from the seeded fixtures. */
  reset(): void {
    this.fixtures = buildFixtures(this.options, this.clock.now());
    this.accounts = new Map();
    this.keys = new Map();
    for (const account of this.fixtures.accounts) {
      this.accounts.set(account.id, new AccountStore(account, this.fixtures.catalogue, this.context));
    }
  }

  get catalogue(): Fixtures['catalogue'] {
    return this.fixtures.catalogue;
  }

  /** The seeded account's admin key (printed at start-up). */
  get adminKey(): string {
    return this.options.adminKey;
  }

  account(id: string): AccountStore | undefined {
    return this.accounts.get(id);
  }

  allAccounts(): IterableIterator<AccountStore> {
    return this.accounts.values();
  }

  // ---- KeyIndex: stores register and revoke the keys they hand out ----
  addCustomerKey(key: string, accountId: string, keyId: string): void {
    this.keys.set(digest(key), { key, target: { kind: 'customer', accountId, keyId } });
  }

  addInstanceKey(key: string, accountId: string, instanceId: number): void {
    this.keys.set(digest(key), { key, target: { kind: 'instance', accountId, instanceId } });
  }

  revoke(key: string): void {
    this.keys.delete(digest(key));
  }

  private lookup(key: string): KeyTarget | undefined {
    const entry = this.keys.get(digest(key));
    if (!entry) return undefined;
    const a = Buffer.from(entry.key);
    const b = Buffer.from(key);
    return a.length === b.length && timingSafeEqual(a, b) ? entry.target : undefined;
  }

  /** The account and key record a customer key opens; undefined for a wrong, revoked or instance key. */
  authenticateCustomer(key: string): CustomerPrincipal | undefined {
    const t = this.lookup(key);
    if (t?.kind !== 'customer') return undefined;
    const account = this.accounts.get(t.accountId);
    const record = account?.apiKey(t.keyId);
    return account && record ? { kind: 'customer', account, key: record } : undefined;
  }

  /** The instance an instance key opens; undefined for a wrong, revoked or customer key. */
  authenticateInstance(key: string): InstancePrincipal | undefined {
    const t = this.lookup(key);
    if (t?.kind !== 'instance') return undefined;
    const account = this.accounts.get(t.accountId);
    const instance = account?.instanceStore(t.instanceId);
    return account && instance ? { kind: 'instance', account, instance } : undefined;
  }
}
