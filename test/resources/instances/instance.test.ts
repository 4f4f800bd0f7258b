// InstanceStore: the state an instance is created with, and the account operations.
import { beforeEach, describe, expect, it } from 'vitest';
import { InstanceStore } from '../../../src/resources/instances/instance.js';
import type { Backend, KeyIndex } from '../../../src/domain/types.js';
import { ACCOUNT_ID, DAY, NOW, TEAM_EMAIL, setup, snapshot, type Setup } from '../instance-setup.js';

let s: Setup;
beforeEach(async () => {
  s = await setup();
});

describe('a new instance', () => {
  it('has the default recipient: name Default, type email, the team e-mail, options null', () => {
    expect(s.instance().recipients.list()).toEqual([
      { id: 1, type: 'email', value: TEAM_EMAIL, name: 'Default', options: null },
    ]);
  });

  it('has the four default alarms, all enabled and without recipients', () => {
    expect(s.instance().alarms.list()).toEqual([
      { id: 1, type: 'cpu', enabled: true, value_threshold: 90, time_threshold: 600, recipients: [] },
      { id: 2, type: 'memory', enabled: true, value_threshold: 90, time_threshold: 600, recipients: [] },
      {
        id: 3,
        type: 'disk',
        enabled: true,
        value_threshold: 5,
        value_calculation: 'fixed',
        time_threshold: 600,
        recipients: [],
      },
      { id: 4, type: 'notice', enabled: true, recipients: [] },
    ]);
  });

  it('has the same default recipient and alarms on a shared plan', () => {
    const shared = s.instance({ planName: 'turtle' });
    expect(shared.recipients.list().map((r) => r.name)).toEqual(['Default']);
    expect(shared.alarms.list().map((a) => a.type)).toEqual(['cpu', 'memory', 'disk', 'notice']);
  });

  it('has no integrations', () => {
    const i = s.instance();
    expect(i.integrations['logs'].list()).toEqual([]);
    expect(i.integrations['metrics'].list()).toEqual([]);
  });

  it('has daily backups of two databases for the whole 30-day window', () => {
    const i = s.instance({ id: 7 });
    expect(i.databaseNames).toEqual(['db7', 'analytics']);
    const backups = i.backups.list();
    expect(new Set(backups.map((b) => b.database_name))).toEqual(new Set(['db7', 'analytics']));
    // One per day per database: 30 days back from now, both databases.
    expect(backups).toHaveLength(60);
    expect(i.backups.list('db7')).toHaveLength(30);
    expect(i.backups.list('analytics')).toHaveLength(30);
  });

  it('keeps backups older than 30 days, which are not listed and cannot be restored', () => {
    const i = s.instance();
    const listed = new Set(i.backups.list().map((b) => b.id));
    // Ids run oldest first; id 1 is the oldest seeded backup (40 days back).
    expect(listed.has(1)).toBe(false);
    expect(() => i.backups.restore({ backup_id: 1 })).toThrow(/backup_id: no backup of this instance/);
  });

  it('starts with the same state for the same id and time (no randomness in the per-instance state)', () => {
    const init = { id: 12, providerid: '11111111-2222-4333-8444-555555555555' };
    const a = s.instance(init);
    const b = s.instance(init);
    expect(b.backups.list()).toEqual(a.backups.list());
    expect(b.maintenance.list()).toEqual(a.maintenance.list());
  });

  it('has one or two upcoming maintenance items, scheduled a few days ahead', () => {
    for (const id of [1, 2, 3, 4]) {
      const items = s.instance({ id }).maintenance.list();
      expect(items.length).toBeGreaterThanOrEqual(1);
      expect(items.length).toBeLessThanOrEqual(2);
      for (const m of items) {
        expect(m.status).toBe('scheduled');
        expect(m.scheduled_by).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0000$/);
        expect(m.required_by).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \+0000$/);
        expect(m.duration).toMatch(/^\d+ (minute|minutes|hour|hours)$/);
        expect(m.description).not.toBe('');
        const at = Date.parse(m.scheduled_by.replace(' ', 'T').replace(' +0000', 'Z'));
        expect(at).toBeGreaterThan(NOW + DAY);
        expect(at).toBeLessThan(NOW + 14 * DAY);
        expect(Date.parse(m.required_by.replace(' ', 'T').replace(' +0000', 'Z'))).toBeGreaterThan(at);
      }
    }
  });

  it('has a url with a user and host from the first 8 characters of the providerid, the region in the host, and the database db<id>', () => {
    const i = s.instance({
      id: 12,
      providerid: '1a2b3c4d-2222-4333-8444-555555555555',
      password: 'pw-secret',
      region: 'google-compute-engine::europe-west1',
    });
    expect(i.url).toBe('postgres://u1a2b3c4d:pw-secret@pg-1a2b3c4d.europe-west1.db.tusk.example:5432/db12');
  });

  it('gives every integration record the account id of its owner', () => {
    const i = s.instance();
    expect(i.integrations['logs'].create('logs_e', { token: 't' }).account_id).toBe(ACCOUNT_ID);
  });
});

