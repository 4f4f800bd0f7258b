// The registry: the home of every account (accounts/home.ts: records, clock, outbox view, faults,
// journal and coverage, reached by one lookup), built from the fixtures, the index from API keys to
// the homes they open, and what the server keeps beside them (its clock, outbox, fault rules,
// request journal and API coverage). There is no module-level state: a server owns one registry,
// and reset() builds new homes from the same fixtures. dump() / load() write and take over
// the whole state (see domain/state.ts); the key index is rebuilt from the records.
import { buildFixtures, type AccountFixture, type Fixtures } from '../../fixtures/index.js';
import { VirtualClock } from '../domain/clock.js';
import type { Outbox } from '../domain/outbox.js';
import type { StoreContext } from '../domain/types.js';
import type { CustomerPrincipal, InstancePrincipal } from '../resources/env.js';
export type { CustomerPrincipal, InstancePrincipal };
import type { CoverageRecorder } from '../openapi/coverage-recorder.js';
import { STATE_VERSION, StateError, type AccountDump, type RegistryState } from '../domain/state.js';
import { ApiKeyIndex } from './keys.js';
import { AccountHome, dropReplaced, type HomeShared } from './home.js';
import type { Faults } from '../domain/fault-rules.js';
import type { RequestJournal } from '../domain/journal.js';
import { serverParts, type RegistryOptions } from './server-parts.js';

export type { RegistryOptions } from './server-parts.js';

export class Registry {
  readonly clock: VirtualClock;
  readonly outbox: Outbox;
  readonly context: StoreContext;
  /** The server's fault rules, which every request meets (an account's own are in its home). */
  readonly faults: Faults;
  /** The last requests of every account (and of none), each home reads its own. */
  readonly journal: RequestJournal;
  /** What the clients' requests exercised, per account (each home reads its own) and summed. */
  readonly coverage: CoverageRecorder;
  private readonly shared: HomeShared;
  private fixtures!: Fixtures;
  private homes = new Map<string, AccountHome>();
  private readonly keys = new ApiKeyIndex(); // every key the stores handed out, and what it opens
  /** The fixtures of the accounts added since the last reset (resetAccount() builds them anew). */
  private added = new Map<string, AccountFixture>();
  private accountFaults = new Set<Faults>(); // the homes' own rules (no lookup while none has any)

  readonly options: RegistryOptions;
  /** How background work's announcements become changes of an account: at once; a team's replica makes them writes. */
  settle = (_id: string, apply: () => void): void => apply();

  constructor(options: RegistryOptions) {
    this.options = { ...options };
    this.clock = options.clock ?? new VirtualClock();
    const parts = serverParts(this.options, this.clock, this.keys, {
      accountClock: (id) => this.homes.get(id)?.clock,
      madeFaults: (faults) => this.accountFaults.add(faults),
      settle: (id, apply) => this.settle(id, apply),
    });
    ({ outbox: this.outbox, context: this.context, faults: this.faults } = parts);
    ({ journal: this.journal, coverage: this.coverage, shared: this.shared } = parts);
    this.reset({ initial: true });
  }

  /**
   * Throws away every home (added accounts included, with their clocks and faults) and the
   * outbox's entries, and builds the homes anew from the seeded fixtures, dated from the clock's
   * now. The server's clock, fault rules, journal and coverage are left as they are.
   */
  reset(options: { initial?: boolean } = {}): void {
    this.fixtures = buildFixtures(this.options, this.clock.now());
    // The engine's databases go with the stores; the stores built next provision their own. At
    // start-up only what no instance has goes (a kept data directory holds the instances of the
    // state file loaded next; the set is read when the step runs).
    if (options.initial) this.dropUnused();
    else this.context.databases?.dropAll();
    this.homes = new Map();
    this.added = new Map();
    this.keys.clear();
    this.accountFaults = new Set();
    for (const account of this.fixtures.accounts)
      this.homes.set(account.id, AccountHome.fromFixture(account, this.fixtures.catalogue, this.shared));
    this.outbox.clear();
  }

  /** The fixture seed reset() builds from. */
  get seed(): number {
    return this.options.seed;
  }

