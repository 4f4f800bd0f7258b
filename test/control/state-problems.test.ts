// The problems stateProblems() (src/control/state-check.ts) names in a state dump, each as the 400 of a
// state load reports it: its field, its rule and its words. A server-wide load checks the server's
// clock and outbox too; an account's own load (`scoped`) names its places `account...`, leaves the
// server's clock to the server, and calls an identifier another account holds another account's.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { readContractRules, type ContractRules } from '../../src/openapi/rules.js';
import { Registry } from '../../src/accounts/registry.js';
import { VirtualClock } from '../../src/domain/clock.js';
import { stateProblems, type StateCheckOptions } from '../../src/control/state-check.js';
import { StateError, type RegistryState } from '../../src/domain/state.js';
import { freshAccount } from '../../src/control/accounts.js';
import { instanceKey } from '../../fixtures/index.js';
import { loadAccountParts } from '../../src/control/state-check.js';

const KEYS_ARE_UNIQUE = 'every customer and instance API key is unique across the server';
const PROVIDERIDS_ARE_UNIQUE =
  "it names the instance's database and role, so it is unique across the server (compared without case by its first 16 letters and digits)";

let rules: ContractRules;
beforeAll(async () => {
  rules = readContractRules((await loadDocuments()).instance);
});

let registry: Registry;
let good: RegistryState;
/** Where seeded instance 1 (given a recipient, an alarm, integrations and a backup) is in the state. */
let xi: number;
beforeEach(() => {
  const clock = new VirtualClock();
  clock.pin(Date.UTC(2026, 10, 21, 13, 30, 0));
  registry = new Registry({ seed: 1, adminKey: 'tusk-admin-key', clock, rules });
  const inst = registry.authenticateInstance(instanceKey(1))!.instance;
  const r = inst.recipients.create({ type: 'email', value: 'ops@example.com', name: 'ops' });
  inst.alarms.create({ type: 'cpu', value_threshold: 80, time_threshold: 300, recipients: [r.id] });
  inst.integrations['logs'].create('logs_e', { token: 'a' });
  inst.integrations['metrics'].create('metrics_c_v3', { api_key: 'k', region: 'eu' });
  inst.backups.create();
  registry.addAccount(freshAccount().fixture);
  good = JSON.parse(JSON.stringify(registry.dump())) as RegistryState;
  xi = good.accounts[0]!.instances.findIndex((x) => x.id === 1);
});

/** The problems of `good` spoilt by `spoil`. */
function problems(spoil: (s: RegistryState) => void, options?: StateCheckOptions) {
  const bad = JSON.parse(JSON.stringify(good)) as RegistryState;
  spoil(bad);
  return stateProblems(bad, registry.catalogue, options);
}
const instance = (s: RegistryState) => s.accounts[0]!.instances[xi]!;
const at = () => `accounts.0.instances.${xi}`;

