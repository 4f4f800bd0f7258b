import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { readContractRules, type ContractRules } from '../../src/openapi/rules.js';
import { Registry } from '../../src/accounts/registry.js';
import { VirtualClock } from '../../src/domain/clock.js';
import { AccountStore } from '../../src/resources/account.js';
import { TEAM_MESSAGES } from '../../src/resources/team/team.js';
import type { AuditEvent } from '../../src/resources/auditlog/audit-log.js';
import { auditTimestamp, parsePitSecond } from '../../src/domain/dates.js';
import { ROLE_KEYS, instanceKey, type AccountFixture, type InvoiceFixture } from '../../fixtures/index.js';
import { LIST_CAPS } from '../../src/core/limits.js';
import type { ApiKeyRecord, CreateInstanceBody } from '../../src/domain/types.js';
import { refused } from './instance-setup.js';

const NOW = Date.UTC(2026, 10, 21, 13, 30, 0); // 2026-11-21 13:30:00 UTC
const ADMIN_KEY = 'tusk-admin-key';
const PROVISION_MS = 1000;

let rules: ContractRules;
beforeAll(async () => {
  rules = readContractRules((await loadDocuments()).instance);
});

let clock: VirtualClock;
let registry: Registry;
let account: AccountStore;
let admin: ApiKeyRecord;
let devops: ApiKeyRecord;

beforeEach(() => {
  clock = new VirtualClock();
  clock.pin(NOW);
  registry = new Registry({ seed: 1, adminKey: ADMIN_KEY, clock, provisionDelayMs: PROVISION_MS, rules });
  const principal = registry.authenticateCustomer(ADMIN_KEY)!;
  account = principal.account;
  admin = principal.key;
  devops = registry.authenticateCustomer(ROLE_KEYS.devops)!.key;
});

/** Everything a refused request must leave as it was. */
const snapshot = () => ({
  instances: account.instances.list(),
  team: account.team.list(),
  audit: account.audit.rows().length,
  keys: account.apiKeys.list(),
});

const dedicated = (over: Partial<CreateInstanceBody> = {}): CreateInstanceBody => ({
  name: 'orders-db',
  plan: 'hippo',
  region: 'amazon-web-services::us-east-1',
  ...over,
});
const lastAudit = () => account.audit.rows().at(-1)!;
/** A store of another account built from the seeded fixture with `over` (none of the seeded keys or instances). */
const otherAccount = (over: Partial<AccountFixture>) =>
  new AccountStore(
    { ...account.fixture, id: 'other-account', keys: [], instances: [], ...over },
    account.catalogue,
    registry.context,
  );

