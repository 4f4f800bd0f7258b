// One account's home: everything Tusk keeps for one account, reached by one lookup from a key
// (Registry.homeOfKey, Registry.homeOfHeader) or an id (Registry.home). It holds the account's
// records (AccountStore: team, keys, instances and, through them, the references to their
// databases), its clock, its view of the outbox, its injected faults, and its part of the request
// journal and of the API coverage. It is created, reset, dumped and loaded as one:
//   created   by the registry from a fixture (seeded, or POST /__tusk/accounts) or a loaded state;
//   reset     (POST /__tusk/reset for the account): new records from the fixture, its outbox
//             entries and its instances' databases gone; its clock, faults, journal and coverage
//             kept (they are the controls' settings and observations, not the account's data);
//   dumped    (GET /__tusk/state for the account): records, clock and outbox entries;
//   loaded    (PUT /__tusk/state for the account): the same, after the registry's checks.
// A reset or load of the whole server makes new homes (the account's faults go with the old one).
import type { AccountFixture, Catalogue } from '../../fixtures/index.js';
import { AccountStore } from '../resources/account.js';
import { AccountClock, type VirtualClock } from '../domain/clock.js';
import type { Faults } from '../domain/fault-rules.js';

import type { JournalEntry, RequestJournal } from '../domain/journal.js';
import type { Outbox, OutboxEntry } from '../domain/outbox.js';
import type { CoverageRecorder, CoverageReport } from '../openapi/coverage-recorder.js';
import { STATE_VERSION, type AccountDump, type AccountState } from '../domain/state.js';
import type { StoreContext } from '../domain/types.js';
import type { DatabaseRef, InstanceDatabases } from '../databases/instance-databases.js';
import { databaseKeyOf, type InstanceStore } from '../resources/instances/instance.js';

/** What every home of one registry shares: the server's parts an account has its share of. */
export interface HomeShared {
  /** The context of the server's stores (delays, key index, secrets, databases). */
  context: StoreContext;
  serverClock: VirtualClock;
  outbox: Outbox;
  journal: RequestJournal;
  coverage: CoverageRecorder;
  /** Fault rules with none set yet, for an account setting its first. */
  makeFaults: () => Faults;
  /** Runs `apply` as a change of account `accountId` (at once; in a team, as a write of its row). */
  settle: (accountId: string, apply: () => void) => void;
}

export class AccountHome {
  /** The account's clock: the server's until the account moves its own. */
  readonly clock: AccountClock;
  /** The context of the account's stores: its clock, its view of the outbox. */
  readonly context: StoreContext;
  private current!: AccountStore;
  private ownFaults: Faults | undefined;

  private constructor(
    readonly id: string,
    private readonly shared: HomeShared,
  ) {
    this.clock = new AccountClock(shared.serverClock);
    this.context = {
      ...shared.context,
      clock: this.clock,
      outbox: shared.outbox.forAccount(id),
      // The account's records as they are when the work is done (a load may have replaced them).
      settle: (instanceId, apply) => shared.settle(id, () => apply(this.current.instanceStore(instanceId))),
    };
  }

  /** A home whose records are built from `fixture` (their keys registered with the key index). */
  static fromFixture(fixture: AccountFixture, catalogue: Catalogue, shared: HomeShared): AccountHome {
    const home = new AccountHome(fixture.id, shared);
    home.current = new AccountStore(fixture, catalogue, home.context);
    return home;
  }

  /** A home holding a dumped account (its clock included); throws when the records cannot be built. */
  static fromState(state: AccountState, catalogue: Catalogue, shared: HomeShared): AccountHome {
    const home = new AccountHome(state.id, shared);
    home.clock.load(state.clock);
    home.current = AccountStore.fromJSON(state, catalogue, home.context);
    return home;
  }

  /** The account's records: what the customer and instance interfaces show and change. */
  get records(): AccountStore {
    return this.current;
  }