describe('checkState: each problem with its field, rule and words', () => {
  it('finds none in a state the registry wrote', () => {
    expect(problems(() => undefined)).toStrictEqual([]);
  });

  it('another format version: const', () => {
    expect(problems((s) => ((s as { tusk_state: number }).tusk_state = 2))).toStrictEqual([
      { field: 'tusk_state', rule: 'const', message: 'this Tusk reads version 1, not 2' },
    ]);
  });

  it("the server's clock and an account's clock out of range: range, named by their place", () => {
    const offset = { field: 'clock.offset_ms', rule: 'range', message: '1.5 is not a whole number of ms' };
    expect(problems((s) => (s.clock.offset_ms = 1.5))).toStrictEqual([offset]);
    expect(problems((s) => (s.accounts[0]!.clock = { offset_ms: 1.5, pinned_ms: null }))).toStrictEqual([
      { ...offset, field: 'accounts.0.clock.offset_ms' },
    ]);
    // An account's own load leaves the server's clock to the server.
    expect(problems((s) => (s.clock.offset_ms = 1.5), { scoped: 0 })).toStrictEqual([]);
  });

  it('an id twice: unique, naming the first place; an id above its last id: sequence', () => {
    const a = good.accounts[0]!;
    expect(problems((s) => (s.accounts[1]!.id = a.id))).toStrictEqual([
      { field: 'accounts.1.id', rule: 'unique', message: `account id "${a.id}" appears twice (also at accounts.0.id)` },
    ]);
    expect(problems((s) => (s.accounts[0]!.last_instance_id = 0))).toStrictEqual(
      a.instances.map((x, i) => ({
        field: `accounts.0.instances.${i}.id`,
        rule: 'sequence',
        message: `id ${x.id} is above last_id 0 (ids would be handed out twice)`,
      })),
    );
    const { logs, metrics } = instance(good).integrations;
    expect(problems((s) => (instance(s).integrations.metrics[0]!.id = logs[0]!.id))).toStrictEqual([
      {
        field: `${at()}.integrations.metrics.0.id`,
        rule: 'unique',
        message: `id ${logs[0]!.id} appears twice (also at ${at()}.integrations.logs.0.id)`,
      },
    ]);
    expect(problems((s) => (instance(s).integrations.last_id = logs[0]!.id))).toStrictEqual([
      {
        field: `${at()}.integrations.metrics.0.id`,
        rule: 'sequence',
        message: `id ${metrics[0]!.id} is above last_id ${logs[0]!.id} (ids would be handed out twice)`,
      },
    ]);
  });

  it('a key id is numbered by its last digits: key-12 is above last_key_id, v99-1 is not', () => {
    const a = good.accounts[0]!;
    expect(problems((s) => (s.accounts[0]!.keys[0]!.id = 'key-12'))).toStrictEqual([
      { field: 'accounts.0.keys.0.id', rule: 'sequence', message: `id key-12 is above last_key_id ${a.last_key_id}` },
    ]);
    expect(a.last_key_id).toBeLessThan(99);
    expect(problems((s) => (s.accounts[0]!.keys[0]!.id = 'v99-1'))).toStrictEqual([]);
  });

  it('an API key twice: unique, across customer and instance keys and accounts', () => {
    const a = good.accounts[0]!;
    expect(problems((s) => (s.accounts[1]!.keys[0]!.key = a.instances[xi]!.apikey))).toStrictEqual([
      {
        field: 'accounts.1.keys.0.key',
        rule: 'unique',
        message: `this API key appears twice in the state (also at accounts.0.instances.${xi}.apikey); ${KEYS_ARE_UNIQUE}`,
      },
    ]);
    expect(problems((s) => (instance(s).apikey = a.keys[0]!.key))).toStrictEqual([
      {
        field: `${at()}.apikey`,
        rule: 'unique',
        message: `this API key appears twice in the state (also at accounts.0.keys.0.key); ${KEYS_ARE_UNIQUE}`,
      },
    ]);
  });

  it("in an account's own load, a key another account holds is another account's; one twice in its own dump appears twice", () => {
    const a = good.accounts[0]!;
    expect(problems((s) => (s.accounts[1]!.keys[0]!.key = a.keys[0]!.key), { scoped: 1 })).toStrictEqual([
      {
        field: 'account.keys.0.key',
        rule: 'unique',
        message: `this API key belongs to another account; ${KEYS_ARE_UNIQUE}`,
      },
    ]);
    expect(problems((s) => (instance(s).apikey = a.keys[0]!.key), { scoped: 0 })).toStrictEqual([
      {
        field: `account.instances.${xi}.apikey`,
        rule: 'unique',
        message: `this API key appears twice in the state (also at account.keys.0.key); ${KEYS_ARE_UNIQUE}`,
      },
    ]);
  });

  it('a providerid twice, in another case: unique, showing the one it clashes with', () => {
    const [first, second] = good.accounts[0]!.instances;
    expect(problems((s) => (s.accounts[0]!.instances[1]!.providerid = first!.providerid.toUpperCase()))).toStrictEqual([
      {
        field: 'accounts.0.instances.1.providerid',
        rule: 'unique',
        message: `this providerid (as ${first!.providerid} does) appears twice in the state (also at accounts.0.instances.0.providerid); ${PROVIDERIDS_ARE_UNIQUE}`,
      },
    ]);
    expect(second).toBeDefined();
  });

  it('what must exist and does not: exists', () => {
    const a = good.accounts[0]!;
    const key = a.keys[0]!;
    expect(problems((s) => (s.accounts[0]!.keys[0]!.email = 'nobody@example.com'))).toStrictEqual([
      {
        field: 'accounts.0.keys.0.email',
        rule: 'exists',
        message: `${key.id} acts for nobody@example.com, who is no team member`,
      },
    ]);
    expect(problems((s) => (instance(s).plan = 'mammoth'))).toStrictEqual([
      { field: `${at()}.plan`, rule: 'exists', message: 'mammoth is not a catalogue plan' },
    ]);
    expect(problems((s) => (instance(s).region = 'mars::olympus'))).toStrictEqual([
      { field: `${at()}.region`, rule: 'exists', message: 'mars::olympus is not a catalogue region' },
    ]);
    expect(problems((s) => (instance(s).recipients.default_id = 999))).toStrictEqual([
      { field: `${at()}.recipients.default_id`, rule: 'exists', message: 'the default recipient 999 is missing' },
    ]);
    const alarm = instance(good).alarms.items.at(-1)!;
    expect(problems((s) => (instance(s).alarms.items.at(-1)!.recipients = [999]))).toStrictEqual([
      {
        field: `${at()}.alarms.items.${instance(good).alarms.items.length - 1}.recipients`,
        rule: 'exists',
        message: `alarm ${alarm.id} names the unknown recipient 999`,
      },
    ]);
    const backup = instance(good).backups.items[0]!;
    expect(problems((s) => (instance(s).backups.items[0]!.database_name = 'other'))).toStrictEqual([
      {
        field: `${at()}.backups.items.0.database_name`,
        rule: 'exists',
        message: `backup ${backup.id} is of other, not a database of the instance (db1, analytics)`,
      },
    ]);
  });

  it('a next daily backup missing for a database: length', () => {
    expect(problems((s) => instance(s).backups.next_daily.pop())).toStrictEqual([
      { field: `${at()}.backups.next_daily`, rule: 'length', message: 'one day per database (db1, analytics)' },
    ]);
  });
});