describe('AccountStore: instances', () => {
  it('lists the seeded instances in ascending id order with exactly the summary fields', () => {
    const list = account.instances.list();
    expect(list.length).toBeGreaterThanOrEqual(2);
    expect(list.map((i) => i.id)).toEqual([...list.map((i) => i.id)].sort((a, b) => a - b));
    for (const i of list)
      expect(Object.keys(i).sort()).toEqual(['id', 'name', 'plan', 'providerid', 'region', 'tags', 'url']);
  });

  it('gets a seeded instance with its fixed key, ready', () => {
    const first = account.instances.list()[0]!;
    const got = account.instances.get(first.id);
    expect(got).toEqual({ ...first, apikey: instanceKey(first.id), ready: true });
    expect(registry.authenticateInstance(instanceKey(first.id))?.instance.id).toBe(first.id);
  });

  it('creates a standalone instance with defaults, a working key and an id above every used id', () => {
    const created = account.instances.create(dedicated(), admin);
    expect(created.id).toBeGreaterThan(Math.max(...account.fixture.usedInstanceIds));
    expect(created.url).toMatch(/^postgres:\/\/[^:@/]+:[^@/]+@[^:/]+:\d+\/[^/]+$/);
    const store = account.instanceStore(created.id)!;
    expect(store.pgVersion).toBe('17');
    expect(store.backend.name).toBe('postgresql');
    expect(store.createdAt).toBe(NOW);
    expect(registry.authenticateInstance(created.apikey)?.instance).toBe(store);
    expect(account.instances.get(created.id)).toMatchObject({
      id: created.id,
      name: 'orders-db',
      plan: 'hippo',
      region: 'amazon-web-services::us-east-1',
      url: created.url,
      apikey: created.apikey,
    });
    expect(account.instances.list().at(-1)!.id).toBe(created.id);
  });

  it('reports ready only after the provisioning delay', () => {
    const { id } = account.instances.create(dedicated({ pg_version: '15' }), admin);
    expect(account.instances.get(id).ready).toBe(false);
    clock.advance(PROVISION_MS - 1);
    expect(account.instances.get(id).ready).toBe(false);
    clock.advance(1);
    expect(account.instances.get(id).ready).toBe(true);
    expect(account.instanceStore(id)!.pgVersion).toBe('15');
  });

  it('refuses an unknown plan, naming plan, and changes nothing', () => {
    const before = snapshot();
    refused(() => account.instances.create(dedicated({ plan: 'gold' }), admin), 400, 'plan');
    expect(snapshot()).toEqual(before);
    // no id was used up by the refused request
    expect(account.instances.create(dedicated(), admin).id).toBe(Math.max(...account.fixture.usedInstanceIds) + 1);
  });

  it('refuses an unknown region, naming region', () => {
    const before = snapshot();
    refused(() => account.instances.create(dedicated({ region: 'amazon-web-services::mars-1' }), admin), 400, 'region');
    refused(() => account.instances.create(dedicated({ region: 'nowhere::us-east-1' }), admin), 400, 'region');
    expect(snapshot()).toEqual(before);
  });

  it('refuses a shared plan in a region without shared plans, naming region', () => {
    const before = snapshot();
    const e = refused(
      () => account.instances.create(dedicated({ plan: 'panda', region: 'amazon-web-services::us-east-2' }), admin),
      400,
      'region',
    );
    expect(e.message).toMatch(/shared/);
    expect(snapshot()).toEqual(before);
    expect(
      account.instances.create(dedicated({ plan: 'panda', region: 'amazon-web-services::eu-west-1' }), admin).id,
    ).toBeGreaterThan(0);
  });

  it('forks an instance of the account and refuses a source that is not one, naming instance_id', () => {
    const source = account.instances.list()[0]!.id;
    const before = snapshot();
    refused(() => account.instances.create(dedicated({ action: 'fork', instance_id: 999 }), admin), 400, 'instance_id');
    refused(() => account.instances.create(dedicated({ action: 'fork' }), admin), 400, 'instance_id');
    expect(snapshot()).toEqual(before);
    const fork = account.instances.create(dedicated({ name: 'fork', action: 'fork', instance_id: source }), admin);
    expect(account.instances.get(fork.id).name).toBe('fork');
    expect(lastAudit().extras).toContainEqual(['source_id', source]);
  });

  it('refuses a deleted instance as the source of a fork', () => {
    const { id } = account.instances.create(dedicated(), admin);
    account.instances.delete(id, admin);
    refused(() => account.instances.create(dedicated({ action: 'fork', instance_id: id }), admin), 400, 'instance_id');
  });

  it('creates a point-in-time copy between the source creation and now, and refuses other times, naming pit', () => {
    const source = account.instances.create(dedicated(), admin).id; // created at NOW
    clock.advance(60_000);
    const before = snapshot();
    const pit = (p: string | undefined) => () =>
      account.instances.create(
        dedicated({ action: 'pit', instance_id: source, ...(p === undefined ? {} : { pit: p }) }),
        admin,
      );
    refused(pit(undefined), 400, 'pit');
    refused(pit('2026-11-21 13:31:01'), 400, 'pit'); // in the future
    refused(pit('2026-11-21 13:29:59'), 400, 'pit'); // before the source was created
    refused(pit('2026-02-30 10:00:00'), 400, 'pit'); // no such day
    refused(
      () =>
        account.instances.create(dedicated({ action: 'pit', instance_id: 4242, pit: '2026-11-21 13:30:30' }), admin),
      400,
      'instance_id',
    );
    expect(snapshot()).toEqual(before);
    expect(
      account.instances.create(dedicated({ action: 'pit', instance_id: source, pit: '2026-11-21 13:30:00' }), admin).id,
    ).toBeGreaterThan(source);
    expect(
      account.instances.create(dedicated({ action: 'pit', instance_id: source, pit: '2026-11-21 13:31:00' }), admin).id,
    ).toBeGreaterThan(source);
    expect(lastAudit().extras).toContainEqual(['pit', '2026-11-21 13:31:00']);
  });

  it('compares a pit with a source created within a second at whole seconds', () => {
    clock.pin(NOW + 400);
    const source = account.instances.create(dedicated(), admin).id;
    clock.advance(2000);
    expect(
      account.instances.create(dedicated({ action: 'pit', instance_id: source, pit: '2026-11-21 13:30:00' }), admin).id,
    ).toBeGreaterThan(source);
  });

  it('ignores instance_id and pit for a standalone instance', () => {
    const { id } = account.instances.create(
      dedicated({ action: 'standalone', instance_id: 999, pit: '2999-01-01 00:00:00' }),
      admin,
    );
    expect(account.instances.get(id).name).toBe('orders-db');
  });

  it('changes the name and the plan (with its backend) of an instance, keeping id, url, apikey and region', () => {
    const { id, url, apikey } = account.instances.create(dedicated(), admin);
    const changed = account.instances.update(id, { name: 'renamed', plan: 'compat-1' }, admin);
    expect(changed).toMatchObject({
      id,
      url,
      apikey,
      name: 'renamed',
      plan: 'compat-1',
      region: 'amazon-web-services::us-east-1',
    });
    expect(account.instances.get(id)).toEqual(changed);
    expect(account.instanceStore(id)!.backend.name).toBe('pgcompat');
    expect(account.instances.update(id, { plan: 'elephant' }, admin).name).toBe('renamed');
    expect(lastAudit()).toMatchObject({
      event: 'instance.update',
      extras: [
        ['instance_id', id],
        ['plan', 'elephant'],
      ],
    });
  });

  it('refuses an unknown plan, an empty change and a shared plan the region does not offer, changing nothing', () => {
    const { id } = account.instances.create(dedicated({ region: 'amazon-web-services::us-east-2' }), admin);
    const before = snapshot();
    refused(() => account.instances.update(id, { name: 'x', plan: 'gold' }, admin), 400, 'plan');
    refused(() => account.instances.update(id, { plan: 'turtle' }, admin), 400, 'plan');
    refused(() => account.instances.update(id, {}, admin), 400, 'body', 'minProperties');
    expect(snapshot()).toEqual(before);
    expect(account.instances.get(id).name).toBe('orders-db');
  });

  it('answers 404 for an unknown instance on get, change and delete', () => {
    const before = snapshot();
    expect(refused(() => account.instances.get(999), 404).message).toMatch(/instance with id 999/);
    refused(() => account.instances.update(999, { name: 'x' }, admin), 404);
    refused(() => account.instances.delete(999, admin), 404);
    expect(snapshot()).toEqual(before);
  });

  it('deletes an instance: its key is revoked at once, its store dropped, and its id never reused', () => {
    const { id, apikey } = account.instances.create(dedicated(), admin);
    account.instances.delete(id, devops);
    expect(registry.authenticateInstance(apikey)).toBeUndefined();
    expect(account.instanceStore(id)).toBeUndefined();
    expect(account.instances.list().map((i) => i.id)).not.toContain(id);
    refused(() => account.instances.get(id), 404);
    refused(() => account.instances.delete(id, admin), 404);
    expect(account.instances.create(dedicated(), admin).id).toBe(id + 1);
    expect(account.audit.rows().at(-2)).toMatchObject({ event: 'instance.delete', user: devops.email });
  });

  it('deletes a seeded instance and revokes its fixed key', () => {
    const seeded = account.instances.list()[0]!.id;
    account.instances.delete(seeded, admin);
    expect(registry.authenticateInstance(instanceKey(seeded))).toBeUndefined();
  });
  it('names the rule and the reason of each refused fork or point-in-time copy', () => {
    const source = account.instances.create(dedicated(), admin).id; // created at NOW
    clock.advance(60_000);
    const create = (over: Partial<CreateInstanceBody>) => () => account.instances.create(dedicated(over), admin);
    const before = snapshot();
    expect(refused(create({ action: 'fork' }), 400, 'instance_id', 'required').message).toBe(
      'instance_id: is required with action fork',
    );
    expect(refused(create({ action: 'pit', pit: '2026-11-21 13:30:30' }), 400, 'instance_id', 'required').message).toBe(
      'instance_id: is required with action pit',
    );
    expect(refused(create({ action: 'fork', instance_id: 999 }), 400, 'instance_id', 'exists').message).toBe(
      'instance_id: no instance of this account has id 999',
    );
    expect(refused(create({ action: 'pit', instance_id: source }), 400, 'pit', 'required').message).toBe(
      'pit: is required with action pit',
    );
    expect(
      refused(create({ action: 'pit', instance_id: source, pit: '2026-02-30 10:00:00' }), 400, 'pit', 'format').message,
    ).toBe('pit: 2026-02-30 10:00:00 is not a valid time (yyyy-mm-dd hh:mm:ss, UTC)');
    expect(
      refused(create({ action: 'pit', instance_id: source, pit: '2026-11-21 13:31:01' }), 400, 'pit', 'not-in-future')
        .message,
    ).toBe('pit: 2026-11-21 13:31:01 lies in the future');
    expect(
      refused(
        create({ action: 'pit', instance_id: source, pit: '2026-11-21 13:29:59' }),
        400,
        'pit',
        'not-before-source',
      ).message,
    ).toBe(`pit: 2026-11-21 13:29:59 lies before instance ${source} was created (2026-11-21 13:30:00 UTC)`);
    expect(snapshot()).toEqual(before);
  });

  it('names the rule and the reason of a refused plan, region or shared plan', () => {
    expect(
      refused(() => account.instances.create(dedicated({ plan: 'gold' }), admin), 400, 'plan', 'exists').message,
    ).toBe('plan: gold is not a plan (see listPlans)');
    expect(
      refused(
        () => account.instances.create(dedicated({ region: 'amazon-web-services::mars-1' }), admin),
        400,
        'region',
        'exists',
      ).message,
    ).toBe('region: amazon-web-services::mars-1 is not a region (see listRegions; form <provider>::<region>)');
    expect(
      refused(
        () => account.instances.create(dedicated({ plan: 'panda', region: 'amazon-web-services::us-east-2' }), admin),
        400,
        'region',
        'shared-plans',
      ).message,
    ).toBe('region: the shared plan panda is not offered in amazon-web-services::us-east-2, which has no shared plans');
    const { id } = account.instances.create(dedicated({ region: 'amazon-web-services::us-east-2' }), admin);
    expect(
      refused(() => account.instances.update(id, { plan: 'turtle' }, admin), 400, 'plan', 'shared-plans').message,
    ).toBe('plan: the shared plan turtle is not offered in amazon-web-services::us-east-2, which has no shared plans');
    expect(refused(() => account.instances.update(id, {}, admin), 400, 'body', 'minProperties').message).toBe(
      'body: give at least one of name, plan and tags',
    );
  });

  it('records the source and the pit in the audit row only for the actions that use them', () => {
    const source = account.instances.list()[0]!.id;
    const pit = '2026-11-21 13:30:00';
    const extrasOf = (over: Partial<CreateInstanceBody>) => {
      const { id } = account.instances.create(dedicated(over), admin);
      const [first, ...rest] = lastAudit().extras;
      expect(first).toStrictEqual(['instance_id', id]);
      return rest;
    };
    const common = [
      ['name', 'orders-db'],
      ['plan', 'hippo'],
      ['region', 'amazon-web-services::us-east-1'],
    ];
    expect(extrasOf({ action: 'standalone', instance_id: source, pit })).toStrictEqual([
      ...common,
      ['action', 'standalone'],
    ]);
    expect(extrasOf({ action: 'fork', instance_id: source, pit })).toStrictEqual([
      ...common,
      ['action', 'fork'],
      ['source_id', source],
    ]);
    expect(extrasOf({ action: 'pit', instance_id: source, pit })).toStrictEqual([
      ...common,
      ['action', 'pit'],
      ['source_id', source],
      ['pit', pit],
    ]);
  });

  it('refuses an instance beyond the per-account cap, naming instances, until one is deleted', () => {
    // The cap is 10,000 (test/reliability/limits.test.ts fills it); lowered here to keep this fast.
    const caps = LIST_CAPS as { instancesPerAccount: number };
    const cap = caps.instancesPerAccount;
    caps.instancesPerAccount = account.instances.list().length + 1;
    try {
      const { id } = account.instances.create(dedicated(), admin);
      const before = snapshot();
      const e = refused(() => account.instances.create(dedicated(), admin), 400, undefined, 'maxItems');
      expect(e.message).toBe(
        `instances: an account has at most ${caps.instancesPerAccount} instances; delete one to create another`,
      );
      expect(snapshot()).toEqual(before);
      account.instances.delete(id, admin);
      expect(account.instances.create(dedicated(), admin).id).toBe(id + 1);
    } finally {
      caps.instancesPerAccount = cap;
    }
  });
});

