// The registry holds one AccountStore per account, built from the fixtures, and the index from API
// keys to what they open. There is no module-level state: a server owns one registry, and reset()
// builds new stores from the same fixtures. toJSON() / restore() write and take over the whole
// state (see snapshot.ts); the key index is rebuilt from the stores.
import { hash, timingSafeEqual } from 'node:crypto';
import { buildFixtures, type AccountFixture, type Fixtures, type FixtureOptions } from '../../fixtures/index.js';
import { AccountStore } from './account.js';
import type { InstanceStore } from './instance.js';
import { AccountClock, VirtualClock } from './clock.js';
import { Outbox, type OutboxOptions } from './outbox.js';
import type { ApiKeyRecord, KeyIndex, StoreContext } from './types.js';
import type { ContractRules } from '../openapi/rules.js';
import { STATE_VERSION, StateError, type AccountDump, type AccountState, type RegistryState } from './snapshot.js';
import { databaseKeyOf } from './instance.js';
import { checkState } from './state-check.js';
import { Memo } from '../core/memo.js';
import { SecretSource } from './secrets.js';
import type { InstanceDatabases } from '../databases/databases.js';

export interface RegistryOptions extends FixtureOptions {
  /** Rules read from the instance document (readContractRules). */
  rules: ContractRules;
  provisionDelayMs?: number;
  backupDelayMs?: number;
  restoreDelayMs?: number;
  clock?: VirtualClock;
  outbox?: Omit<OutboxOptions, 'clock'>;
  /** The real databases behind the instances (src/databases/); absent: records only. */
  databases?: InstanceDatabases;
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
const digest = (key: string) => hash('sha256', key, 'base64');

export class Registry implements KeyIndex {
  readonly clock: VirtualClock;
  readonly outbox: Outbox;
  readonly context: StoreContext;
  private fixtures!: Fixtures;
  private accounts = new Map<string, AccountStore>();
  private keys = new Map<string, { key: Buffer; target: KeyTarget }>();
  /** The digests of the keys clients sent lately (a digest never changes; revoking removes the key from `keys`). */
  private readonly digests = new Memo<string>({ size: 10_000 });
  private readonly tickListeners: (() => void)[] = [];
  /** The fixtures of the accounts added since the last reset (resetAccount() builds them anew). */
  private added = new Map<string, AccountFixture>();
  /** Each account's clock: the server's until the account moves its own (kept across resetAccount()). */
  private clocks = new Map<string, AccountClock>();

  readonly options: RegistryOptions;

  constructor(options: RegistryOptions) {
    this.options = { ...options };
    this.clock = options.clock ?? new VirtualClock();
    this.outbox = new Outbox({ clock: this.clock, clockOf: (id) => this.clocks.get(id), ...options.outbox });
    this.context = {
      clock: this.clock,
      keys: this,
      outbox: this.outbox,
      provisionDelayMs: options.provisionDelayMs ?? 0,
      backupDelayMs: options.backupDelayMs ?? 5_000,
      restoreDelayMs: options.restoreDelayMs ?? 5_000,
      rules: options.rules,
      secrets: new SecretSource(),
      ...(options.databases ? { databases: options.databases } : {}),
    };
    this.reset({ initial: true });
    // Alarms that fire: every tick triggers what the clock has made due (instance-monitor.ts).
    this.onTick(() => this.evaluateAlarms());
  }

  /** Evaluates the alarms of every instance; returns the number of notifications queued or recorded. */
  evaluateAlarms(): number {
    let sent = 0;
    for (const account of this.accounts.values()) {
      const now = account.ctx.clock.now(); // one reading per account (a tick visits every instance)
      for (const instance of account.instanceStores()) sent += instance.evaluateAlarms(now);
    }
    return sent;
  }

  /** The context of account `id`'s stores: its own clock (made on first use) and its view of the outbox. */
  private contextFor(id: string): StoreContext {
    let clock = this.clocks.get(id);
    if (!clock) this.clocks.set(id, (clock = new AccountClock(this.clock)));
    return { ...this.context, clock, outbox: this.outbox.forAccount(id) };
  }

  /** The clock of account `id` (undefined for an unknown account). */
  accountClock(id: string): AccountClock | undefined {
    return this.accounts.has(id) ? this.clocks.get(id) : undefined;
  }

  /**
   * Throws away every store (added accounts included) and the outbox's entries, and builds the
   * stores anew from the seeded fixtures, dated from the clock's now. The clock is left as it is.
   */
  reset(options: { initial?: boolean } = {}): void {
    this.fixtures = buildFixtures(this.options, this.clock.now());
    // The engine's databases go with the stores; the stores built next provision their own. At
    // start-up only what no instance has goes (a kept data directory holds the instances of the
    // state file loaded next; the set is read when the step runs).
    if (options.initial) this.context.databases?.dropUnused();
    else this.context.databases?.dropAll();
    this.accounts = new Map();
    this.added = new Map();
    this.keys = new Map();
    this.clocks = new Map();
    for (const account of this.fixtures.accounts) {
      this.accounts.set(account.id, new AccountStore(account, this.fixtures.catalogue, this.contextFor(account.id)));
    }
    this.outbox.clear();
  }

