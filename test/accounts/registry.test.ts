// Registry: the key index, reseed, addAccount, ticks, and the consistency checks of restore()
// (src/accounts/registry.ts). The state round trip through the control API is in test/control/state-round-trip.test.ts.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { readContractRules, type ContractRules } from '../../src/openapi/rules.js';
import { Registry, type RegistryOptions } from '../../src/accounts/registry.js';
import { VirtualClock } from '../../src/domain/clock.js';
import { StateError, type RegistryState } from '../../src/domain/state.js';
import { freshAccount } from '../../src/control/accounts.js';
import { instanceKey, type Fixtures } from '../../fixtures/index.js';
import { loadStateParts } from '../../src/control/state-check.js';

const NOW = Date.UTC(2026, 10, 21, 13, 30, 0);
const ADMIN_KEY = 'tusk-admin-key';
const DEDICATED = { name: 'orders-db', plan: 'hippo', region: 'amazon-web-services::us-east-1' };

let rules: ContractRules;
beforeAll(async () => {
  rules = readContractRules((await loadDocuments()).instance);
});

let clock: VirtualClock;
let registry: Registry;
const make = (over: Partial<RegistryOptions> = {}) =>
  new Registry({ seed: 1, adminKey: ADMIN_KEY, clock, rules, ...over });
beforeEach(() => {
  clock = new VirtualClock();
  clock.pin(NOW);
  registry = make();
});

const seeded = () => registry.authenticateCustomer(ADMIN_KEY)!;
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

describe('Registry: keys', () => {
  it('opens a customer key as its account and key record, and an instance key as its instance', () => {
    const customer = registry.authenticateCustomer(ADMIN_KEY)!;
    expect(customer.kind).toBe('customer');
    expect(customer.key).toStrictEqual(customer.account.apiKey('key-1'));
    const instance = registry.authenticateInstance(instanceKey(1))!;
    expect(instance.kind).toBe('instance');
    expect(instance.account).toBe(customer.account);
    expect(instance.instance).toBe(customer.account.instanceStore(1));
  });

  it('opens nothing with a key whose account, key record or instance does not exist', () => {
    const { account } = seeded();
    registry.context.keys.addCustomerKey('stray-record', account.id, 'key-999');
    registry.context.keys.addCustomerKey('stray-account', 'no-such-account', 'key-1');
    registry.context.keys.addInstanceKey('stray-instance', account.id, 999);
    registry.context.keys.addInstanceKey('stray-instance-account', 'no-such-account', 1);
    expect(registry.authenticateCustomer('stray-record')).toBeUndefined();
    expect(registry.authenticateCustomer('stray-account')).toBeUndefined();
    expect(registry.authenticateInstance('stray-instance')).toBeUndefined();
    expect(registry.authenticateInstance('stray-instance-account')).toBeUndefined();
  });
});

describe('Registry: reseed', () => {
  it('resets to the fixtures of another seed, 0 included, and refuses a seed that is no non-negative integer', () => {
    const first = seeded().account.id;
    registry.reseed(0);
    expect(registry.seed).toBe(0);
    const zero = seeded().account.id;
    expect(zero).not.toBe(first);
    for (const seed of [-1, 1.5, Number.NaN]) {
      expect(() => registry.reseed(seed), String(seed)).toThrow(
        new RangeError(`the seed must be a non-negative integer, got ${seed}`),
      );
    }
    expect(registry.seed).toBe(0);
    expect(seeded().account.id).toBe(zero);
  });

  it('keeps the seed and the stores when the fixtures of the new seed are refused', () => {
    let refuse = false;
    registry = make({
      validate: () => {
        if (refuse) throw new Error('fixtures refused');
      },
    });
    const { account } = seeded();
    refuse = true;
    expect(() => registry.reseed(7)).toThrow('fixtures refused');
    expect(registry.seed).toBe(1);
    expect(seeded().account).toBe(account);
    refuse = false;
    registry.reset();
    expect(seeded().account.id).toBe(account.id);
  });
});

