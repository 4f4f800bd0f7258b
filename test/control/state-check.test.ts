// A state load refused by the checks of src/control/state-check.ts reaches nothing: not the stores,
// the keys or the clock (test/control/hostile-inputs.test.ts), and not the database engine either,
// which is told nothing (issue 31: a providerid of another account's instance took over its
// database, because the load provisioned it with the loader's password). And the identity the
// checks compare providerids by is the one the engine names databases by (databaseKeyOf).
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { readContractRules, type ContractRules } from '../../src/openapi/rules.js';
import { Registry } from '../../src/accounts/registry.js';
import { VirtualClock } from '../../src/domain/clock.js';
import { StateError } from '../../src/domain/state.js';
import { databaseKeyOf } from '../../src/resources/instances/instance.js';
import { freshAccount } from '../../src/control/accounts.js';
import { Databases, type InstanceDatabases } from '../../src/databases/instance-databases.js';
import type { PostgresEngine } from '../../src/databases/engine.js';
import { loadStateParts, loadAccountParts } from '../../src/control/state-check.js';

const DEDICATED = { name: 'db', plan: 'hippo', region: 'amazon-web-services::us-east-1' };

/** Records the name of every call the stores make to the engine's side, and the databases dropped (a unit test's stand-in for the engine). */
function recorder(calls: string[], dropped: string[] = []): InstanceDatabases {
  return new Proxy({} as InstanceDatabases, {
    get: (_, name) => {
      if (name === 'host') return '127.0.0.1';
      if (name === 'port') return 5432;
      if (typeof name !== 'string' || name === 'then') return undefined;
      return (...args: unknown[]) => {
        calls.push(name);
        if (name === 'drop') dropped.push((args[0] as { database: string }).database);
        if (name === 'provision') return { role: `r_${String(args[0])}`, database: `d_${String(args[0])}` };
        if (name === 'isReady') return true;
        return undefined;
      };
    },
  });
}

let rules: ContractRules;
beforeAll(async () => {
  rules = readContractRules((await loadDocuments()).instance);
});

describe('a refused load tells the database engine nothing', () => {
  const calls: string[] = [];
  let registry: Registry;
  let x: string;
  let y: string;
  beforeEach(() => {
    registry = new Registry({
      seed: 1,
      adminKey: 'tusk-admin-key',
      clock: new VirtualClock(),
      rules,
      databases: recorder(calls),
    });
    for (const name of ['x', 'y']) {
      const { fixture, keys } = freshAccount({ name });
      const account = registry.addAccount(fixture).records;
      account.instances.create(DEDICATED, account.apiKey(fixture.keys.find((k) => k.key === keys.admin)!.id)!);
      if (name === 'x') x = account.id;
      else y = account.id;
    }
    calls.length = 0;
  });

  it("an account's load naming another account's providerid: a StateError, and no step for the engine", () => {
    const dump = registry.home(x)!.dump();
    dump.account.instances[0]!.providerid = registry.home(y)!.dump().account.instances[0]!.providerid;
    dump.account.instances[0]!.password = 'chosen-by-x';
    const before = JSON.stringify(registry.dump());
    calls.length = 0;
    expect(() => loadAccountParts(registry, x, dump)).toThrow(StateError);
    expect(calls).toEqual([]);
    expect(JSON.stringify(registry.dump())).toBe(before);
  });

  it('a server-wide load with one providerid twice: a StateError, and no step for the engine', () => {
    const state = registry.dump();
    const [a, b] = state.accounts.filter((s) => s.id === x || s.id === y);
    b!.instances[0]!.providerid = a!.instances[0]!.providerid;
    calls.length = 0;
    expect(() => loadStateParts(registry, state)).toThrow(StateError);
    expect(calls).toEqual([]);
  });

  it("an account's own dump loads, and the engine is told (the recorder sees the stores' steps)", () => {
    loadAccountParts(registry, x, registry.home(x)!.dump());
    expect(calls).toContain('provision');
  });
});