describe('StateError: what the 400 of a refused load names', () => {
  it('the first problem’s field and rule, or rule state for a problem given as text; every problem as text', () => {
    const named = new StateError([
      { field: 'tusk_state', rule: 'const', message: 'this Tusk reads version 1, not 2' },
      'a second problem',
    ]);
    expect(named).toBeInstanceOf(Error);
    expect(named.name).toBe('StateError');
    expect([named.field, named.rule]).toEqual(['tusk_state', 'const']);
    expect(named.problems).toEqual(['tusk_state: this Tusk reads version 1, not 2', 'a second problem']);
    expect(named.message).toBe(
      'not a valid Tusk state: tusk_state: this Tusk reads version 1, not 2; a second problem',
    );
    const text = new StateError(['no account has id nope']);
    expect([text.field, text.rule]).toEqual([undefined, 'state']);
  });
});

describe('Registry: one account by id', () => {
  it('resetting or loading an account no account has is a StateError naming the id', () => {
    const dump = registry.home(good.accounts[0]!.id)!.dump();
    for (const act of [() => registry.resetAccount('nope'), () => loadAccountParts(registry, 'nope', dump)]) {
      expect(act).toThrow(StateError);
      expect(act).toThrow('not a valid Tusk state: no account has id nope');
    }
  });

  it('an added account resets to its created form every time, whatever happened to it in between', () => {
    const id = good.accounts[1]!.id;
    const created = JSON.stringify(registry.home(id)!.dump().account);
    for (const name of ['first', 'second']) {
      const home = registry.home(id)!;
      const admin = home.records.fixture.keys[0]!;
      home.records.instances.create(
        { name, plan: 'hippo', region: 'amazon-web-services::us-east-1' },
        home.records.apiKey(admin.id)!,
      );
      expect(JSON.stringify(registry.home(id)!.dump().account)).not.toBe(created);
      registry.resetAccount(id);
      expect(JSON.stringify(registry.home(id)!.dump().account)).toBe(created);
    }
  });
});
