// One home per account (src/accounts/home.ts): everything kept for an account is reached through it,
// found by one lookup from a key, and it is created, reset, dumped and loaded as one.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { readOperations, type OperationInfo } from '../../src/openapi/operations.js';
import { readContractRules, type ContractRules } from '../../src/openapi/rules.js';
import { Registry } from '../../src/accounts/registry.js';
import { VirtualClock } from '../../src/domain/clock.js';
import { freshAccount } from '../../src/control/accounts.js';
import { loadStateParts, loadAccountParts } from '../../src/control/state-check.js';

const NOW = Date.UTC(2026, 10, 21, 13, 30, 0);
const ADMIN_KEY = 'tusk-admin-key';
const DEDICATED = { name: 'orders-db', plan: 'hippo', region: 'amazon-web-services::us-east-1' };

let rules: ContractRules;
let operations: OperationInfo[];
beforeAll(async () => {
  const docs = await loadDocuments();
  rules = readContractRules(docs.instance);
  operations = [...readOperations('customer', docs.customer), ...readOperations('instance', docs.instance)];
});

let clock: VirtualClock;
let registry: Registry;
beforeEach(() => {
  clock = new VirtualClock();
  clock.pin(NOW);
  registry = new Registry({ seed: 1, adminKey: ADMIN_KEY, clock, rules, operations });
});

/** A fresh account with one instance made through its admin key; its home and keys. */
function account() {
  const { fixture, keys } = freshAccount();
  const home = registry.addAccount(fixture);
  const admin = home.records.apiKey(fixture.keys.find((k) => k.key === keys.admin)!.id)!;
  const created = home.records.instances.create(DEDICATED, admin);
  return { home, keys, created };
}

describe('AccountHome: one lookup from a key', () => {
  it('finds the same home from a customer key, an instance key and an Authorization header, and none from a wrong key', () => {
    const { home, keys, created } = account();
    expect(registry.homeOfKey(keys.admin)).toBe(home);
    expect(registry.homeOfKey(created.apikey)).toBe(home);
    expect(registry.homeOfHeader(`Basic ${Buffer.from(`:${keys.monitor}`).toString('base64')}`)).toBe(home);
    expect(registry.authenticateCustomer(keys.admin)?.account).toBe(home.records);
    expect(registry.authenticateInstance(created.apikey)?.account).toBe(home.records);
    expect(registry.homeOfKey('no-such-key')).toBeUndefined();
    expect(registry.homeOfHeader(undefined)).toBeUndefined();
    expect(registry.homeOfKey(ADMIN_KEY)).not.toBe(home);
  });
});

describe('AccountHome: what it holds', () => {
  it("holds its own clock, which its stores read and which moves without the server's", () => {
    const { home } = account();
    home.clock.advance(3_600_000);
    expect(home.clock.now()).toBe(NOW + 3_600_000);
    expect(home.context.clock).toBe(home.clock);
    expect(registry.clock.now()).toBe(NOW);
    expect(registry.home(registry.homeOfKey(ADMIN_KEY)!.id)!.clock.now()).toBe(NOW);
  });

  it("holds its fault rules apart from the server's and from every other account's", () => {
    const a = account().home;
    const b = account().home;
    expect(a.faults).toBeUndefined();
    expect(registry.accountFaultsActive).toBe(false);
    a.faultsToSet().set(['listAlarms:error=500']);
    expect(a.faults?.list()).toStrictEqual([{ operation: 'listAlarms', error: { status: 500, rate: 1 } }]);
    expect(a.faultsToSet()).toBe(a.faults);
    expect(b.faults).toBeUndefined();
    expect(registry.faults.list()).toStrictEqual([]);
    expect(registry.accountFaultsActive).toBe(true);
    a.faults!.clear();
    expect(registry.accountFaultsActive).toBe(false);
  });

  it("reads its own outbox entries, requests and coverage, never another account's", () => {
    const a = account().home;
    const b = account().home;
    a.context.outbox.schedule({ event: 'backup', target: 'http://a.example/cb', body: {} });
    registry.journal.record({
      at: NOW,
      api: 'customer',
      method: 'GET',
      path: '/api/instances',
      status: 200,
      ms: 1,
      account: a.id,
    });
    registry.journal.record({
      at: NOW,
      api: 'customer',
      method: 'GET',
      path: '/api/team',
      status: 200,
      ms: 1,
      account: b.id,
    });
    registry.coverage.record('customer', 'listInstances', 200, a.id);
    expect(a.outbox().map((e) => e.target)).toStrictEqual(['http://a.example/cb']);
    expect(b.outbox()).toStrictEqual([]);
    expect(a.requests().map((e) => e.path)).toStrictEqual(['/api/instances']);
    expect(b.requests().map((e) => e.path)).toStrictEqual(['/api/team']);
    expect(a.coverage().requests).toBe(1);
    expect(
      a.coverage().interfaces.customer.by_operation.find((o) => o.operation_id === 'listInstances')?.statuses,
    ).toContainEqual({ status: '200', count: 1 });
    expect(b.coverage().requests).toBe(0);
    a.clearRequests();
    a.clearCoverage();
    expect(a.requests()).toStrictEqual([]);
    expect(a.coverage().requests).toBe(0);
    expect(b.requests()).toHaveLength(1);
  });
});

