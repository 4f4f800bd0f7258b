import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocuments } from '../src/openapi/documents.js';
import { SchemaSet } from '../src/openapi/ajv.js';
import { buildFixtures, DEFAULT_ADMIN_KEY, ROLE_KEYS, instanceKey, type Fixtures } from '../fixtures/index.js';
import { validateFixtures, FixtureError } from '../fixtures/validate.js';
import { INVOICE_MONTHS } from '../fixtures/invoices.js';

const NOW = Date.UTC(2026, 10, 21, 13, 30, 0); // 2026-11-21 13:30:00 UTC
const options = { seed: 1, adminKey: DEFAULT_ADMIN_KEY };

let schemas: SchemaSet;
beforeAll(async () => {
  schemas = new SchemaSet(await loadDocuments());
});

const build = (seed = 1, now = NOW) => buildFixtures({ ...options, seed }, now);
const account = (f: Fixtures) => f.accounts[0]!;

describe('the fixtures', () => {
  it('are the same for the same seed and time', () => {
    expect(build(1)).toEqual(build(1));
    expect(build(7)).toEqual(build(7));
  });

  it('keep their identities for a seed whatever the time: ids, e-mails, names and keys', () => {
    const identity = (f: Fixtures) => {
      const a = account(f);
      return {
        id: a.id,
        name: a.name,
        team: a.team.map((m) => [m.id, m.email]),
        keys: a.keys,
        instances: a.instances.map((i) => [i.id, i.name, i.providerid, i.apikey, i.password, i.region]),
      };
    };
    expect(identity(build(1, Date.UTC(2031, 5, 9, 3)))).toEqual(identity(build(1)));
  });

  it('differ between seeds', () => {
    const a = account(build(1));
    const b = account(build(2));
    expect(a.id).not.toBe(b.id);
    expect(a.team.map((m) => m.email)).not.toEqual(b.team.map((m) => m.email));
  });

  it('pass the validation against the customer document for many seeds and times', () => {
    for (let seed = 1; seed <= 25; seed++) {
      for (const now of [
        NOW,
        Date.UTC(2027, 0, 1, 0, 5),
        Date.UTC(2026, 2, 31, 23, 59, 59),
        Date.UTC(2030, 1, 28, 12),
      ]) {
        expect(
          () => validateFixtures(build(seed, now), schemas),
          `seed ${seed}, now ${new Date(now).toISOString()}`,
        ).not.toThrow();
      }
    }
  });

  it('reject a plan whose price is not a number', () => {
    const f = build();
    (f.catalogue.plans[0] as { price: unknown }).price = 'free';
    expect(() => validateFixtures(f, schemas)).toThrow(FixtureError);
    expect(() => validateFixtures(f, schemas)).toThrow(/catalogue\.plans\.0: Plan price: must be number/);
  });

  it('reject broken references and records', () => {
    const cases: [string, (f: Fixtures) => void, RegExp][] = [
      [
        'an instance on an unknown plan',
        (f) => (account(f).instances[0]!.plan = 'gold'),
        /plan gold is not a catalogue plan/,
      ],
      [
        'a shared plan in a region without shared plans',
        (f) => {
          const x = account(f).instances.find((i) => i.plan === 'panda')!;
          x.region = 'amazon-web-services::us-east-2';
        },
        /shared plan panda in amazon-web-services::us-east-2/,
      ],
      [
        'a key for an e-mail outside the team',
        (f) => (account(f).keys[1]!.email = 'stranger@example.com'),
        /stranger@example\.com is no team member/,
      ],
      [
        'tags on an admin',
        (f) => (account(f).team[0]!.tags = ['production']),
        /tags are only for member and monitor users/,
      ],
      [
        'an invoice total that is not the sum of its lines',
        (f) => (account(f).invoices[0]!.detail.total += 1),
        /is not the sum of its lines/,
      ],
      [
        'an invoice period in the wrong form',
        (f) => (account(f).invoices[0]!.detail.period = '2026-01'),
        /invoices\.0/,
      ],
      [
        'an audit event not named <resource>.<action>',
        (f) => (account(f).audit[0]!.event = 'Created instance'),
        /is not <resource>\.<action>/,
      ],
      [
        'a team member with an invalid e-mail',
        (f) => (account(f).team[1]!.email = 'not-an-email'),
        /team\.1: TeamMember email/,
      ],
    ];
    for (const [what, breakIt, message] of cases) {
      const f = build();
      breakIt(f);
      expect(() => validateFixtures(f, schemas), what).toThrow(message);
    }
  });

  it('are validated through the validate hook when it is given', () => {
    let seen: Fixtures | undefined;
    const f = buildFixtures({ ...options, validate: (x) => void (seen = x) }, NOW);
    expect(seen).toBe(f);
    expect(() =>
      buildFixtures(
        {
          ...options,
          validate: () => {
            throw new Error('nope');
          },
        },
        NOW,
      ),
    ).toThrow('nope');
  });

  it('hold a catalogue with several providers, mixed shared regions, and shared and dedicated plans on several backends', () => {
    const { regions, plans } = build().catalogue;
    expect(new Set(regions.map((r) => r.provider)).size).toBeGreaterThanOrEqual(3);
    expect(regions.some((r) => r.has_shared_plans)).toBe(true);
    expect(regions.some((r) => !r.has_shared_plans)).toBe(true);
    expect(plans.some((p) => p.shared)).toBe(true);
    expect(plans.some((p) => !p.shared)).toBe(true);
    expect(new Set(plans.map((p) => p.backend)).size).toBeGreaterThanOrEqual(2);
  });

  it('hold one account with the admin key and one documented key per other role, each for a team member with that role', () => {
    const a = account(build());
    expect(build().accounts).toHaveLength(1);
    expect(a.keys.map((k) => [k.role, k.key])).toEqual([
      ['admin', DEFAULT_ADMIN_KEY],
      ['devops', ROLE_KEYS.devops],
      ['member', ROLE_KEYS.member],
      ['monitor', ROLE_KEYS.monitor],
      ['billing manager', ROLE_KEYS['billing manager']],
    ]);
    expect(ROLE_KEYS).toEqual({
      devops: 'tusk-devops-key',
      member: 'tusk-member-key',
      monitor: 'tusk-monitor-key',
      'billing manager': 'tusk-billing-key',
    });
    for (const k of a.keys) {
      expect(k.comment).not.toBe('');
      expect(a.team.find((m) => m.email === k.email)?.roles).toContain(k.role);
    }
    expect(account(buildFixtures({ seed: 1, adminKey: 'other-admin' }, NOW)).keys[0]!.key).toBe('other-admin');
  });

  it('hold 5 to 8 team members with every role, tags only on member and monitor users', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const { team } = account(build(seed));
      expect(team.length).toBeGreaterThanOrEqual(5);
      expect(team.length).toBeLessThanOrEqual(8);
      for (const role of ['admin', 'devops', 'member', 'monitor', 'billing manager'] as const)
        expect(team.some((m) => m.roles.includes(role))).toBe(true);
      for (const m of team)
        if (m.tags.length) expect(m.roles.every((r) => r === 'member' || r === 'monitor')).toBe(true);
    }
  });

  it('hold invoices for the months before now, paid except the newest, with customer and seller', () => {
    const a = account(build());
    expect(a.invoices.length).toBeGreaterThanOrEqual(12);
    expect(a.invoices).toHaveLength(INVOICE_MONTHS);
    expect(a.invoices.at(-1)!.detail.period).toBe('2026/10');
    expect(a.invoices[0]!.detail.period).toBe('2025/9');
    expect(a.invoices.at(-1)!.paid).toBe(false);
    expect(a.invoices.slice(0, -1).every((i) => i.paid)).toBe(true);
    for (const inv of a.invoices) {
      expect(inv.detail.lines.length).toBeGreaterThan(0);
      expect(inv.detail.currency).toBe('USD');
      expect(inv.detail.customer.account_name).toBe(a.name);
      expect(inv.detail.seller.company).toBe('Tusk Cloud AB');
    }
    // Across a year boundary: the invoice before January is December of the year before.
    expect(account(build(1, Date.UTC(2027, 0, 3))).invoices.at(-1)!.detail.period).toBe('2026/12');
  });

  it('bill a full month of a plan at its price and prorate a plan change', () => {
    const a = account(build());
    const oct = a.invoices.at(-1)!.detail;
    const line = oct.lines.find((l) => l.subscription_id === 1)!;
    expect(line).toMatchObject({
      plan: 'elephant',
      amount: 199,
      from: '2026-10-01T00:00:00Z',
      to: '2026-11-01T00:00:00Z',
    });
    const moved = a.invoices.find((i) => i.detail.lines.filter((l) => l.subscription_id === 1).length === 2)!.detail;
    const [before, after] = moved.lines.filter((l) => l.subscription_id === 1);
    expect(before!.plan).toBe('hippo');
    expect(after!.plan).toBe('elephant');
    expect(before!.to).toBe(after!.from);
    expect(before!.amount + after!.amount).toBeGreaterThan(99);
    expect(before!.amount + after!.amount).toBeLessThan(199);
  });

  it('hold ready instances on dedicated and shared plans with deterministic keys', () => {
    const f = build();
    const a = account(f);
    expect(a.instances.length).toBeGreaterThanOrEqual(2);
    expect(a.instances.length).toBeLessThanOrEqual(3);
    const shared = (name: string) => f.catalogue.plans.find((p) => p.name === name)!.shared;
    expect(a.instances.some((i) => shared(i.plan))).toBe(true);
    expect(a.instances.some((i) => !shared(i.plan))).toBe(true);
    for (const i of a.instances) {
      expect(i.apikey).toBe(instanceKey(i.id));
      expect(i.createdAt).toBeLessThan(NOW);
    }
    expect(a.instances.map((i) => i.apikey)).toContain('tusk-instance-1-key');
    expect(Math.max(...a.usedInstanceIds)).toBeGreaterThanOrEqual(Math.max(...a.instances.map((i) => i.id)));
  });

  it('hold a few dozen audit events of the last months, oldest first, never after now', () => {
    const a = account(build());
    expect(a.audit.length).toBeGreaterThanOrEqual(24);
    expect(a.audit.every((e) => e.at < NOW)).toBe(true);
    expect(a.audit.map((e) => e.at)).toEqual([...a.audit.map((e) => e.at)].sort((x, y) => x - y));
    const events = new Set(a.audit.map((e) => e.event));
    for (const e of ['instance.create', 'instance.update', 'instance.delete', 'team.invite', 'apikey.rotate'])
      expect(events).toContain(e);
    expect(a.audit.every((e) => e.source === 'api')).toBe(true);
    const emails = new Set(a.team.map((m) => m.email));
    expect(a.audit.every((e) => emails.has(e.user))).toBe(true);
    // the current month has events too (it is 20 days old)
    expect(a.audit.some((e) => e.at >= Date.UTC(2026, 10, 1))).toBe(true);
  });
});