describe('Registry: addAccount', () => {
  it('adds an account, validated like the seeded ones, whose customer and instance keys open it', () => {
    const validated: Fixtures[] = [];
    registry = make({ validate: (f) => void validated.push(f) });
    const { fixture, keys } = freshAccount();
    fixture.instances = [{ ...seeded().account.fixture.instances[0]!, apikey: 'added-instance-key' }];
    const added = registry.addAccount(fixture);
    expect(validated.at(-1)!.accounts).toStrictEqual([fixture]);
    expect(validated.at(-1)!.catalogue).toBe(registry.catalogue);
    expect(registry.home(fixture.id)).toBe(added);
    expect(registry.home(fixture.id)?.records).toBe(added.records);
    expect(registry.authenticateCustomer(keys.admin)?.account).toBe(added.records);
    expect(registry.authenticateCustomer(keys.admin)?.account).toBe(added.records);
    expect(registry.authenticateInstance('added-instance-key')?.account).toBe(added.records);
    expect(registry.homeOfKey('added-instance-key')).toBe(added);
    expect(registry.homeOfHeader(`Basic ${Buffer.from(`:${keys.admin}`).toString('base64')}`)).toBe(added);
    expect(registry.authenticateCustomer(ADMIN_KEY)?.account).not.toBe(added.records);
  });

  it('refuses an account id that exists and the keys of another account, adding nothing', () => {
    const { account } = seeded();
    const { fixture, keys } = freshAccount();
    expect(() => registry.addAccount({ ...fixture, id: account.id })).toThrow(
      `an account with id ${account.id} exists`,
    );
    expect(() => registry.addAccount({ ...fixture, keys: [{ ...fixture.keys[0]!, key: ADMIN_KEY }] })).toThrow(
      'the new account reuses API keys of another account',
    );
    expect(() => registry.addAccount({ ...fixture, instances: [account.fixture.instances[0]!] })).toThrow(
      'the new account reuses API keys of another account',
    );
    expect([...registry.allHomes()].map((h) => h.records)).toEqual([account]);
    expect(registry.authenticateCustomer(ADMIN_KEY)?.account).toBe(account);
    expect(registry.authenticateCustomer(keys.admin)).toBeUndefined();
    // without a validate option, the account is added as it is
    expect(registry.addAccount(fixture).id).toBe(fixture.id);
  });
});

describe('Registry: ticks', () => {
  it('runs every onTick listener on each tick until it is removed; removing it twice removes no other', () => {
    const calls: string[] = [];
    const removeA = registry.onTick(() => calls.push('a'));
    registry.onTick(() => calls.push('b'));
    registry.tick();
    removeA();
    removeA();
    registry.tick();
    expect(calls).toEqual(['a', 'b', 'b']);
  });

  it('evaluates the alarms of every instance on a tick, and counts the notifications', () => {
    const { account, key } = seeded();
    const notifications = () => registry.outbox.list().filter((e) => e.kind === 'notification');
    const a = account.instanceStore(account.instances.create(DEDICATED, key).id)!;
    const b = account.instanceStore(account.instances.create(DEDICATED, key).id)!;
    a.monitor.setMetrics({ cpu: 95 });
    b.monitor.setMetrics({ memory: 95 });
    clock.advance(600_000);
    registry.tick();
    expect(notifications().map((e) => e.event)).toEqual(['alarm.cpu', 'alarm.memory']);
    b.monitor.setMetrics({ cpu: 95 });
    clock.advance(600_000);
    expect(registry.evaluateAlarms()).toBe(1);
    expect(notifications()).toHaveLength(3);
  });
});