describe('AccountStore: invoices', () => {
  it('lists every invoice in ascending period order without bounds', () => {
    const all = account.invoices.list();
    expect(all.length).toBeGreaterThanOrEqual(12);
    const index = (p: string) => Number(p.split('/')[0]) * 12 + Number(p.split('/')[1]);
    expect(all.map((i) => index(i.period))).toEqual([...all.map((i) => index(i.period))].sort((a, b) => a - b));
    expect(all.at(-1)).toMatchObject({ period: '2026/10', paid: false, currency: 'USD', account_name: account.name });
    expect(all.slice(0, -1).every((i) => i.paid)).toBe(true);
  });

  it('filters by from and to, both inclusive', () => {
    expect(account.invoices.list('2026-03', '2026-05').map((i) => i.period)).toEqual(['2026/3', '2026/4', '2026/5']);
    expect(account.invoices.list('2026-09').map((i) => i.period)).toEqual(['2026/9', '2026/10']);
    expect(account.invoices.list(undefined, '2025-10').map((i) => i.period)).toEqual(['2025/9', '2025/10']);
    expect(account.invoices.list('2026-04', '2026-04').map((i) => i.period)).toEqual(['2026/4']);
    expect(account.invoices.list('2030-01', '2030-12')).toEqual([]);
  });

  it('views.invoices() is the JSON of listInvoices() for every range, asked once or again', () => {
    for (const [from, to] of [
      [undefined, undefined],
      ['2026-03', '2026-05'],
      ['2026-09', undefined],
      [undefined, '2025-10'],
      ['2030-01', '2030-12'],
    ] as const) {
      for (let again = 0; again < 2; again++)
        expect(Buffer.from(account.invoices.listJson(from, to)).toString()).toBe(
          JSON.stringify(account.invoices.list(from, to)),
        );
    }
  });

  it('refuses from after to, naming to', () => {
    refused(() => account.invoices.list('2026-05', '2026-04'), 400, 'to');
    refused(() => account.invoices.listJson('2026-05', '2026-04'), 400, 'to');
    refused(() => account.invoices.listJson('2026-05', '2026-04'), 400, 'to');
  });

  it('gets an invoice by id with the list record’s period and total, and 404 for an unknown id', () => {
    const rec = account.invoices.list('2026-06', '2026-06')[0]!;
    const detail = account.invoices.get(rec.id);
    expect(detail).toMatchObject({ period: rec.period, total: rec.total, currency: rec.currency });
    expect(detail.customer.account_name).toBe(rec.account_name);
    refused(() => account.invoices.get(1), 404);
  });

  it('gets the invoice of a period when the year matches the month’s year', () => {
    const rec = account.invoices.list('2026-06', '2026-06')[0]!;
    expect(account.invoices.forPeriod(2026, '2026-06')).toEqual(account.invoices.get(rec.id));
    refused(() => account.invoices.forPeriod(2025, '2026-06'), 400, 'month');
    expect(refused(() => account.invoices.forPeriod(2020, '2020-01'), 404).message).toMatch(/2020\/1/);
    refused(() => account.invoices.forPeriod(2026, '2026-11'), 404); // the current month is not invoiced yet
  });

  it('hands out copies: changing an answer does not change the store', () => {
    const id = account.invoices.list()[0]!.id;
    account.invoices.get(id).lines.length = 0;
    expect(account.invoices.get(id).lines.length).toBeGreaterThan(0);
  });
  it('names the rule and the reason of a refused range or period, and the id of an unknown invoice', () => {
    expect(refused(() => account.invoices.list('2026-05', '2026-04'), 400, 'to', 'not-before-from').message).toBe(
      'to: 2026-04 lies before from 2026-05',
    );
    expect(refused(() => account.invoices.get(1), 404).message).toBe('Not found: no invoice with id 1');
    expect(refused(() => account.invoices.forPeriod(2025, '2026-06'), 400, 'month', 'year-matches').message).toBe(
      'month: the year of 2026-06 must equal year 2025',
    );
  });

  it('lists invoices by period, then by id, whatever the order it was given them in', () => {
    const [a, b, c] = account.fixture.invoices.slice(-3) as [InvoiceFixture, InvoiceFixture, InvoiceFixture];
    const twin: InvoiceFixture = { ...structuredClone(b), id: b.id + 1000, number: b.number + 1000 }; // same period as b
    const store = otherAccount({ invoices: [c, twin, b, a] });
    expect(store.invoices.list().map((i) => [i.period, i.id])).toEqual([
      [a.detail.period, a.id],
      [b.detail.period, b.id],
      [b.detail.period, twin.id],
      [c.detail.period, c.id],
    ]);
  });
});