describe('the broker kind', () => {
  const kindOf = (backend: Backend) => s.instance({ backend }).brokerKind;

  it('is primary_from_4_2 for a primary backend of version 4.2 or later, primary_below_4_2 before, alternative for an alternative backend', () => {
    const primary = (version: string): Backend => ({ name: 'postgres', kind: 'primary', version });
    expect(kindOf(primary('4.2.0'))).toBe('primary_from_4_2');
    expect(kindOf(primary('4.10.3'))).toBe('primary_from_4_2');
    expect(kindOf(primary('5.0.0'))).toBe('primary_from_4_2');
    expect(kindOf(primary('5.1'))).toBe('primary_from_4_2');
    expect(kindOf(primary('4.1.9'))).toBe('primary_below_4_2');
    expect(kindOf(primary('4.0.0'))).toBe('primary_below_4_2');
    expect(kindOf(primary('3.9.0'))).toBe('primary_below_4_2');
    expect(kindOf({ name: 'pgcompat', kind: 'alternative', version: '4.0.0' })).toBe('alternative');
  });

  it('follows the catalogue backends of the plans', () => {
    expect(s.instance({ planName: 'hippo' }).brokerKind).toBe('primary_from_4_2');
    expect(s.instance({ planName: 'legacy-1' }).brokerKind).toBe('primary_below_4_2');
    expect(s.instance({ planName: 'compat-1' }).brokerKind).toBe('alternative');
  });
});

describe('alarm evaluation on the clock', () => {
  it('a tick after one that found nothing due still notices a maintenance start once the clock reaches it', () => {
    const i = s.instance();
    const upcoming = i.maintenance.list().length;
    expect(i.evaluateAlarms()).toBe(0);
    expect(i.evaluateAlarms()).toBe(0);
    s.clock.advance(30 * DAY);
    expect(i.evaluateAlarms()).toBe(upcoming);
    expect(upcoming).toBeGreaterThan(0);
  });
});

describe('the instance interface state, built on first use', () => {
  const isBuilt = (i: InstanceStore) => (i as unknown as { built?: object }).built !== undefined;

  /** Runs the clock 12 days in 6-hour steps, ticking like the server; returns what the instance shows and sent. */
  async function life(firstUse: 'at creation' | 'two days later' | 'only by ticks') {
    const t = await setup();
    // Odd: two maintenance items. The secrets given: the three lives are compared whole.
    const i = t.instance({
      id: 9001,
      providerid: '9757147d-1a26-4cf6-92d5-5ec3bf554351',
      apikey: 'k'.repeat(36),
      password: 'p'.repeat(24),
    });
    const ticksBefore: boolean[] = [];
    if (firstUse === 'at creation') i.alarms.list();
    for (let h = 6; h <= 12 * 24; h += 6) {
      t.clock.advance(6 * 60 * 60 * 1000);
      if (firstUse === 'two days later' && h === 48) i.recipients.list();
      t.registry.tick();
      i.evaluateAlarms();
      ticksBefore.push(isBuilt(i));
    }
    const sent = t.registry.outbox
      .list()
      .filter((e) => (e.body as { instance?: { id: number } }).instance?.id === 9001)
      .map((e) => [e.kind, e.event, e.target, e.body]);
    return { sent, ticksBefore, state: i.toJSON(), shown: snapshot(i) };
  }

  it('is not built by a tick before anything can be due, and is built by the tick that reaches its first maintenance', async () => {
    const { ticksBefore } = await life('only by ticks');
    // The first seeded maintenance starts 3 to 5 days after creation (02:00 UTC).
    const firstBuilt = ticksBefore.indexOf(true);
    expect(firstBuilt).toBeGreaterThanOrEqual(8); // not in the first two days
    expect(firstBuilt).toBeLessThan(6 * 4);
    expect(ticksBefore.slice(firstBuilt).every(Boolean)).toBe(true);
  });

  it('shows, dumps and notifies exactly what a side built at creation does, whenever it is first used', async () => {
    const eager = await life('at creation');
    expect(eager.sent.map(([, event, target]) => [event, target])).toEqual([
      ['alarm.notice', TEAM_EMAIL], // both maintenance starts, to the default recipient
      ['alarm.notice', TEAM_EMAIL],
    ]);
    for (const other of [await life('two days later'), await life('only by ticks')]) {
      expect(other.sent).toEqual(eager.sent);
      expect(other.state).toEqual(eager.state);
      expect(other.shown).toEqual(eager.shown);
    }
  });

  it('keeps the state given to fromJSON, built at once', () => {
    const i = s.instance();
    i.recipients.create({ type: 'webhook', value: 'https://hooks.example.com/a', name: 'hook' });
    const copy = InstanceStore.fromJSON(
      i.toJSON(),
      { accountId: ACCOUNT_ID, teamEmail: TEAM_EMAIL, plan: i.plan, backend: i.backend },
      s.ctx,
    );
    expect(isBuilt(copy)).toBe(true);
    expect(copy.toJSON()).toEqual(i.toJSON());
  });
});