  /** The fixture seed reset() builds from. */
  get seed(): number {
    return this.options.seed;
  }

  /** Resets to the fixtures of another seed (which later resets keep). */
  reseed(seed: number): void {
    if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`the seed must be a non-negative integer, got ${seed}`);
    const previous = this.options.seed;
    this.options.seed = seed;
    try {
      this.reset();
    } catch (err) {
      this.options.seed = previous;
      throw err;
    }
  }

  /**
   * Adds an account built from `fixture` (validated like the seeded ones). Its keys must be new.
   * reset() drops it.
   */
  addAccount(fixture: AccountFixture): AccountStore {
    if (this.accounts.has(fixture.id)) throw new Error(`an account with id ${fixture.id} exists`);
    const taken = [...fixture.keys.map((k) => k.key), ...fixture.instances.map((x) => x.apikey)].filter((k) => this.keys.has(digest(k)));
    if (taken.length) throw new Error('the new account reuses API keys of another account');
    this.options.validate?.({ catalogue: this.fixtures.catalogue, accounts: [fixture] });
    const account = new AccountStore(fixture, this.fixtures.catalogue, this.contextFor(fixture.id));
    this.accounts.set(account.id, account);
    this.added.set(account.id, structuredClone(fixture));
    return account;
  }

  /**
   * Resets one account and nothing else: the seeded account to its seeded state (dated from the
   * account clock's now), an account added through the control plane to what it was when created
   * (empty). Its keys, its outbox entries and its instances' databases go with its old store; its
   * clock keeps its time (as reset() keeps the server's). Throws for an unknown account, or for one
   * that came with a loaded state (no fixture to build it from).
   */
  resetAccount(id: string): AccountStore {
    const old = this.accounts.get(id);
    if (!old) throw new StateError([`no account has id ${id}`]);
    const saved = this.added.get(id);
    const fixture = (saved && structuredClone(saved)) ?? buildFixtures(this.options, old.ctx.clock.now()).accounts.find((a) => a.id === id);
    if (!fixture) throw new StateError([`account ${id} came with a loaded state: it has no seeded or created form to reset to (reset the whole server instead)`]);
    for (const [d, entry] of this.keys) if (entry.target.accountId === id) this.keys.delete(d);
    for (const instance of old.instanceStores()) if (instance.db) this.context.databases?.drop(instance.db);
    this.outbox.clear(id);
    const account = new AccountStore(fixture, this.fixtures.catalogue, old.ctx);
    this.accounts.set(id, account);
    return account;
  }

  /** The whole state as plain JSON: the seed, the clock, the outbox and every account. */
  toJSON(): RegistryState {
    return {
      tusk_state: STATE_VERSION,
      seed: this.options.seed,
      clock: this.clock.toJSON(),
      outbox: this.outbox.toJSON(),
      accounts: [...this.accounts.values()].map((a) => {
        const clock = this.clocks.get(a.id)?.toJSON();
        return clock ? { ...a.toJSON(), clock } : a.toJSON();
      }),
    };
  }

  /** One account's part of the state: the account (with its clock when it has its own) and its outbox entries. */
  accountState(id: string): AccountDump {
    const account = this.accounts.get(id);
    if (!account) throw new StateError([`no account has id ${id}`]);
    const clock = this.clocks.get(id)?.toJSON();
    return {
      tusk_state: STATE_VERSION,
      account: clock ? { ...account.toJSON(), clock } : account.toJSON(),
      outbox: { entries: this.outbox.list(id).map(({ account: _a, ...e }) => structuredClone(e)) },
    };
  }

  /**
   * Replaces account `id` with a dump written by accountState() (its shape already checked): the
   * whole state with that account replaced must pass the checks restore() makes (no key or
   * providerid of another account, ids in order, catalogue plans and regions, its clock within
   * range). Every other account is untouched. Throws a StateError naming the problems and changes
   * nothing when it cannot: the checks come before the first change.
   */
  restoreAccount(id: string, dump: AccountDump): AccountStore {
    const old = this.accounts.get(id);
    if (!old) throw new StateError([`no account has id ${id}`]);
    if (dump.account.id !== id) throw new StateError([{ field: 'account.id', rule: 'same-account', message: `the dump is of account ${dump.account.id}, not ${id}` }]);
    // Checked as the last account of the whole state, so that what it shares with another account
    // is named in its own dump (and the other account is not named).
    const whole = this.toJSON();
    const others = whole.accounts.filter((a) => a.id !== id);
    whole.accounts = [...others, dump.account];
    const problems = checkState(whole, this.fixtures.catalogue, { scoped: others.length });
    if (problems.length) throw new StateError(problems);
    const keys = new Map(this.keys);
    for (const [d, entry] of this.keys) if (entry.target.accountId === id) this.keys.delete(d);
    const clock = old.ctx.clock as AccountClock;
    const before = clock.toJSON();
    let account: AccountStore;
    try {
      clock.restore(dump.account.clock);
      account = AccountStore.fromJSON(dump.account, this.fixtures.catalogue, old.ctx);
    } catch (err) {
      this.keys = keys;
      clock.restore(before);
      throw new StateError([{ field: 'account', rule: 'state', message: (err as Error).message }]);
    }
    this.accounts.set(id, account);
    this.added.delete(id); // no seeded or created form to reset it to any more
    this.outbox.clear(id);
    this.outbox.adopt(id, dump.outbox.entries);
    this.dropReplaced([old], [dump.account]);
    this.context.databases?.dropUnused();
    return account;
  }