describe('AccountStore: audit log', () => {
  const lines = (csv: string) => csv.split('\r\n').filter(Boolean);

  it('starts with the exact header and shows the latest month with events by default', () => {
    const csv = account.audit.csv();
    expect(csv.startsWith('Timestamp,Event,Source,User,Extras\r\n')).toBe(true);
    const rows = lines(csv).slice(1);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r).toMatch(/^2026-11-\d\d \d\d:\d\d:\d\d UTC,[a-z]+\.[a-z]+,api,[^,]+@[^,]+,/);
  });

  it('shows the rows of a chosen month, oldest first, and only the header for a month without events', () => {
    const rows = lines(account.audit.csv('2026-06')).slice(1);
    const stamps = rows.map((r) => r.slice(0, 23));
    expect(stamps.every((s) => s.startsWith('2026-06-'))).toBe(true);
    expect(stamps).toEqual([...stamps].sort());
    expect(account.audit.csv('2001-01')).toBe('Timestamp,Event,Source,User,Extras\r\n');
  });

  it('records a row for every state-changing call, with the acting key’s e-mail and key = value extras', () => {
    clock.pin(Date.UTC(2026, 11, 2, 8, 5, 9)); // a new month
    const { id } = account.instances.create(dedicated({ name: 'audit-db' }), devops);
    account.instances.update(id, { name: 'audit-db-2' }, admin);
    account.instances.delete(id, admin);
    account.team.invite({ email: 'new.dev@example.com' }, admin);
    const member = account.team.list().find((m) => m.email === 'new.dev@example.com')!;
    account.team.update(member.id, { role: 'monitor', tags: 'production' }, admin);
    account.team.remove('new.dev@example.com', admin);
    account.apiKeys.rotate(devops.id);
    const rows = lines(account.audit.csv()).slice(1);
    expect(rows).toEqual([
      `2026-12-02 08:05:09 UTC,instance.create,api,${devops.email},"instance_id = ${id}, name = audit-db, plan = hippo, region = amazon-web-services::us-east-1, action = standalone"`,
      `2026-12-02 08:05:09 UTC,instance.update,api,${admin.email},"instance_id = ${id}, name = audit-db-2"`,
      `2026-12-02 08:05:09 UTC,instance.delete,api,${admin.email},"instance_id = ${id}, name = audit-db-2"`,
      `2026-12-02 08:05:09 UTC,team.invite,api,${admin.email},"email = new.dev@example.com, role = member"`,
      `2026-12-02 08:05:09 UTC,team.update,api,${admin.email},"user_id = ${member.id}, email = new.dev@example.com, role = monitor, tags = production"`,
      `2026-12-02 08:05:09 UTC,team.remove,api,${admin.email},"user_id = ${member.id}, email = new.dev@example.com"`,
      `2026-12-02 08:05:09 UTC,apikey.rotate,api,${devops.email},"role = devops, comment = Terraform deployments"`,
    ]);
    expect(account.audit.csv('2026-12')).toBe(account.audit.csv());
  });

  it('views.instances() is always the JSON of listInstances(): after creates, renames, tags, a plan change, a new password and a delete', () => {
    const json = () => Buffer.from(account.instances.listJson()).toString();
    const same = () => expect(json()).toBe(JSON.stringify(account.instances.list()));
    same();
    const a = account.instances.create(dedicated({ name: 'json-a' }), admin);
    const b = account.instances.create(dedicated({ name: 'json-b' }), admin);
    same();
    expect(account.instances.listJson()).toBe(account.instances.listJson());
    account.instances.update(a.id, { name: 'json-a2' }, admin);
    same();
    account.instances.update(a.id, { tags: ['x', 'y'] }, admin);
    same();
    const other = account.catalogue.plans.find((p) => !p.shared && p.name !== 'hippo')!;
    account.instances.update(b.id, { plan: other.name }, admin);
    same();
    account.instanceStore(b.id)!.rotatePassword();
    same();
    account.instances.delete(a.id, admin);
    same();
    expect(json()).not.toMatch(/json-a2/);
  });

  it('a CSV read before a change is never served after it: each new row shows at once, the month asked for too', () => {
    clock.pin(Date.UTC(2026, 11, 3, 9, 0, 0));
    account.instances.create(dedicated({ name: 'csv-1' }), admin);
    const first = account.audit.csv();
    expect(account.audit.csv()).toBe(first);
    const text = (month?: string) => Buffer.from(account.audit.csvBytes(month)).toString();
    expect(text()).toBe(first);
    account.instances.create(dedicated({ name: 'csv-2' }), admin);
    expect(text()).toMatch(/name = csv-2/);
    expect(text('2001-01')).toBe('Timestamp,Event,Source,User,Extras\r\n');
    const second = account.audit.csv();
    expect(lines(second).length).toBe(lines(first).length + 1);
    expect(second).toMatch(/name = csv-2/);
    expect(account.audit.csv('2026-12')).toBe(second);
    expect(account.audit.csv('2001-01')).toBe('Timestamp,Event,Source,User,Extras\r\n');
    expect(account.audit.csv()).toBe(second);
  });

  it('views.team() is always the JSON of listTeamMembers(): after an invite, an update and a removal', () => {
    const same = () =>
      expect(Buffer.from(account.team.listJson()).toString()).toBe(JSON.stringify(account.team.list()));
    same();
    expect(account.team.listJson()).toBe(account.team.listJson());
    account.team.invite({ email: 'json.member@example.com' }, admin);
    same();
    const member = account.team.list().find((m) => m.email === 'json.member@example.com')!;
    account.team.update(member.id, { role: 'monitor' }, admin);
    same();
    account.team.remove('json.member@example.com', admin);
    same();
  });

  it('finds team members by e-mail without regard to case: a second invite is refused, a removal finds them', () => {
    account.team.invite({ email: 'Case.Member@Example.com' }, admin);
    refused(() => account.team.invite({ email: 'case.member@example.com' }, admin), 400, 'email');
    account.team.remove('CASE.MEMBER@example.COM', admin);
    expect(account.team.list().some((m) => m.email === 'Case.Member@Example.com')).toBe(false);
    account.team.invite({ email: 'case.member@example.com' }, admin);
    expect(account.team.list().some((m) => m.email === 'case.member@example.com')).toBe(true);
  });

  it('records nothing for a refused call or a read', () => {
    const before = account.audit.rows().length;
    refused(() => account.instances.create(dedicated({ plan: 'gold' }), admin), 400, 'plan');
    account.instances.list();
    account.invoices.list();
    account.audit.csv();
    expect(account.audit.rows().length).toBe(before);
  });

  it('quotes fields as RFC 4180 says', () => {
    clock.pin(Date.UTC(2027, 0, 5, 0, 0, 0));
    account.instances.create(dedicated({ name: 'say "hi", db' }), admin);
    const row = lines(account.audit.csv())[1]!;
    expect(row).toContain('"instance_id = ');
    expect(row).toContain('name = say ""hi"", db,');
  });

  it('gives the current month’s header only for an account without events', () => {
    const fixture = { ...account.fixture, audit: [], keys: [], instances: [] };
    const empty = new AccountStore(fixture, account.catalogue, registry.context);
    expect(empty.audit.csv()).toBe('Timestamp,Event,Source,User,Extras\r\n');
  });

  it('formats timestamps and reads pit times in UTC', () => {
    expect(auditTimestamp(Date.UTC(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04:05 UTC');
    expect(parsePitSecond('2026-01-02 03:04:05')).toBe(Date.UTC(2026, 0, 2, 3, 4, 5));
    expect(parsePitSecond('2026-02-29 00:00:00')).toBeUndefined();
    expect(parsePitSecond('2028-02-29 00:00:00')).toBe(Date.UTC(2028, 1, 29));
    expect(parsePitSecond('2026-01-02T03:04:05Z')).toBeUndefined();
  });
  it('keeps the latest events only: beyond the cap the oldest are dropped', () => {
    const cap = LIST_CAPS.auditEventsPerAccount;
    const old = Array.from({ length: cap - 1 }, (_, i): AuditEvent => ({
      at: NOW - cap + i,
      event: 'instance.update',
      source: 'api',
      user: admin.email,
      extras: [['n', i]],
    }));
    const store = otherAccount({ audit: old });
    store.team.invite({ email: 'x1@example.com' }, admin);
    expect(store.audit.rows()).toHaveLength(cap);
    expect(store.audit.rows()[0]!.extras).toStrictEqual([['n', 0]]);
    store.team.invite({ email: 'x2@example.com' }, admin);
    store.team.invite({ email: 'x3@example.com' }, admin);
    expect(store.audit.rows()).toHaveLength(cap);
    expect(store.audit.rows()[0]!.extras).toStrictEqual([['n', 2]]);
    expect(store.audit.rows().at(-1)).toStrictEqual({
      at: NOW,
      event: 'team.invite',
      source: 'api',
      user: admin.email,
      extras: [
        ['email', 'x3@example.com'],
        ['role', 'member'],
      ],
    });
  });
});

describe('AccountStore: team', () => {
  it('lists the members with id, email, tfa_auth_enabled and roles only', () => {
    const team = account.team.list();
    expect(team.length).toBeGreaterThanOrEqual(5);
    for (const m of team) expect(Object.keys(m).sort()).toEqual(['email', 'id', 'roles', 'tfa_auth_enabled']);
  });

  it('invites a member with the default role member and no two-factor authentication', () => {
    expect(account.team.invite({ email: 'a@example.com' }, admin)).toEqual({ message: TEAM_MESSAGES.invite });
    expect(TEAM_MESSAGES.invite).toBe('Email invitation sent');
    const m = account.team.list().find((x) => x.email === 'a@example.com')!;
    expect(m).toMatchObject({ tfa_auth_enabled: false, roles: ['member'] });
    expect(m.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('invites with a role, and with tags for member and monitor users', () => {
    account.team.invite({ email: 'b@example.com', role: 'billing manager' }, admin);
    account.team.invite({ email: 'c@example.com', role: 'monitor', tags: 'production,staging' }, admin);
    account.team.invite({ email: 'd@example.com', tags: 'analytics' }, admin);
    const team = account.team.list();
    const find = (e: string) => team.find((x) => x.email === e)!;
    expect(find('b@example.com').roles).toEqual(['billing manager']);
    expect(account.team.tags(find('c@example.com').id)).toEqual(['production', 'staging']);
    expect(account.team.tags(find('d@example.com').id)).toEqual(['analytics']);
  });

  it('refuses an e-mail that is already a member (in any case) and tags for other roles, changing nothing', () => {
    const existing = account.team.list()[1]!.email;
    const before = snapshot();
    refused(() => account.team.invite({ email: existing }, admin), 400, 'email');
    refused(() => account.team.invite({ email: existing.toUpperCase() }, admin), 400, 'email');
    refused(
      () => account.team.invite({ email: 'e@example.com', role: 'devops', tags: 'production' }, admin),
      400,
      'tags',
    );
    expect(snapshot()).toEqual(before);
  });

  it('removes a member by e-mail, and 404 for an e-mail that is no member', () => {
    account.team.invite({ email: 'f@example.com' }, admin);
    expect(account.team.remove('F@example.com', admin)).toEqual({
      message: 'The user has been deleted from team',
    });
    expect(account.team.list().some((m) => m.email === 'f@example.com')).toBe(false);
    const before = snapshot();
    refused(() => account.team.remove('f@example.com', admin), 404);
    expect(snapshot()).toEqual(before);
  });

  it('revokes the keys of a removed member', () => {
    const monitor = registry.authenticateCustomer(ROLE_KEYS.monitor)!.key;
    account.team.remove(monitor.email, admin);
    expect(registry.authenticateCustomer(ROLE_KEYS.monitor)).toBeUndefined();
    expect(account.apiKey(monitor.id)).toBeUndefined();
    expect(registry.authenticateCustomer(ADMIN_KEY)).toBeDefined();
  });

  it('changes a member’s role and tags', () => {
    account.team.invite({ email: 'g@example.com', tags: 'production' }, admin);
    const id = account.team.list().find((m) => m.email === 'g@example.com')!.id;
    expect(account.team.update(id, { tags: 'staging,reporting' }, admin)).toEqual({
      message: 'Role and tags updated for user.',
    });
    expect(account.team.tags(id)).toEqual(['staging', 'reporting']);
    account.team.update(id, { role: 'monitor' }, admin);
    expect(account.team.list().find((m) => m.id === id)!.roles).toEqual(['monitor']);
    expect(account.team.tags(id)).toEqual(['staging', 'reporting']);
    // a role without tags drops them
    account.team.update(id, { role: 'devops' }, admin);
    expect(account.team.list().find((m) => m.id === id)!.roles).toEqual(['devops']);
    expect(account.team.tags(id)).toEqual([]);
    account.team.update(id, { role: 'member', tags: 'production' }, admin);
    expect(account.team.tags(id)).toEqual(['production']);
  });

  it('refuses tags when the role after the change takes none, an empty change, and an unknown user', () => {
    account.team.invite({ email: 'h@example.com', role: 'devops' }, admin);
    const id = account.team.list().find((m) => m.email === 'h@example.com')!.id;
    const before = snapshot();
    refused(() => account.team.update(id, { tags: 'production' }, admin), 400, 'tags');
    refused(() => account.team.update(id, { role: 'admin', tags: 'production' }, admin), 400, 'tags');
    refused(() => account.team.update(id, {}, admin), 400, 'body', 'minProperties');
    refused(() => account.team.update('00000000-0000-4000-8000-000000000000', { role: 'member' }, admin), 404);
    expect(snapshot()).toEqual(before);
  });
  it('names the rule and the reason of each refused invitation', () => {
    const existing = account.team.list()[1]!.email;
    expect(refused(() => account.team.invite({ email: existing }, admin), 400, 'email', 'not-a-member').message).toBe(
      `email: ${existing} is already a member of the team`,
    );
    expect(
      refused(
        () => account.team.invite({ email: 'e@example.com', role: 'devops', tags: 'production' }, admin),
        400,
        'tags',
        'role',
      ).message,
    ).toBe('tags: tags are only allowed with role member or monitor, not devops');
  });

  it('splits tags at commas, trimmed and without empty ones, and records them', () => {
    account.team.invite({ email: 'i@example.com', role: 'monitor', tags: ' production , ,staging,' }, admin);
    const id = account.team.list().find((m) => m.email === 'i@example.com')!.id;
    expect(account.team.tags(id)).toStrictEqual(['production', 'staging']);
    expect(lastAudit().extras).toStrictEqual([
      ['email', 'i@example.com'],
      ['role', 'monitor'],
      ['tags', 'production,staging'],
    ]);
    account.team.update(id, { tags: 'reporting, ' }, admin);
    expect(account.team.tags(id)).toStrictEqual(['reporting']);
  });

  it('refuses a member beyond the team cap, naming team, until one is removed', () => {
    const cap = LIST_CAPS.teamMembersPerAccount;
    for (let i = account.team.list().length; i < cap; i++)
      account.team.invite({ email: `cap-${i}@example.com` }, admin);
    expect(account.team.list()).toHaveLength(cap);
    const before = snapshot();
    const e = refused(() => account.team.invite({ email: 'one-more@example.com' }, admin), 400, undefined, 'maxItems');
    expect(e.message).toBe(`team: a team has at most ${cap} members; remove one to invite another`);
    expect(snapshot()).toEqual(before);
    account.team.remove(`cap-${cap - 1}@example.com`, admin);
    expect(account.team.invite({ email: 'one-more@example.com' }, admin)).toEqual({
      message: TEAM_MESSAGES.invite,
    });
  });

  it('removes the first member of the list too, and names an e-mail that is no member', () => {
    const [first] = account.team.list();
    account.team.remove(first!.email, admin);
    expect(account.team.list().map((m) => m.id)).not.toContain(first!.id);
    expect(refused(() => account.team.remove('nobody@example.com', admin), 404).message).toBe(
      'Not found: no team member with the e-mail nobody@example.com',
    );
  });

  it('names the rule and the reason of each refused change', () => {
    account.team.invite({ email: 'h@example.com', role: 'devops' }, admin);
    const id = account.team.list().find((m) => m.email === 'h@example.com')!.id;
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect(refused(() => account.team.update(id, { tags: 'production' }, admin), 400, 'tags', 'role').message).toBe(
      'tags: tags are only allowed for role member or monitor, not devops',
    );
    expect(refused(() => account.team.update(id, {}, admin), 400, 'body', 'minProperties').message).toBe(
      'body: give at least one of role and tags',
    );
    expect(refused(() => account.team.update(unknown, { role: 'member' }, admin), 404).message).toBe(
      `Not found: no team member with id ${unknown}`,
    );
  });

  it('records only the role or the tags a change gives', () => {
    account.team.invite({ email: 'j@example.com', tags: 'production' }, admin);
    const id = account.team.list().find((m) => m.email === 'j@example.com')!.id;
    account.team.update(id, { role: 'monitor' }, admin);
    expect(lastAudit().extras).toStrictEqual([
      ['user_id', id],
      ['email', 'j@example.com'],
      ['role', 'monitor'],
    ]);
    account.team.update(id, { tags: 'staging, reporting' }, admin);
    expect(lastAudit().extras).toStrictEqual([
      ['user_id', id],
      ['email', 'j@example.com'],
      ['tags', 'staging,reporting'],
    ]);
  });

  it('allows tags only when every role of the member takes them', () => {
    const id = '5a0e8f3c-1d2b-4c6a-9e7f-0b1c2d3e4f5a';
    const store = otherAccount({
      team: [
        {
          id,
          email: 'both@example.com',
          tfa_auth_enabled: false,
          roles: ['member', 'billing manager'],
          tags: [],
          joinedAt: 0,
        },
      ],
    });
    expect(refused(() => store.team.update(id, { tags: 'production' }, admin), 400, 'tags', 'role').message).toBe(
      'tags: tags are only allowed for role member or monitor, not member, billing manager',
    );
    expect(store.team.tags(id)).toStrictEqual([]);
  });

  it('gives a copy of a member’s tags, and undefined for an unknown id', () => {
    account.team.invite({ email: 'k@example.com', tags: 'production' }, admin);
    const id = account.team.list().find((m) => m.email === 'k@example.com')!.id;
    account.team.tags(id)!.push('staging');
    expect(account.team.tags(id)).toStrictEqual(['production']);
    expect(account.team.tags('00000000-0000-4000-8000-000000000000')).toBeUndefined();
  });
});

describe('AccountStore: API keys', () => {
  it('rotates the key used: the old key stops working, the new one has the same role, e-mail and comment', () => {
    const old = registry.authenticateCustomer(ROLE_KEYS.monitor)!.key;
    const { apikey } = account.apiKeys.rotate(old.id);
    expect(apikey).not.toBe(ROLE_KEYS.monitor);
    expect(registry.authenticateCustomer(ROLE_KEYS.monitor)).toBeUndefined();
    const fresh = registry.authenticateCustomer(apikey)!;
    expect(fresh.account).toBe(account);
    expect(fresh.key).toMatchObject({ role: old.role, email: old.email, comment: old.comment });
    expect(fresh.key.id).not.toBe(old.id);
    expect(account.apiKey(old.id)).toBeUndefined();
    expect(lastAudit()).toMatchObject({ event: 'apikey.rotate', user: old.email });
  });

  it('rotates a rotated key again', () => {
    const first = account.apiKeys.rotate(admin.id).apikey;
    const key = registry.authenticateCustomer(first)!.key;
    const second = account.apiKeys.rotate(key.id).apikey;
    expect(registry.authenticateCustomer(first)).toBeUndefined();
    expect(registry.authenticateCustomer(second)?.key.role).toBe('admin');
  });

  it('answers 404 for a key id the account does not have', () => {
    const before = snapshot();
    refused(() => account.apiKeys.rotate('key-999'), 404);
    expect(snapshot()).toEqual(before);
  });
  it('names the key id it does not know', () => {
    expect(refused(() => account.apiKeys.rotate('key-999'), 404).message).toBe('Not found: no API key with id key-999');
  });

  it('numbers a new key above the highest key id it was built with (ids without a number count as 0)', () => {
    const store = otherAccount({
      keys: [
        { ...admin, id: 'key-12', key: 'other-account-admin-key' },
        { ...devops, id: 'legacy', key: 'other-account-devops-key' },
      ],
    });
    store.apiKeys.rotate('legacy');
    expect(store.apiKeys.list().map((k) => k.id)).toEqual(['key-12', 'key-13']);
  });
});

describe('AccountStore: regions and plans', () => {
  it('filters regions by provider and plans by backend, exactly', () => {
    expect(account.regions.list().length).toBe(account.catalogue.regions.length);
    expect(account.regions.list('azure-arm').every((r) => r.provider === 'azure-arm')).toBe(true);
    expect(account.regions.list('azure')).toEqual([]);
    expect(account.plans.list('pgcompat').map((p) => p.name)).toEqual(['compat-shared', 'compat-1']);
    expect(account.plans.list('nosuch')).toEqual([]);
  });

  it('gives the same JSON as bytes (views.regions, views.plans) for every filter, asked once or again', () => {
    const text = (bytes: Uint8Array) => Buffer.from(bytes).toString();
    for (let again = 0; again < 2; again++) {
      for (const provider of [undefined, 'azure-arm', 'azure'])
        expect(text(account.regions.listJson(provider))).toBe(JSON.stringify(account.regions.list(provider)));
      for (const backend of [undefined, 'pgcompat', 'nosuch'])
        expect(text(account.plans.listJson(backend))).toBe(JSON.stringify(account.plans.list(backend)));
    }
  });
});

describe('AccountStore: seeded state', () => {
  it('is rebuilt the same by a registry reset', () => {
    const before = {
      instances: account.instances.list(),
      invoices: account.invoices.list(),
      csv: account.audit.csv('2026-06'),
      team: account.team.list(),
    };
    account.instances.create(dedicated(), admin);
    registry.reset();
    const fresh = registry.authenticateCustomer(ADMIN_KEY)!.account;
    expect({
      instances: fresh.instances.list(),
      invoices: fresh.invoices.list(),
      csv: fresh.audit.csv('2026-06'),
      team: fresh.team.list(),
    }).toEqual(before);
  });
  it('writes the team with its tags and the instances in id order, and is rebuilt the same from that', () => {
    account.team.invite({ email: 'l@example.com', role: 'monitor', tags: 'a,b' }, admin);
    const member = account.team.list().at(-1)!;
    const state = account.toJSON();
    expect(state.team.map((m) => m.id)).toEqual(account.team.list().map((m) => m.id));
    expect(state.team.at(-1)).toStrictEqual({ ...member, tags: ['a', 'b'] });
    const ids = state.instances.map((x) => x.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    const rebuilt = AccountStore.fromJSON(
      { ...state, instances: [...state.instances].reverse() },
      account.catalogue,
      registry.context,
    );
    expect(rebuilt.toJSON().instances.map((x) => x.id)).toEqual([...ids].sort((x, y) => x - y));
    expect(rebuilt.team.list()).toEqual(account.team.list());
    expect(rebuilt.team.tags(member.id)).toStrictEqual(['a', 'b']);
  });
});