describe('an accepted load drops the databases of the instances it leaves out', () => {
  const calls: string[] = [];
  const dropped: string[] = [];
  let registry: Registry;
  let x: string;
  beforeEach(() => {
    registry = new Registry({
      seed: 1,
      adminKey: 'tusk-admin-key',
      clock: new VirtualClock(),
      rules,
      databases: recorder(calls, dropped),
    });
    const { fixture, keys } = freshAccount({ name: 'x' });
    const account = registry.addAccount(fixture).records;
    const key = account.apiKey(fixture.keys.find((k) => k.key === keys.admin)!.id)!;
    account.instances.create(DEDICATED, key);
    account.instances.create(DEDICATED, key);
    x = account.id;
    calls.length = 0;
    dropped.length = 0;
  });
  const databaseOf = (providerid: string) => `d_${providerid}`;

  it("an account's load without one of its instances drops that one's database, and keeps the other's", () => {
    const dump = registry.home(x)!.dump();
    const [gone, kept] = dump.account.instances;
    dump.account.instances = [kept!];
    loadAccountParts(registry, x, dump);
    expect(dropped).toEqual([databaseOf(gone!.providerid)]);
  });

  it("an account's load of its own dump drops nothing", () => {
    loadAccountParts(registry, x, registry.home(x)!.dump());
    expect(dropped).toEqual([]);
  });

  it('a reset of the account drops the databases of all its instances', () => {
    const instances = registry.home(x)!.dump().account.instances;
    registry.resetAccount(x);
    expect(dropped.sort()).toEqual(instances.map((i) => databaseOf(i.providerid)).sort());
    expect(registry.home(x)!.dump().account.instances).toEqual([]);
  });

  it("a load its records cannot be built from leaves the account's clock where it was", () => {
    const home = registry.home(x)!;
    const clockBefore = home.clock.toJSON();
    const dump = home.dump();
    dump.account.clock = { offset_ms: 3_600_000, pinned_ms: null };
    (dump.account.team[0] as { roles: unknown }).roles = null;
    expect(() => loadAccountParts(registry, x, dump)).toThrow(StateError);
    expect(home.clock.toJSON()).toEqual(clockBefore);
    expect(dropped).toEqual([]);
  });

  it('a server-wide load without an account drops the databases of its instances', () => {
    const state = registry.dump();
    const gone = state.accounts.find((a) => a.id === x)!;
    state.accounts = state.accounts.filter((a) => a.id !== x);
    loadStateParts(registry, state);
    expect(dropped.sort()).toEqual(gone.instances.map((i) => databaseOf(i.providerid)).sort());
  });
});

describe('databaseKeyOf: the identity of a providerid is the name of its database', () => {
  // The engine names a database after the providerid (Databases.provision); a stand-in engine that
  // never becomes ready is enough to read the names it gives (no step ever runs).
  const never = () => new Promise<never>(() => {});
  const engine = new Proxy(
    { prefix: 'tusk_t_', host: '127.0.0.1', port: 5432, state: 'starting' } as unknown as PostgresEngine,
    {
      get: (target, name) =>
        name in target
          ? (target as unknown as Record<string | symbol, unknown>)[name]
          : name === 'then'
            ? undefined
            : never,
    },
  );
  const databases = new Databases(engine, () => {});
  const nameOf = (providerid: string) => databases.provision(providerid, 'pw').database;
  const base = '3850f1f9-ea8c-46b6-9d6b-88fc0b7f4341';
  const spellings = [
    base,
    base.toUpperCase(),
    '3850f1f9-ea8c-46b6-0000-000000000000', // the same first 16 hex digits, another tail
    `urn:uuid:${base}`,
    '3850f1f9-ea8c-46b7-9d6b-88fc0b7f4341',
    '00000000-0000-4000-8000-000000000000',
  ];

  it('two providerids name one database exactly when their keys agree', () => {
    for (const a of spellings) {
      for (const b of spellings)
        expect(databaseKeyOf(a) === databaseKeyOf(b), `${a} / ${b}`).toBe(nameOf(a) === nameOf(b));
    }
    expect(databaseKeyOf(base)).toBe(databaseKeyOf(base.toUpperCase()));
    expect(databaseKeyOf(base)).toBe(databaseKeyOf('3850f1f9-ea8c-46b6-0000-000000000000'));
  });
});