  /** Every instance of the account (each holds the reference to its database). */
  instances(): IterableIterator<InstanceStore> {
    return this.current.instanceStores();
  }

  /** Evaluates the alarms of every instance at one reading of the clock; returns the notifications queued or recorded. */
  evaluateAlarms(): number {
    const now = this.clock.now();
    let sent = 0;
    for (const instance of this.instances()) sent += instance.evaluateAlarms(now);
    return sent;
  }

  /** The references to the databases of the account's instances (those that have one). */
  databaseRefs(): DatabaseRef[] {
    return [...this.instances()].flatMap((i) => (i.db ? [i.db] : []));
  }

  /**
   * Resets the records to `fixture`: the old records' databases and outbox entries go (the key
   * index is the registry's to clean). The clock, faults, journal and coverage are kept.
   */
  reset(fixture: AccountFixture, catalogue: Catalogue): void {
    for (const db of this.databaseRefs()) this.context.databases?.drop(db);
    this.shared.outbox.clear(this.id);
    this.current = new AccountStore(fixture, catalogue, this.context);
  }

  /**
   * Takes over a dump checked by the registry: records, clock and outbox entries. When building
   * the records throws, the clock is put back and nothing else has changed.
   */
  load(dump: AccountDump, catalogue: Catalogue): void {
    const before = this.clock.toJSON();
    this.clock.load(dump.account.clock);
    try {
      this.current = AccountStore.fromJSON(dump.account, catalogue, this.context);
    } catch (err) {
      this.clock.load(before);
      throw err;
    }
    this.shared.outbox.clear(this.id);
    this.shared.outbox.adopt(this.id, dump.outbox.entries);
  }

  /** The account as the state holds it: its records, with its clock when it has its own. */
  toJSON(): AccountState {
    const clock = this.clock.toJSON();
    return clock ? { ...this.current.toJSON(), clock } : this.current.toJSON();
  }

  /** The account's part of the state: the account and its outbox entries. */
  dump(): AccountDump {
    return {
      tusk_state: STATE_VERSION,
      account: this.toJSON(),
      outbox: { entries: this.outbox().map(({ account: _a, ...e }) => structuredClone(e)) },
    };
  }

  /** The callbacks and notifications the account's stores queued, oldest first. */
  outbox(): readonly OutboxEntry[] {
    return this.shared.outbox.list(this.id);
  }

  /** The fault rules the account set for its own requests, if any. */
  get faults(): Faults | undefined {
    return this.ownFaults;
  }

  /** The account's fault rules, made (empty) when it sets its first. */
  faultsToSet(): Faults {
    return (this.ownFaults ??= this.shared.makeFaults());
  }

  /** The last `limit` requests made with the account's keys, newest last. */
  requests(limit?: number): JournalEntry[] {
    return this.shared.journal.last(limit, this.id);
  }

  clearRequests(): void {
    this.shared.journal.clear(this.id);
  }

  /** What the requests made with the account's keys exercised, per operation and status. */
  coverage(): CoverageReport {
    return this.shared.coverage.report(this.id);
  }

  clearCoverage(): void {
    this.shared.coverage.clear(this.id);
  }
}

/**
 * Drops the databases of the instances of `replaced` accounts whose providerid no instance of
 * `kept` names (a load left them out). The engine keeps every database it was told of until it is
 * told to drop it: left there, with its data and its role, a later load of another account naming
 * that providerid would be handed them.
 */
export function dropReplaced(
  databases: InstanceDatabases | undefined,
  replaced: Iterable<AccountStore>,
  kept: readonly AccountState[],
): void {
  if (!databases) return;
  const keep = new Set(kept.flatMap((a) => a.instances.map((x) => databaseKeyOf(x.providerid))));
  for (const account of replaced) {
    for (const instance of account.instanceStores())
      if (instance.db && !keep.has(databaseKeyOf(instance.providerid))) databases.drop(instance.db);
  }
}
