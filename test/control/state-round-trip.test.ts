// Dump and load of the whole state: Registry.toJSON / restore / fromJSON, and GET/PUT /__tusk/state.
// The round trip is exact, the loaded registry behaves as the dumped one did (keys authenticate,
// ids continue), and a malformed or inconsistent dump is refused and changes nothing.
import { beforeEach, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { Registry, type RegistryOptions } from '../../src/accounts/registry.js';
import { VirtualClock } from '../../src/domain/clock.js';
import { StateError, type RegistryState } from '../../src/domain/state.js';
import { ROLE_KEYS, instanceKey } from '../../fixtures/index.js';
import { checkStateShape, loadStateParts } from '../../src/control/state-check.js';

const ADMIN_KEY = 'state-test-admin-key';
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

let tusk: Tusk;
let registry: Registry;

/** A registry of the same options with its own clock (a fresh server). */
const fresh = () => new Registry({ ...registry.options, clock: new VirtualClock() });

/** Changes a bit of everything through the stores, the way requests would. */
function busy(): { newAdminKey: string; instanceId: number; newInstanceKey: string } {
  const { account, key } = registry.authenticateCustomer(ADMIN_KEY)!;
  const created = account.instances.create(
    { name: 'orders', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    key,
  );
  const inst = account.instanceStore(created.id)!;
  const r = inst.recipients.create({ type: 'webhook', value: 'https://hooks.example.com/x', name: 'hook' });
  inst.alarms.create({ type: 'cpu', value_threshold: 80, time_threshold: 300, recipients: [r.id] });
  inst.integrations['logs'].create('logs_e', { token: 'a' });
  inst.integrations['metrics'].create('metrics_c_v3', { api_key: 'k', region: 'eu' });
  inst.backups.create({ callback: 'http://127.0.0.1:9/cb' });
  const [m] = inst.maintenance.list();
  inst.maintenance.run(m!.id);
  const newInstanceKey = inst.rotateApiKey();
  inst.rotatePassword();
  account.team.invite({ email: 'new@example.com', role: 'member', tags: 'a,b' }, key);
  account.instances.update(1, { name: 'renamed' }, key);
  account.instances.delete(3, key);
  const { apikey: newAdminKey } = account.apiKeys.rotate(key.id);
  registry.clock.advance(3_600_000);
  return { newAdminKey, instanceId: created.id, newInstanceKey };
}

beforeEach(async () => {
  tusk = await createTusk({ log: 'off', apiKey: ADMIN_KEY });
  registry = tusk.registry;
});

describe('the registry state round trip', () => {
  it('dump, load into a fresh registry, dump again: the same document', () => {
    busy();
    registry.clock.pin(Date.UTC(2030, 0, 1));
    const dump = json(registry.dump());
    const loaded = loadedRegistry(dump, { ...registry.options, clock: new VirtualClock() });
    expect(json(loaded.dump())).toEqual(dump);
    // and the text is the same too (key order included)
    expect(JSON.stringify(loaded.dump())).toBe(JSON.stringify(registry.dump()));
  });

  it('the dump is valid against the State schema of the control document', () => {
    busy();
    expect(() => checkStateShape(json(registry.dump()), tusk.deps.schemas, tusk.control.deps.document)).not.toThrow();
  });

  it('after a load, keys authenticate as before, revoked keys do not, and ids continue', () => {
    const { newAdminKey, instanceId, newInstanceKey } = busy();
    const dump = json(registry.dump());
    const loaded = fresh();
    loadStateParts(loaded, dump);

    expect(loaded.authenticateCustomer(ADMIN_KEY)).toBeUndefined(); // rotated away
    const admin = loaded.authenticateCustomer(newAdminKey)!;
    expect(admin.key.role).toBe('admin');
    expect(loaded.authenticateCustomer(ROLE_KEYS.devops)?.key.role).toBe('devops');
    expect(loaded.authenticateInstance(newInstanceKey)?.instance.id).toBe(instanceId);
    expect(loaded.authenticateInstance(instanceKey(1))?.instance.name).toBe('renamed');
    expect(loaded.authenticateInstance(instanceKey(3))).toBeUndefined(); // deleted

    // ids go on where the dumped registry stood
    const again = admin.account.instances.create(
      { name: 'next', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
      admin.key,
    );
    expect(again.id).toBe(instanceId + 1);
    const inst = admin.account.instanceStore(instanceId)!;
    const before = registry.authenticateInstance(newInstanceKey)!.instance;
    expect(inst.recipients.create({ type: 'email', value: 'a@example.com' }).id).toBe(
      before.recipients.create({ type: 'email', value: 'a@example.com' }).id,
    );
    expect(inst.integrations['logs'].create('logs_e', { token: 'b' }).id).toBe(
      before.integrations['logs'].create('logs_e', { token: 'b' }).id,
    );
    expect(admin.account.apiKeys.rotate(admin.key.id).apikey).not.toBe(newAdminKey);
    expect(admin.account.apiKeys.list().map((k) => k.id)).toContain(`key-${dump.accounts[0]!.last_key_id + 1}`);

    // the clock and the outbox came along
    expect(loaded.clock.offsetMs).toBe(registry.clock.offsetMs);
    expect(loaded.outbox.list()).toEqual(registry.outbox.list());
    expect(loaded.outbox.list().map((e) => e.target)).toContain('http://127.0.0.1:9/cb');
    expect(loaded.outbox.schedule({ event: 'x', target: 'http://127.0.0.1:9/', body: {} }).id).toBe(
      dump.outbox.last_id + 1,
    );
  });

  it('the listing APIs answer the same from the loaded registry', () => {
    const { instanceId, newInstanceKey } = busy();
    registry.clock.pin(registry.clock.now());
    const loaded = loadedRegistry(json(registry.dump()), { ...registry.options, clock: new VirtualClock() });
    const a = registry.authenticateInstance(newInstanceKey)!.instance;
    const b = loaded.authenticateInstance(newInstanceKey)!.instance;
    expect(b.id).toBe(instanceId);
    for (const read of [
      (i: typeof a) => i.backups.list(),
      (i: typeof a) => i.alarms.list(),
      (i: typeof a) => i.recipients.list(),
      (i: typeof a) => i.maintenance.list(),
      (i: typeof a) => i.integrations['metrics'].list(),
    ]) {
      // download links carry the listing time; both clocks stand at the same time
      expect(read(b)).toEqual(read(a));
    }
    const accountA = registry.authenticateInstance(newInstanceKey)!.account;
    const accountB = loaded.authenticateInstance(newInstanceKey)!.account;
    expect(accountB.instances.list()).toEqual(accountA.instances.list());
    expect(accountB.team.list()).toEqual(accountA.team.list());
    expect(accountB.invoices.list()).toEqual(accountA.invoices.list());
    expect(accountB.audit.csv()).toBe(accountA.audit.csv());
  });

  it('a loaded state keeps its seed: reset goes back to the fixtures of that seed', () => {
    const loaded = fresh();
    registry.reseed(7);
    const dump = json(registry.dump());
    expect(loaded.seed).toBe(1);
    loadStateParts(loaded, dump);
    expect(loaded.seed).toBe(7);
    loaded.reset();
    expect([...loaded.allHomes()].map((h) => h.records)[0]!.id).toBe(dump.accounts[0]!.id);
  });
});

describe('a state that cannot be loaded', () => {
  let good: RegistryState;
  beforeEach(() => {
    busy();
    good = json(registry.dump());
  });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a dump the test breaks on purpose
  const cases: [string, (s: any) => void, RegExp][] = [
    ['another format version', (s) => (s.tusk_state = 2), /tusk_state/],
    ['a missing part', (s) => delete s.clock, /clock/],
    ['an unknown member', (s) => (s.accounts[0].extra = true), /extra/],
    ['a wrong type', (s) => (s.accounts[0].instances[0].id = 'one'), /instances\.0.*id|id.*integer/],
    [
      'a record the contract refuses',
      (s) => (s.accounts[0].instances[0].recipients.items[0].type = 'pigeon'),
      /recipients\.items\.0/,
    ],
    ['an unknown plan', (s) => (s.accounts[0].instances[0].plan = 'gold'), /gold is not a catalogue plan/],
    ['an unknown region', (s) => (s.accounts[0].instances[0].region = 'moon::base-1'), /not a catalogue region/],
    [
      'a key used twice',
      (s) => (s.accounts[0].keys[1].key = s.accounts[0].keys[0].key),
      /accounts\.0\.keys\.1\.key: this API key appears twice in the state \(also at accounts\.0\.keys\.0\.key\)/,
    ],
    [
      'an instance id above the sequence',
      (s) => (s.accounts[0].last_instance_id = 1),
      /instances\.\d+\.id: id \d+ is above last_id 1/,
    ],
    [
      'an alarm naming an unknown recipient',
      (s) => s.accounts[0].instances[0].alarms.items[0].recipients.push(999),
      /unknown recipient 999/,
    ],
    [
      'no default recipient',
      (s) => (s.accounts[0].instances[0].recipients.default_id = 999),
      /default recipient 999 is missing/,
    ],
    [
      'a backup of another database',
      (s) => (s.accounts[0].instances[0].backups.items[0].database_name = 'other'),
      /not a database of the instance/,
    ],
    ['an outbox id above the sequence', (s) => (s.outbox.last_id = 0), /outbox/],
    ['a key acting for no team member', (s) => (s.accounts[0].keys[0].email = 'ghost@example.com'), /no team member/],
  ];

  for (const [what, spoil, message] of cases) {
    it(`is refused for ${what}, and nothing changes`, () => {
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a dump the test breaks on purpose
      const bad = json(good) as any;
      spoil(bad);
      const before = JSON.stringify(registry.dump());
      let error: unknown;
      try {
        checkStateShape(bad, tusk.deps.schemas, tusk.control.deps.document);
        loadStateParts(registry, bad);
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(StateError);
      expect((error as StateError).message).toMatch(message);
      expect(JSON.stringify(registry.dump())).toBe(before);
      // the keys of the current state still open it
      expect(registry.authenticateCustomer(ROLE_KEYS.devops)).toBeDefined();
    });
  }
});

describe('the message of a StateError', () => {
  const problems = (n: number) =>
    Array.from({ length: n }, (_, k) => `state accounts.${k}.plan: gold is not a catalogue plan`);

  it('names every problem, separated by "; ", when there are at most ten', () => {
    expect(new StateError(problems(1)).message).toBe(
      'not a valid Tusk state: state accounts.0.plan: gold is not a catalogue plan',
    );
    expect(new StateError(problems(10)).message).toBe(`not a valid Tusk state: ${problems(10).join('; ')}`);
  });

  it('names the first ten problems and counts the others', () => {
    expect(new StateError(problems(11)).message).toBe(`not a valid Tusk state: ${problems(10).join('; ')}; and 1 more`);
    const error = new StateError(problems(25));
    expect(error.message).toBe(`not a valid Tusk state: ${problems(10).join('; ')}; and 15 more`);
    expect(error.problems).toEqual(problems(25));
  });
});

describe('GET and PUT /__tusk/state', () => {
  const control = (path: string, init?: RequestInit) => tusk.customer.fetch(new Request(`http://tusk${path}`, init));

  it('GET dumps the state; PUT of it loads it (on either port)', async () => {
    busy();
    const dump = (await (await control('/__tusk/state')).json()) as RegistryState;
    expect(dump).toEqual(json(registry.dump()));
    registry.reset();
    const res = await tusk.instance.fetch(
      new Request('http://tusk/__tusk/state', { method: 'PUT', body: JSON.stringify(dump) }),
    );
    expect(res.status).toBe(200);
    expect(((await res.json()) as { seed: number }).seed).toBe(1);
    // the clock moved with the load, so the due callback has had its first attempt since
    const { outbox: _o, ...rest } = json(registry.dump());
    const { outbox: _d, ...expected } = dump;
    expect(rest).toEqual(expected);
  });

  it('PUT of a malformed or inconsistent dump is a 400 in the Error shape, naming the field and the rule, and changes nothing', async () => {
    const before = JSON.stringify(registry.dump());
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a dump the test breaks on purpose
    const dump = json(registry.dump()) as any;
    dump.accounts[0].instances[0].plan = 'gold';
    const res = await control('/__tusk/state', { method: 'PUT', body: '{' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: expect.stringMatching(/^body: malformed JSON/),
      field: 'body',
      rule: 'json',
    });
    for (const [body, field, rule] of [
      ['[]', 'state', 'type'],
      [JSON.stringify({ tusk_state: 1 }), 'seed', 'required'],
      [JSON.stringify(dump), 'accounts.0.instances.0.plan', 'exists'],
    ]) {
      const res = await control('/__tusk/state', { method: 'PUT', body });
      expect(res.status).toBe(400);
      const err = await res.json();
      expect(err).toEqual({ error: expect.stringContaining(`${field}: `), field, rule });
    }
    expect(JSON.stringify(registry.dump())).toBe(before);
  });
});

/** A registry with `options` that holds `state`, loaded as the control plane loads one. */
function loadedRegistry(state: RegistryState, options: RegistryOptions): Registry {
  const registry = new Registry(options);
  loadStateParts(registry, state);
  return registry;
}