describe('rotation of the instance key and password', () => {
  function recordingKeys(): KeyIndex & { added: string[]; revoked: string[] } {
    const added: string[] = [];
    const revoked: string[] = [];
    return {
      added,
      revoked,
      addCustomerKey: () => undefined,
      addInstanceKey: (key) => void added.push(key),
      revoke: (key) => void revoked.push(key),
    };
  }

  /** An instance whose key changes are recorded by `keys`. */
  const withKeys = (keys: ReturnType<typeof recordingKeys>) =>
    new InstanceStore(
      {
        id: 1,
        accountId: ACCOUNT_ID,
        name: 'x',
        plan: s.registry.catalogue.plans[2]!,
        backend: s.registry.catalogue.backends[0]!,
        region: 'amazon-web-services::us-east-1',
        pgVersion: '17',
        teamEmail: TEAM_EMAIL,
        createdAt: NOW,
        readyAt: NOW,
      },
      { ...s.ctx, keys },
    );

  it('rotating the API key revokes the old key and registers the new one', () => {
    const keys = recordingKeys();
    const i = withKeys(keys);
    const old = i.apikey;
    const fresh = i.rotateApiKey();
    expect(fresh).not.toBe(old);
    expect(i.apikey).toBe(fresh);
    expect(keys.revoked).toEqual([old]);
    expect(keys.added).toEqual([old, fresh]);
  });

  it('destroying the instance revokes its key', () => {
    const keys = recordingKeys();
    const i = withKeys(keys);
    i.destroy();
    expect(keys.revoked).toEqual([i.apikey]);
  });

  it('rotating the password changes the connection url and nothing else of the instance interface', () => {
    const i = s.instance();
    const before = { url: i.url, alarms: i.alarms.list(), recipients: i.recipients.list() };
    i.rotatePassword();
    expect(i.url).not.toBe(before.url);
    expect(i.url.replace(/:[^:@/]+@/, ':@')).toBe(before.url.replace(/:[^:@/]+@/, ':@'));
    expect({ alarms: i.alarms.list(), recipients: i.recipients.list() }).toEqual({
      alarms: before.alarms,
      recipients: before.recipients,
    });
  });
});

describe('tags', () => {
  it('an instance created without tags has none; the tags given are copied, not shared with the caller', () => {
    expect(s.instance().tags).toEqual([]);
    const given = ['prod'];
    const i = s.instance({ tags: given });
    given.push('eu');
    expect(i.tags).toEqual(['prod']);
  });

  it('setting tags replaces them with a copy of the ones given', () => {
    const i = s.instance({ tags: ['old'] });
    const next = ['prod', 'eu'];
    i.tags = next;
    next.push('later');
    expect(i.tags).toEqual(['prod', 'eu']);
  });
});

describe('a state dump round trip', () => {
  const restore = (i: InstanceStore, state = i.toJSON()) =>
    InstanceStore.fromJSON(
      state,
      { accountId: ACCOUNT_ID, teamEmail: TEAM_EMAIL, plan: i.plan, backend: i.backend },
      s.ctx,
    );

  it('keeps the tags', () => {
    const i = s.instance({ tags: ['prod', 'eu'] });
    expect(i.toJSON().tags).toEqual(['prod', 'eu']);
    expect(restore(i).tags).toEqual(['prod', 'eu']);
  });

  it('reads a dump written before tags were kept as an instance without tags', () => {
    const i = s.instance();
    const { tags: _dropped, ...state } = i.toJSON();
    expect(restore(i, state).tags).toEqual([]);
  });
});
