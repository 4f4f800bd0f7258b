// InstanceStore: recipients and alarms.
import { beforeEach, describe, expect, it } from 'vitest';
import type { InstanceStore } from '../../../src/resources/instances/instance.js';
import { capitalise } from '../../../src/resources/recipients/recipients.js';
import { LIST_CAPS } from '../../../src/core/limits.js';
import { Alarms } from '../../../src/resources/alarms/alarms.js';
import { refused, setup, snapshot, TEAM_EMAIL, type Setup } from '../instance-setup.js';

let s: Setup;
let i: InstanceStore;
beforeEach(async () => {
  s = await setup();
  i = s.instance();
});

describe('recipients', () => {
  it('are created with the name capitalised and options {} when absent', () => {
    const r = i.recipients.create({ type: 'email', value: 'oncall@example.com', name: 'on-call' });
    expect(r).toStrictEqual({ id: 2, type: 'email', value: 'oncall@example.com', name: 'On-call', options: {} });
    expect(i.recipients.get(2)).toEqual(r);
    expect(i.recipients.list().map((x) => x.id)).toEqual([1, 2]);
  });

  it('are created with name "" when none is given', () => {
    expect(i.recipients.create({ type: 'webhook', value: 'https://hooks.example.com/a' }).name).toBe('');
  });

  it('keep options as given', () => {
    const options = { channel: '#ops', nested: { a: [1, 2] } };
    const r = i.recipients.create({ type: 'chat_a', value: 'https://chat.example.com/hook', options });
    expect(r.options).toEqual(options);
    options.channel = 'changed';
    expect(i.recipients.get(r.id).options).toEqual({ channel: '#ops', nested: { a: [1, 2] } });
  });

  it('capitalise only the first letter', () => {
    expect(capitalise('ops hook')).toBe('Ops hook');
    expect(capitalise('éq')).toBe('Éq');
    expect(capitalise('')).toBe('');
    expect(capitalise('1st line')).toBe('1st line');
  });

  it('get a new id each, never reusing a deleted one', () => {
    const a = i.recipients.create({ type: 'email', value: 'a@example.com' });
    i.recipients.delete(a.id);
    const b = i.recipients.create({ type: 'email', value: 'b@example.com' });
    expect(b.id).toBe(a.id + 1);
  });

  it('an unknown id is a 404 for get, update and delete, and changes nothing', () => {
    const before = snapshot(i);
    expect(refused(() => i.recipients.get(99), 404).message).toBe('Not found: no recipient with id 99');
    refused(() => i.recipients.update(99, { type: 'email', value: 'x@example.com' }), 404);
    refused(() => i.recipients.delete(99), 404);
    expect(snapshot(i)).toEqual(before);
  });

  it('update replaces type and value, and keeps name and options when omitted', () => {
    const r = i.recipients.create({ type: 'email', value: 'a@example.com', name: 'ops', options: { k: 'v' } });
    const u = i.recipients.update(r.id, { type: 'webhook', value: 'https://hooks.example.com/tusk' });
    expect(u).toEqual({
      id: r.id,
      type: 'webhook',
      value: 'https://hooks.example.com/tusk',
      name: 'Ops',
      options: { k: 'v' },
    });
    expect(
      i.recipients.update(r.id, {
        type: 'webhook',
        value: 'https://hooks.example.com/tusk',
        name: 'ops hook',
        options: null,
      }),
    ).toEqual({
      ...u,
      name: 'Ops hook',
      options: null,
    });
  });

  it('update with options replaces the stored options with a copy of them', () => {
    const r = i.recipients.create({
      type: 'chat_a',
      value: 'https://chat.example.com/hook',
      options: { channel: '#ops' },
    });
    const options = { channel: '#alerts', nested: { a: [1] } };
    expect(
      i.recipients.update(r.id, { type: 'chat_a', value: 'https://chat.example.com/hook', options }),
    ).toStrictEqual({
      ...r,
      options: { channel: '#alerts', nested: { a: [1] } },
    });
    options.nested.a.push(2);
    expect(i.recipients.get(r.id).options).toStrictEqual({ channel: '#alerts', nested: { a: [1] } });
  });

  it(`an instance holds at most ${LIST_CAPS.recipientsPerInstance} recipients, the default one included; one more is a 400 (maxItems) that changes nothing`, () => {
    for (let n = i.recipients.list().length; n < LIST_CAPS.recipientsPerInstance; n++)
      i.recipients.create({ type: 'email', value: `r${n}@example.com` });
    expect(i.recipients.list()).toHaveLength(LIST_CAPS.recipientsPerInstance);
    const before = snapshot(i);
    const e = refused(() => i.recipients.create({ type: 'email', value: 'more@example.com' }), 400);
    expect(e.detail.rule).toBe('maxItems');
    expect(e.message).toBe(
      `recipients: an instance has at most ${LIST_CAPS.recipientsPerInstance} recipients (the default one included); delete one to create another`,
    );
    expect(snapshot(i)).toEqual(before);
    // Deleting one makes room for one.
    i.recipients.delete(2);
    expect(i.recipients.create({ type: 'email', value: 'more@example.com' }).value).toBe('more@example.com');
  });

  it('the default recipient can be updated', () => {
    expect(i.recipients.update(1, { type: 'email', value: 'new-team@example.com' })).toEqual({
      id: 1,
      type: 'email',
      value: 'new-team@example.com',
      name: 'Default',
      options: null,
    });
  });

  it('the default recipient cannot be deleted (400), and nothing changes', () => {
    const before = snapshot(i);
    const e = refused(() => i.recipients.delete(1), 400, 'id', 'not-default');
    expect(e.message).toBe('id: recipient 1 is the default recipient, which always exists and cannot be deleted');
    expect(snapshot(i)).toEqual(before);
    expect(i.recipients.get(1).value).toBe(TEAM_EMAIL);
  });

  it('deleting a recipient removes it from every alarm', () => {
    const a = i.recipients.create({ type: 'email', value: 'a@example.com' });
    const b = i.recipients.create({ type: 'email', value: 'b@example.com' });
    i.alarms.update(1, { type: 'cpu', recipients: [a.id, b.id] });
    const notice = i.alarms.create({ type: 'notice', recipients: [1, a.id] });
    i.recipients.delete(a.id);
    expect(i.alarms.get(1).recipients).toEqual([b.id]);
    expect(i.alarms.get(notice.id).recipients).toEqual([1]);
    expect(i.recipients.list().map((r) => r.id)).toEqual([1, b.id]);
  });
});