  /** Resets to the fixtures of another seed (which later resets keep). */
  reseed(seed: number): void {
    if (!Number.isSafeInteger(seed) || seed < 0)
      throw new RangeError(`the seed must be a non-negative integer, got ${seed}`);
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
  addAccount(fixture: AccountFixture): AccountHome {
    if (this.homes.has(fixture.id)) throw new Error(`an account with id ${fixture.id} exists`);
    const taken = [...fixture.keys.map((k) => k.key), ...fixture.instances.map((x) => x.apikey)].filter((k) =>
      this.keys.has(k),
    );
    if (taken.length) throw new Error('the new account reuses API keys of another account');
    this.options.validate?.({ catalogue: this.fixtures.catalogue, accounts: [fixture] });
    const home = AccountHome.fromFixture(fixture, this.fixtures.catalogue, this.shared);
    this.homes.set(home.id, home);
    this.added.set(home.id, structuredClone(fixture));
    return home;
  }

  /**
   * Resets one account and nothing else: the seeded account to its seeded state (dated from the
   * account clock's now), an account added through the control plane to what it was when created
   * (empty). Its keys, its outbox entries and its instances' databases go with its old records;
   * its home keeps the rest (AccountHome.reset). Throws for an unknown account, or for one that
   * came with a loaded state (no fixture to build it from).
   */
  resetAccount(id: string): AccountHome {
    const home = this.homes.get(id);
    if (!home) throw new StateError([`no account has id ${id}`]);
    const saved = this.added.get(id);
    const fixture =
      (saved && structuredClone(saved)) ??
      buildFixtures(this.options, home.clock.now()).accounts.find((a) => a.id === id);
    if (!fixture)
      throw new StateError([
        `account ${id} came with a loaded state: it has no seeded or created form to reset to (reset the whole server instead)`,
      ]);
    this.keys.forgetAccount(id);
    home.reset(fixture, this.fixtures.catalogue);
    return home;
  }

  /** The whole state as plain JSON: the seed, the clock, the outbox and every account. */
  dump(): RegistryState {
    return {
      tusk_state: STATE_VERSION,
      seed: this.options.seed,
      clock: this.clock.toJSON(),
      outbox: this.outbox.toJSON(),
      accounts: [...this.homes.values()].map((h) => h.toJSON()),
    };
  }

  /**
   * Replaces account `id` with a dump checked whole by src/control/state-check.ts (its shape, and
   * the whole state with it in place of the account's). Every other account is untouched. Throws a
   * StateError, and changes nothing, only when the records cannot be built.
   */
  loadAccount(id: string, dump: AccountDump): AccountHome {
    const home = this.homes.get(id);
    if (!home) throw new StateError([`no account has id ${id}`]);
    const keys = this.keys.save();
    this.keys.forgetAccount(id);
    const old = home.records;
    try {
      home.load(dump, this.fixtures.catalogue);
    } catch (err) {
      this.keys.putBack(keys);
      throw new StateError([{ field: 'account', rule: 'state', message: (err as Error).message }]);
    }
    this.added.delete(id); // no seeded or created form to reset it to any more
    dropReplaced(this.context.databases, [old], [dump.account]);
    this.dropUnused();
    return home;
  }

  /** A team's replica (src/replicas/) takes over an account as another wrote it: replaced, or made when new here. */
  putAccount(dump: AccountDump): AccountHome {
    const id = dump.account.id;
    if (this.homes.has(id)) return this.loadAccount(id, dump);
    const home = AccountHome.fromState(dump.account, this.fixtures.catalogue, this.shared);
    this.homes.set(id, home);
    this.outbox.adopt(id, dump.outbox.entries);
    return home;
  }

  /** The fixture an account created through the control plane was made from (a reset builds it again). */
  addedFixture(id: string): AccountFixture | undefined {
    return this.added.get(id);
  }

  /** Remembers what account `id` was created from (a team's replica that loaded it). */
  setAddedFixture(id: string, fixture: AccountFixture): void {
    this.added.set(id, structuredClone(fixture));
  }

  /** The key an Authorization header carries (HTTP Basic or Bearer), if any. */
  keyOfHeader(header: string): string | undefined {
    return this.keys.keyOfHeader(header);
  }

  /**
   * Drops the databases no instance has (what a kept data directory holds of instances gone), but in
   * a team (options.shared): there the other replicas' instances are not all in this one's homes.
   */
  private dropUnused(): void {
    if (!this.options.shared) this.context.databases?.dropUnused();
  }

  /**
   * Takes over a state written by dump() and checked whole by src/control/state-check.ts: builds
   * every store and the key index from it and then swaps them in, with the seed, the clock and the
   * outbox. Throws a StateError, and changes nothing, only when the records cannot be built.
   */
  load(state: RegistryState): void {
    const previous = { homes: this.homes, keys: this.keys.save() };
    this.homes = new Map();
    this.keys.clear();
    try {
      for (const a of state.accounts)
        this.homes.set(a.id, AccountHome.fromState(a, this.fixtures.catalogue, this.shared));
    } catch (err) {
      this.homes = previous.homes;
      this.keys.putBack(previous.keys);
      throw new StateError([{ field: 'accounts', rule: 'state', message: (err as Error).message }]);
    }
    this.accountFaults = new Set(); // the old homes' rules went with them
    // The seed, the clock and the outbox cannot refuse what the checks let through.
    this.options.seed = state.seed;
    this.clock.load(state.clock);
    this.outbox.load(state.outbox);
    // The databases of instances the state keeps are kept (named after the providerid); the others go.
    dropReplaced(
      this.context.databases,
      [...previous.homes.values()].map((h) => h.records),
      state.accounts,
    );
    this.dropUnused();
  }

  /**
   * Runs what the clock makes due: the alarms that fire (resources/alarms/monitor.ts), then the
   * outbox's due deliveries. Called every 100 ms by startTusk and after every clock move.
   */
  tick(): void {
    for (const home of this.homes.values()) home.evaluateAlarms();
    this.outbox.tick();
  }

  get catalogue(): Fixtures['catalogue'] {
    return this.fixtures.catalogue;
  }

  /** The seeded account's admin key (printed at start-up). */
  get adminKey(): string {
    return this.options.adminKey;
  }

  /** The home of account `id`. */
  home(id: string): AccountHome | undefined {
    return this.homes.get(id);
  }

  /** Every account's home. */
  allHomes(): IterableIterator<AccountHome> {
    return this.homes.values();
  }

  /** The home of the account a key (customer or instance) belongs to; undefined for a wrong or revoked key. */
  homeOfKey(key: string): AccountHome | undefined {
    const t = this.keys.lookup(key);
    return t && this.homes.get(t.accountId);
  }

  /** The home of the account whose key an Authorization header (HTTP Basic or Bearer) carries, if any. */
  homeOfHeader(header: string | null | undefined): AccountHome | undefined {
    if (!header) return undefined;
    const key = this.keys.keyOfHeader(header);
    return key ? this.homeOfKey(key) : undefined;
  }

  /** Whether any account has fault rules of its own in force (when none, requests need not look for them). */
  get accountFaultsActive(): boolean {
    for (const f of this.accountFaults) if (f.active) return true;
    return false;
  }

  /** The home and key record a customer key opens; undefined for a wrong, revoked or instance key. */
  authenticateCustomer(key: string): CustomerPrincipal | undefined {
    const t = this.keys.lookup(key);
    if (t?.kind !== 'customer') return undefined;
    const home = this.homes.get(t.accountId);
    const record = home?.records.apiKey(t.keyId);
    return home && record ? { kind: 'customer', account: home.records, key: record } : undefined;
  }

  /** The home and instance an instance key opens; undefined for a wrong, revoked or customer key. */
  authenticateInstance(key: string): InstancePrincipal | undefined {
    const t = this.keys.lookup(key);
    if (t?.kind !== 'instance') return undefined;
    const home = this.homes.get(t.accountId);
    const instance = home?.records.instanceStore(t.instanceId);
    return home && instance ? { kind: 'instance', account: home.records, instance } : undefined;
  }
}
