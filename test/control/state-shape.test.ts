// checkStateShape: a dump is checked against the State schema of the control document, then its API
// records against the interfaces' schemas; each problem names its place in the dump.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { StateError } from '../../src/domain/state.js';
import { checkStateShape } from '../../src/control/state-check.js';

let tusk: Tusk;
beforeAll(async () => {
  tusk = await createTusk({ log: 'off' });
  const { account } = tusk.registry.authenticateCustomer('tusk-admin-key')!;
  const inst = account.instanceStore(1)!;
  inst.integrations['logs'].create('logs_e', { token: 'a' });
  inst.integrations['metrics'].create('metrics_c_v3', { api_key: 'k', region: 'eu' });
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a dump the test breaks on purpose
const dump = (): any => JSON.parse(JSON.stringify(tusk.registry.dump()));
const problemsOf = (value: unknown): string[] => {
  try {
    checkStateShape(value, tusk.deps.schemas, tusk.control.deps.document);
  } catch (err) {
    expect(err).toBeInstanceOf(StateError);
    return (err as StateError).problems;
  }
  throw new Error('the state was accepted');
};
const ROLES = 'must be one of "admin", "devops", "member", "monitor", "billing manager"';

describe('the records of a state checked against the API documents', () => {
  it('accepts the dump of a running registry', () => {
    expect(() => checkStateShape(dump(), tusk.deps.schemas, tusk.control.deps.document)).not.toThrow();
  });

  it('names each refused record of an account by its place in the dump', () => {
    const s = dump();
    const a = s.accounts[0];
    a.id = 'not-a-uuid';
    a.customer = {};
    a.keys[1].role = 'boss';
    a.team[2].email = 'nobody';
    a.invoices[1].detail = {};
    expect(problemsOf(s)).toStrictEqual([
      'accounts.0.id: must be a valid uuid',
      'accounts.0.customer.company: is required',
      `accounts.0.keys.1.role: ${ROLES}`,
      'accounts.0.team.2.email: must be a valid email',
      'accounts.0.invoices.1.detail.period: is required',
    ]);
  });

  it('names each refused record of an instance by its place in the dump', () => {
    const s = dump();
    const x = s.accounts[0].instances[1];
    x.recipients.items[0].type = 'pigeon';
    x.alarms.items[2].type = 'heat';
    expect(problemsOf(s)).toStrictEqual([
      'accounts.0.instances.1.recipients.items.0.type: must be one of "email", "webhook", "paging_a", "incident_b", "incident_b_eu", "incident_c", "chat_a", "chat_b"',
      'accounts.0.instances.1.alarms.items.2.type: must be one of "cpu", "memory", "disk", "netsplit", "server_unreachable", "notice"',
    ]);
  });

  it('checks the logs and the metrics integrations of an instance', () => {
    for (const kind of ['logs', 'metrics']) {
      const s = dump();
      s.accounts[0].instances[0].integrations[kind][0].id = 'one';
      const problems = problemsOf(s);
      expect(problems, kind).toHaveLength(1);
      // The place in the dump: integrations.logs.0 or integrations.metrics.0.
      expect(problems[0], kind).toBe(`accounts.0.instances.0.integrations.${kind}.0.id: must be integer`);
    }
  });

  it('stops after twenty problems of the records', () => {
    const s = dump();
    const a = s.accounts[0];
    a.keys = Array.from({ length: 25 }, (_, i) => ({ ...a.keys[0], id: `key-${i + 1}`, role: 'boss' }));
    expect(problemsOf(s)).toStrictEqual(Array.from({ length: 20 }, (_, i) => `accounts.0.keys.${i}.role: ${ROLES}`));
  });

  it('stops after twenty problems of the shape, each named by its place in the state', () => {
    const s = dump();
    for (let i = 0; i < 25; i++) s[`extra${i}`] = i;
    expect(problemsOf(s)).toStrictEqual(
      Array.from({ length: 20 }, (_, i) => `extra${i}: is not an accepted field here`),
    );
  });
});