describe('Registry: restore', () => {
  let good: RegistryState;
  /** The index of seeded instance 1 in the state (given recipients, alarms and integrations). */
  let xi: number;
  beforeEach(() => {
    const inst = registry.authenticateInstance(instanceKey(1))!.instance;
    const r = inst.recipients.create({ type: 'email', value: 'ops@example.com', name: 'ops' });
    inst.recipients.create({ type: 'email', value: 'spare@example.com', name: 'spare' }); // no alarm names it
    inst.alarms.create({ type: 'cpu', value_threshold: 80, time_threshold: 300, recipients: [r.id] });
    inst.integrations['logs'].create('logs_e', { token: 'a' });
    inst.integrations['metrics'].create('metrics_c_v3', { api_key: 'k', region: 'eu' });
    inst.backups.create();
    const { account, key } = seeded();
    account.team.invite({ email: 'keyless@example.com' }, key); // a member no key acts for
    registry.addAccount(freshAccount().fixture);
    good = json(registry.dump());
    xi = good.accounts[0]!.instances.findIndex((x) => x.id === 1);
  });

  /** The problems restore() names for `good` spoilt by `spoil`; the registry must be left as it was. */
  const problemsOf = (spoil: (s: RegistryState) => void): string[] => {
    const bad = json(good);
    spoil(bad);
    const before = JSON.stringify(registry.dump());
    try {
      loadStateParts(registry, bad);
    } catch (err) {
      expect(err).toBeInstanceOf(StateError);
      expect(JSON.stringify(registry.dump())).toBe(before);
      return (err as StateError).problems;
    }
    throw new Error('expected a StateError, but the state was taken over');
  };
  const instance = (s: RegistryState) => s.accounts[0]!.instances[xi]!;
  const at = () => `accounts.0.instances.${xi}`;
  const above = (where: string, items: { id: number }[], place = (i: number) => `${where}.${i}`) =>
    items.map((x, i) => `${place(i)}.id: id ${x.id} is above last_id 0 (ids would be handed out twice)`);

  it('takes over a state whose key ids carry no number', () => {
    const s = json(good);
    s.accounts[0]!.keys[0]!.id = 'legacy';
    loadStateParts(registry, s);
    expect(registry.authenticateCustomer(ADMIN_KEY)!.key.id).toBe('legacy');
  });

  it('names another format version', () => {
    expect(problemsOf((s) => ((s as { tusk_state: number }).tusk_state = 2))).toStrictEqual([
      'tusk_state: this Tusk reads version 1, not 2',
    ]);
  });

  it('names the ids an account, its keys, team members or invoices share', () => {
    const a = good.accounts[0]!;
    expect(problemsOf((s) => (s.accounts[1]!.id = a.id))).toStrictEqual([
      `accounts.1.id: account id "${a.id}" appears twice (also at accounts.0.id)`,
    ]);
    expect(problemsOf((s) => (s.accounts[0]!.keys[1]!.id = 'key-1'))).toStrictEqual([
      'accounts.0.keys.1.id: key id "key-1" appears twice (also at accounts.0.keys.0.id)',
    ]);
    expect(problemsOf((s) => (s.accounts[0]!.team[1]!.id = a.team[0]!.id))).toStrictEqual([
      `accounts.0.team.1.id: id "${a.team[0]!.id}" appears twice (also at accounts.0.team.0.id)`,
    ]);
    expect(problemsOf((s) => (s.accounts[0]!.invoices[1]!.id = a.invoices[0]!.id))).toStrictEqual([
      `accounts.0.invoices.1.id: id ${a.invoices[0]!.id} appears twice (also at accounts.0.invoices.0.id)`,
    ]);
  });

  it('names a team e-mail twice in any case, and a key id above last_key_id', () => {
    const a = good.accounts[0]!;
    const keyless = a.team.findIndex((m) => m.email === 'keyless@example.com');
    expect(problemsOf((s) => (s.accounts[0]!.team[keyless]!.email = a.team[0]!.email.toUpperCase()))).toStrictEqual([
      `accounts.0.team.${keyless}.email: e-mail "${a.team[0]!.email.toLowerCase()}" appears twice (also at accounts.0.team.0.email)`,
    ]);
    expect(problemsOf((s) => (s.accounts[0]!.keys[0]!.id = 'key-12'))).toStrictEqual([
      `accounts.0.keys.0.id: id key-12 is above last_key_id ${a.last_key_id}`,
    ]);
  });

  it('names the instances above last_instance_id, and a recipient id twice', () => {
    expect(problemsOf((s) => (s.accounts[0]!.last_instance_id = 0))).toStrictEqual(
      above('accounts.0.instances', good.accounts[0]!.instances),
    );
    const [, ops, spare] = instance(good).recipients.items;
    expect(spare!.value).toBe('spare@example.com');
    expect(problemsOf((s) => (instance(s).recipients.items[2]!.id = ops!.id))).toStrictEqual([
      `${at()}.recipients.items.2.id: id ${ops!.id} appears twice (also at ${at()}.recipients.items.1.id)`,
    ]);
  });

  it('names the recipients, alarms, integrations, backups and maintenance above their last_id', () => {
    const x = instance(good);
    for (const list of [
      x.recipients.items,
      x.alarms.items,
      x.integrations.logs,
      x.integrations.metrics,
      x.backups.items,
      x.maintenance.items,
    ])
      expect(list.length).toBeGreaterThan(0);
    expect(problemsOf((s) => (instance(s).recipients.last_id = 0))).toStrictEqual(
      above(`${at()}.recipients.items`, x.recipients.items),
    );
    expect(problemsOf((s) => (instance(s).alarms.last_id = 0))).toStrictEqual(
      above(`${at()}.alarms.items`, x.alarms.items),
    );
    const logs = x.integrations.logs.length;
    expect(problemsOf((s) => (instance(s).integrations.last_id = 0))).toStrictEqual(
      above(
        `${at()}.integrations`,
        [...x.integrations.logs, ...x.integrations.metrics],
        (i) => `${at()}.integrations.${i < logs ? `logs.${i}` : `metrics.${i - logs}`}`,
      ),
    );
    expect(problemsOf((s) => (instance(s).backups.last_id = 0))).toStrictEqual(
      above(`${at()}.backups.items`, x.backups.items),
    );
    expect(problemsOf((s) => (instance(s).maintenance.last_id = 0))).toStrictEqual(
      above(`${at()}.maintenance.items`, x.maintenance.items),
    );
  });

  it('names a next daily backup missing for a database, and a backup of another database', () => {
    const b = instance(good).backups.items[0]!;
    expect(problemsOf((s) => instance(s).backups.next_daily.pop())).toStrictEqual([
      `${at()}.backups.next_daily: one day per database (db1, analytics)`,
    ]);
    expect(problemsOf((s) => (instance(s).backups.items[0]!.database_name = 'other'))).toStrictEqual([
      `${at()}.backups.items.0.database_name: backup ${b.id} is of other, not a database of the instance (db1, analytics)`,
    ]);
  });

  it('refuses a state its stores cannot be built from as a StateError, keeping the stores and keys it had', () => {
    const { account } = seeded();
    const problems = problemsOf((s) => ((s.accounts[0]!.team[0] as { roles: unknown }).roles = null));
    expect(problems).toHaveLength(1);
    expect(registry.authenticateCustomer(ADMIN_KEY)?.account).toBe(account);
    expect(registry.authenticateInstance(instanceKey(1))?.account).toBe(account);
  });
});