describe('alarms', () => {
  it('are created with enabled true and recipients [] by default', () => {
    expect(i.alarms.create({ type: 'cpu', value_threshold: 80, time_threshold: 300 })).toEqual({
      id: 5,
      type: 'cpu',
      enabled: true,
      value_threshold: 80,
      time_threshold: 300,
      recipients: [],
    });
  });

  it('of type disk get value_calculation fixed by default', () => {
    expect(i.alarms.create({ type: 'disk', value_threshold: 50, time_threshold: 60 }).value_calculation).toBe('fixed');
    expect(
      i.alarms.create({ type: 'disk', value_threshold: 50, time_threshold: 60, value_calculation: 'percentage' })
        .value_calculation,
    ).toBe('percentage');
  });

  it('of the event types carry no thresholds', () => {
    for (const type of ['notice', 'server_unreachable', 'netsplit'] as const) {
      expect(i.alarms.create({ type, enabled: false, recipients: [1] })).toEqual({
        id: expect.any(Number),
        type,
        enabled: false,
        recipients: [1],
      });
    }
  });

  it('keep the given recipients and enabled', () => {
    const r = i.recipients.create({ type: 'email', value: 'a@example.com' });
    const a = i.alarms.create({
      type: 'memory',
      enabled: false,
      value_threshold: 70,
      time_threshold: 120,
      recipients: [1, r.id],
    });
    expect(i.alarms.get(a.id)).toEqual({
      id: a.id,
      type: 'memory',
      enabled: false,
      value_threshold: 70,
      time_threshold: 120,
      recipients: [1, r.id],
    });
    expect(i.alarms.list()).toHaveLength(5);
  });

  it('naming a recipient that does not exist is a 400 naming recipients, and nothing changes', () => {
    const before = snapshot(i);
    const e = refused(
      () => i.alarms.create({ type: 'cpu', value_threshold: 80, time_threshold: 300, recipients: [1, 42] }),
      400,
      'recipients',
      'exists',
    );
    expect(e.message).toMatch(/42/);
    refused(() => i.alarms.update(1, { type: 'cpu', recipients: [42] }), 400, 'recipients', 'exists');
    expect(snapshot(i)).toEqual(before);
  });

  it('a shared instance accepts only notice; another type is a 400 saying it is not available on shared plans', () => {
    const shared = s.instance({ planName: 'turtle' });
    const before = snapshot(shared);
    for (const type of ['cpu', 'memory', 'disk'] as const) {
      const e = refused(
        () => shared.alarms.create({ type, value_threshold: 50, time_threshold: 60 }),
        400,
        'type',
        'plan',
      );
      expect(e.message).toMatch(/not available on shared plans/);
    }
    for (const type of ['netsplit', 'server_unreachable'] as const)
      refused(() => shared.alarms.create({ type }), 400, 'type');
    expect(snapshot(shared)).toEqual(before);
    expect(shared.alarms.create({ type: 'notice' }).type).toBe('notice');
  });

  it('a dedicated instance accepts all six types', () => {
    for (const body of [
      { type: 'cpu', value_threshold: 1, time_threshold: 1 },
      { type: 'memory', value_threshold: 100, time_threshold: 604800 },
      { type: 'disk', value_threshold: 65536, time_threshold: 600 },
      { type: 'netsplit' },
      { type: 'server_unreachable' },
      { type: 'notice' },
    ] as const) {
      expect(i.alarms.create(body).type).toBe(body.type);
    }
  });

  it('the accepted types follow the plan after a plan change', () => {
    const shared = s.registry.catalogue.plans.find((p) => p.shared)!;
    i.changePlan(shared, s.registry.catalogue.backends[0]!);
    refused(() => i.alarms.create({ type: 'cpu', value_threshold: 50, time_threshold: 60 }), 400, 'type');
  });

  it('update is a merge: omitted fields keep their values', () => {
    // toStrictEqual: a field set to undefined by the merge would be missing from the JSON.
    expect(i.alarms.update(1, { type: 'cpu', enabled: false })).toStrictEqual({
      id: 1,
      type: 'cpu',
      enabled: false,
      value_threshold: 90,
      time_threshold: 600,
      recipients: [],
    });
    expect(i.alarms.update(1, { type: 'cpu', value_threshold: 75, recipients: [1] })).toStrictEqual({
      id: 1,
      type: 'cpu',
      enabled: false,
      value_threshold: 75,
      time_threshold: 600,
      recipients: [1],
    });
    expect(i.alarms.update(1, { type: 'cpu', time_threshold: 60 })).toStrictEqual({
      id: 1,
      type: 'cpu',
      enabled: false,
      value_threshold: 75,
      time_threshold: 60,
      recipients: [1],
    });
    expect(i.alarms.update(1, { type: 'cpu', enabled: true })).toMatchObject({ enabled: true, value_threshold: 75 });
    expect(i.alarms.get(1)).toStrictEqual({
      id: 1,
      type: 'cpu',
      enabled: true,
      value_threshold: 75,
      time_threshold: 60,
      recipients: [1],
    });
    expect(i.alarms.update(3, { type: 'disk', enabled: false })).toStrictEqual({
      id: 3,
      type: 'disk',
      enabled: false,
      value_threshold: 5,
      value_calculation: 'fixed',
      time_threshold: 600,
      recipients: [],
    });
    expect(i.alarms.update(4, { type: 'notice', recipients: [1] })).toStrictEqual({
      id: 4,
      type: 'notice',
      enabled: true,
      recipients: [1],
    });
  });

  it('update with another type is a 400 naming type, and nothing changes', () => {
    const before = snapshot(i);
    const e = refused(() => i.alarms.update(1, { type: 'memory', enabled: false }), 400, 'type', 'unchanged');
    expect(e.message).toMatch(/cpu/);
    expect(snapshot(i)).toEqual(before);
  });

  it('update of a disk alarm: the merged alarm must keep a percentage threshold at most 100', () => {
    const disk = i.alarms.create({
      type: 'disk',
      value_threshold: 80,
      time_threshold: 60,
      value_calculation: 'percentage',
    });
    const before = snapshot(i);
    refused(() => i.alarms.update(disk.id, { type: 'disk', value_threshold: 500 }), 400, 'value_threshold', 'maximum');
    // The default disk alarm is fixed at 5 GB: switching to percentage keeps 5, which is fine ...
    expect(i.alarms.update(3, { type: 'disk', value_threshold: 500 }).value_threshold).toBe(500);
    const mid = snapshot(i);
    // ... but with 500 GB stored, switching to percentage alone is refused.
    refused(
      () => i.alarms.update(3, { type: 'disk', value_calculation: 'percentage' }),
      400,
      'value_calculation',
      'maximum',
    );
    expect(snapshot(i)).toEqual(mid);
    expect(before.alarms.find((a) => a.id === disk.id)).toEqual(i.alarms.get(disk.id));
    expect(i.alarms.update(3, { type: 'disk', value_calculation: 'percentage', value_threshold: 90 })).toMatchObject({
      value_calculation: 'percentage',
      value_threshold: 90,
    });
    // 100 is the limit itself: accepted; 101 is not.
    expect(i.alarms.update(3, { type: 'disk', value_threshold: 100 }).value_threshold).toBe(100);
    const e = refused(
      () => i.alarms.update(3, { type: 'disk', value_threshold: 101 }),
      400,
      'value_threshold',
      'maximum',
    );
    expect(e.message).toMatch(/at most 100 \(it would be 101\)/);
  });

  it(`an instance holds at most ${LIST_CAPS.alarmsPerInstance} alarms, the default ones included; one more is a 400 (maxItems) that changes nothing`, () => {
    for (let n = i.alarms.list().length; n < LIST_CAPS.alarmsPerInstance; n++) i.alarms.create({ type: 'notice' });
    expect(i.alarms.list()).toHaveLength(LIST_CAPS.alarmsPerInstance);
    const before = snapshot(i);
    const e = refused(() => i.alarms.create({ type: 'notice' }), 400);
    expect(e.detail.rule).toBe('maxItems');
    expect(e.message).toMatch(new RegExp(`^alarms: an instance has at most ${LIST_CAPS.alarmsPerInstance} alarms`));
    expect(snapshot(i)).toEqual(before);
    // Deleting one makes room for one.
    i.alarms.delete(4);
    expect(i.alarms.create({ type: 'notice' }).type).toBe('notice');
  });

  it('the 400 for unknown recipients names each unknown id, at most ten of them', () => {
    expect(refused(() => i.alarms.create({ type: 'notice', recipients: [1, 42] }), 400, 'recipients').message).toBe(
      'recipients: no recipient of this instance has the id 42 (see listRecipients)',
    );
    expect(refused(() => i.alarms.create({ type: 'notice', recipients: [7, 1, 8] }), 400, 'recipients').message).toBe(
      'recipients: no recipient of this instance has the ids 7, 8 (see listRecipients)',
    );
    const many = Array.from({ length: 12 }, (_, k) => 100 + k);
    expect(refused(() => i.alarms.create({ type: 'notice', recipients: many }), 400, 'recipients').message).toBe(
      'recipients: no recipient of this instance has the ids 100, 101, 102, 103, 104, 105, 106, 107, 108, 109 and 2 more (see listRecipients)',
    );
    const ten = many.slice(0, 10);
    expect(refused(() => i.alarms.create({ type: 'notice', recipients: ten }), 400, 'recipients').message).toBe(
      `recipients: no recipient of this instance has the ids ${ten.join(', ')} (see listRecipients)`,
    );
  });

  it('the 400 for a type the plan lacks names the types it accepts', () => {
    expect(
      refused(() => s.instance({ planName: 'turtle' }).alarms.create({ type: 'netsplit' }), 400, 'type', 'plan')
        .message,
    ).toBe('type: alarm type netsplit is not available on shared plans; a shared instance accepts only notice');
    // The documents give dedicated plans every type; the store words a narrower plan on its own.
    const narrow = new Alarms({
      allowedTypes: () => ({ types: ['cpu', 'notice'], shared: false }),
      recipientExists: () => true,
    });
    expect(refused(() => narrow.create({ type: 'netsplit' }), 400, 'type', 'plan').message).toBe(
      "type: alarm type netsplit is not available on this instance's plan; it accepts cpu, notice",
    );
  });

  it('keeps its own copy of the recipients it is given', () => {
    const recipients = [1];
    const a = i.alarms.create({ type: 'notice', recipients });
    recipients.push(99);
    expect(i.alarms.get(a.id).recipients).toEqual([1]);
    const update = [1];
    i.alarms.update(a.id, { type: 'notice', recipients: update });
    update.push(99);
    expect(i.alarms.get(a.id).recipients).toEqual([1]);
  });

  it('an unknown id is a 404 for get, update and delete', () => {
    const before = snapshot(i);
    expect(refused(() => i.alarms.get(99), 404).message).toBe('Not found: no alarm with id 99');
    refused(() => i.alarms.update(99, { type: 'cpu' }), 404);
    refused(() => i.alarms.delete(99), 404);
    expect(snapshot(i)).toEqual(before);
  });

  it('delete removes an alarm, default alarms included, and ids are not reused', () => {
    i.alarms.delete(2);
    expect(i.alarms.list().map((a) => a.id)).toEqual([1, 3, 4]);
    refused(() => i.alarms.get(2), 404);
    expect(i.alarms.create({ type: 'notice' }).id).toBe(5);
  });

  it('records returned are copies: changing them changes nothing stored', () => {
    const a = i.alarms.get(1);
    a.recipients.push(1);
    a.enabled = false;
    expect(i.alarms.get(1)).toMatchObject({ enabled: true, recipients: [] });
  });
});

describe('alarms on a shared plan', () => {
  it('the 400 for a type a shared plan lacks lists every type it accepts, separated by commas', () => {
    // The documents give shared plans notice alone; the store words a wider shared plan on its own.
    const shared = new Alarms({
      allowedTypes: () => ({ types: ['notice', 'netsplit'], shared: true }),
      recipientExists: () => true,
    });
    expect(
      refused(() => shared.create({ type: 'cpu', value_threshold: 50, time_threshold: 60 }), 400, 'type', 'plan')
        .message,
    ).toBe('type: alarm type cpu is not available on shared plans; a shared instance accepts only notice, netsplit');
  });
});