describe('AccountHome: reset, dump and load as one', () => {
  it('an account reset makes new records and drops its outbox entries, and keeps its clock and faults', () => {
    const { home, created } = account();
    home.clock.advance(60_000);
    home.faultsToSet().set(['*:latency=1ms']);
    home.context.outbox.schedule({ event: 'backup', target: 'http://a.example/cb', body: {} });
    const before = home.records;
    expect(registry.resetAccount(home.id)).toBe(home);
    expect(home.records).not.toBe(before);
    expect(home.records.instanceStore(created.id)).toBeUndefined();
    expect(home.outbox()).toStrictEqual([]);
    expect(home.clock.now()).toBe(NOW + 60_000);
    expect(home.faults?.list()).toStrictEqual([{ latency: '1ms' }]);
    expect(registry.homeOfKey(created.apikey)).toBeUndefined();
  });

  it('a dump holds its records, its own clock and its outbox entries, and loading it gives them back', () => {
    const { home, created } = account();
    home.clock.advance(60_000);
    home.context.outbox.schedule({ event: 'backup', target: 'http://a.example/cb', body: { n: 1 } });
    const dump = home.dump();
    expect(dump.account.id).toBe(home.id);
    expect(dump.account.clock).toStrictEqual(home.clock.toJSON());
    expect(dump.outbox.entries.map((e) => e.body)).toStrictEqual([{ n: 1 }]);
    registry.resetAccount(home.id);
    home.clock.advance(60_000);
    loadAccountParts(registry, home.id, dump);
    expect(home.records.instanceStore(created.id)?.name).toBe('orders-db');
    expect(home.clock.now()).toBe(NOW + 60_000);
    expect(home.outbox().map((e) => e.body)).toStrictEqual([{ n: 1 }]);
    expect(registry.homeOfKey(created.apikey)).toBe(home);
  });

  it("a server reset or load makes new homes: the accounts' own faults and clocks go with the old ones", () => {
    const { home } = account();
    home.faultsToSet().set(['*:latency=1ms']);
    const seeded = registry.homeOfKey(ADMIN_KEY)!;
    seeded.clock.advance(60_000);
    const state = registry.dump();
    loadStateParts(registry, state);
    expect(registry.home(home.id)).not.toBe(home);
    expect(registry.home(home.id)!.faults).toBeUndefined();
    expect(registry.home(seeded.id)!.clock.now()).toBe(NOW + 60_000); // the clock is part of the state
    expect(registry.accountFaultsActive).toBe(false);
    registry.reset();
    expect(registry.home(home.id)).toBeUndefined();
    expect(registry.home(seeded.id)).not.toBe(seeded);
    expect(registry.home(seeded.id)!.clock.now()).toBe(NOW);
  });
});