  /**
   * Drops the databases of the instances of `replaced` accounts whose providerid no instance of
   * `kept` names (a load left them out). The engine keeps every database it was told of until it is
   * told to drop it: left there, with its data and its role, a later load of another account naming
   * that providerid would be handed them (issue 31).
   */
  private dropReplaced(replaced: Iterable<AccountStore>, kept: readonly AccountState[]): void {
    const databases = this.context.databases;
    if (!databases) return;
    const keep = new Set(kept.flatMap((a) => a.instances.map((x) => databaseKeyOf(x.providerid))));
    for (const account of replaced) {
      for (const instance of account.instanceStores()) if (instance.db && !keep.has(databaseKeyOf(instance.providerid))) databases.drop(instance.db);
    }
  }

  /**
   * Takes over a state written by toJSON() (its shape already checked against the State schema,
   * see src/control/state.ts): checks that its parts agree with each other and with the catalogue
   * (state-check.ts), builds every store and the key index from it and then swaps them in, with the
   * seed, the clock and the outbox. Throws a StateError naming the problems and changes nothing
   * when it cannot: the checks come before the first change.
   */
  restore(state: RegistryState): void {
    const problems = checkState(state, this.fixtures.catalogue);
    if (problems.length) throw new StateError(problems);
    const previous = { accounts: this.accounts, keys: this.keys, clocks: this.clocks };
    this.accounts = new Map();
    this.keys = new Map();
    this.clocks = new Map();
    try {
      for (const a of state.accounts) {
        const ctx = this.contextFor(a.id);
        (ctx.clock as AccountClock).restore(a.clock);
        this.accounts.set(a.id, AccountStore.fromJSON(a, this.fixtures.catalogue, ctx));
      }
    } catch (err) {
      this.accounts = previous.accounts;
      this.keys = previous.keys;
      this.clocks = previous.clocks;
      throw new StateError([{ field: 'accounts', rule: 'state', message: (err as Error).message }]);
    }
    // The seed, the clock and the outbox cannot refuse what checkState() let through.
    this.options.seed = state.seed;
    this.clock.restore(state.clock);
    this.outbox.restore(state.outbox);
    // The databases of instances the state keeps are kept (a database is named after its
    // instance's providerid); the others go.
    this.dropReplaced(previous.accounts.values(), state.accounts);
    this.context.databases?.dropUnused();
  }

  /** A registry with `options` that holds `state` (see restore()). */
  static fromJSON(state: RegistryState, options: RegistryOptions): Registry {
    const registry = new Registry(options);
    registry.restore(state);
    return registry;
  }

  /**
   * Runs what the clock makes due: every listener registered with onTick() (e.g. alarm evaluation),
   * then the outbox's due deliveries. Called every 100 ms by startTusk and after every clock move.
   */
  tick(): void {
    for (const listener of this.tickListeners) listener();
    this.outbox.tick();
  }

  /** Registers a listener run on every tick(); returns a function that removes it. */
  onTick(listener: () => void): () => void {
    this.tickListeners.push(listener);
    return () => {
      const i = this.tickListeners.indexOf(listener);
      if (i >= 0) this.tickListeners.splice(i, 1);
    };
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
    this.keys.set(digest(key), { key: Buffer.from(key), target: { kind: 'customer', accountId, keyId } });
  }

  addInstanceKey(key: string, accountId: string, instanceId: number): void {
    this.keys.set(digest(key), { key: Buffer.from(key), target: { kind: 'instance', accountId, instanceId } });
  }

  revoke(key: string): void {
    this.keys.delete(digest(key));
  }

  private lookup(key: string): KeyTarget | undefined {
    const entry = this.keys.get(this.digests.get(key, digest));
    if (!entry) return undefined;
    const given = Buffer.from(key);
    return entry.key.length === given.length && timingSafeEqual(entry.key, given) ? entry.target : undefined;
  }

  /** The id of the account a key (customer or instance) belongs to; undefined for a wrong or revoked key. */
  accountOfKey(key: string): string | undefined {
    const t = this.lookup(key);
    return t && this.accounts.has(t.accountId) ? t.accountId : undefined;
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
