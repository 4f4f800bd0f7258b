// InstanceStore: log and metrics integrations.
import { beforeEach, describe, expect, it } from 'vitest';
import type { InstanceStore } from '../../../src/resources/instances/instance.js';
import { LIST_CAPS } from '../../../src/core/limits.js';
import { ACCOUNT_ID, refused, setup, snapshot, type Setup } from '../instance-setup.js';

let s: Setup;
let i: InstanceStore;
beforeEach(async () => {
  s = await setup();
  i = s.instance(); // hippo: backend postgres 4.2.1, broker kind primary_from_4_2
});

const logsD = { api_key: '0123456789abcdef', region: 'us1', tags: 'env=production' };

describe('log integrations', () => {
  it('are added with the system as type, the body as config, an empty error and the account id', () => {
    const created = i.integrations['logs'].create('logs_d', logsD);
    expect(created).toEqual({ id: 1, type: 'logs_d', config: logsD, error: '', account_id: ACCOUNT_ID });
    expect(i.integrations['logs'].list()).toEqual([created]);
    expect(i.integrations['metrics'].list()).toEqual([]);
  });

  it('update by id replaces the config, validated against the stored system', () => {
    const { id } = i.integrations['logs'].create('logs_d', logsD);
    const updated = i.integrations['logs'].update(id, { api_key: 'fedcba', region: 'eu' }, s.validate.logs);
    expect(updated.config).toEqual({ api_key: 'fedcba', region: 'eu' });
    expect(i.integrations['logs'].get(id).config).toEqual({ api_key: 'fedcba', region: 'eu' });
  });

  it('update with a body of another system is a 400, and nothing changes', () => {
    const { id } = i.integrations['logs'].create('logs_d', logsD);
    const before = snapshot(i);
    refused(() => i.integrations['logs'].update(id, { token: 'abc' }, s.validate.logs), 400, 'token'); // a field only another system takes, with a value
    refused(() => i.integrations['logs'].update(id, { ...logsD, region: 'mars' }, s.validate.logs), 400, 'region');
    expect(snapshot(i)).toEqual(before);
  });

  it('update with the system in the path: another system is a 404, the same system updates', () => {
    const { id } = i.integrations['logs'].create('logs_d', logsD);
    const before = snapshot(i);
    refused(() => i.integrations['logs'].update(id, { token: 'abc' }, s.validate.logs, 'logs_e'), 404);
    expect(snapshot(i)).toEqual(before);
    expect(
      i.integrations['logs'].update(id, { api_key: 'k', region: 'us3' }, s.validate.logs, 'logs_d').config,
    ).toEqual({
      api_key: 'k',
      region: 'us3',
    });
  });

  it('an unknown id, or the id of a metrics integration, is a 404', () => {
    const metrics = i.integrations['metrics'].create('metrics_c_v3', { api_key: 'k', region: 'eu' });
    const before = snapshot(i);
    refused(() => i.integrations['logs'].update(99, logsD, s.validate.logs), 404);
    refused(() => i.integrations['logs'].update(metrics.id, logsD, s.validate.logs), 404);
    refused(() => i.integrations['logs'].delete(metrics.id), 404);
    refused(() => i.integrations['logs'].get(metrics.id), 404);
    expect(snapshot(i)).toEqual(before);
  });

  it('the 404s name the kind, and with the system in the path the system too', () => {
    const { id } = i.integrations['logs'].create('logs_d', logsD);
    expect(refused(() => i.integrations['logs'].get(99), 404).message).toBe('Not found: no log integration with id 99');
    expect(refused(() => i.integrations['metrics'].delete(id), 404).message).toBe(
      `Not found: no metrics integration with id ${id}`,
    );
    expect(
      refused(() => i.integrations['logs'].update(id, { token: 'abc' }, s.validate.logs, 'logs_e'), 404).message,
    ).toBe(`Not found: no logs_e log integration with id ${id}`);
  });

  it('delete removes the integration; ids are not reused', () => {
    const a = i.integrations['logs'].create('logs_e', { token: 'a' });
    i.integrations['logs'].delete(a.id);
    expect(i.integrations['logs'].list()).toEqual([]);
    refused(() => i.integrations['logs'].delete(a.id), 404);
    expect(i.integrations['logs'].create('logs_e', { token: 'b' }).id).toBe(a.id + 1);
  });

  it('store the config as a copy of the body', () => {
    const body: Record<string, unknown> = { token: 'a' };
    const { id } = i.integrations['logs'].create('logs_f', body);
    body.token = 'changed';
    expect(i.integrations['logs'].get(id).config).toEqual({ token: 'a' });
  });
});

describe('metrics integrations', () => {
  it('share the id sequence with log integrations, so an id names one integration', () => {
    const log = i.integrations['logs'].create('logs_e', { token: 'a' });
    const metrics = i.integrations['metrics'].create('metrics_d_v3', { license_key: 'abc' });
    expect(metrics.id).toBe(log.id + 1);
    expect(i.integrations['metrics'].list()).toEqual([
      { id: metrics.id, type: 'metrics_d_v3', config: { license_key: 'abc' }, error: '', account_id: ACCOUNT_ID },
    ]);
  });

  it('refuse a system the broker kind does not offer, naming the system and the broker kind, and change nothing', () => {
    const before = snapshot(i);
    for (const system of [
      'metrics_a',
      'metrics_a_v2',
      'metrics_b',
      'metrics_c',
      'metrics_c_v2',
      'metrics_d_v2',
      'metrics_e',
    ]) {
      const e = refused(() => i.integrations['metrics'].create(system, {}), 400, 'system_or_int_id');
      expect(e.message).toContain(system);
      expect(e.message).toContain('primary_from_4_2');
      expect(e.detail.rule).toBe('availability');
    }
    expect(snapshot(i)).toEqual(before);
  });

  it('refuse a system the availability table does not list (400 availability)', () => {
    const e = refused(() => i.integrations['metrics'].create('metrics_z', {}), 400, 'system_or_int_id', 'availability');
    expect(e.message).toContain('metrics_z');
    expect(i.integrations['metrics'].list()).toEqual([]);
  });

  it('follow the availability table for each broker kind', () => {
    const offered = (planName: string) => {
      const x = s.instance({ planName });
      return [
        'metrics_a',
        'metrics_a_v2',
        'metrics_a_v3',
        'metrics_b',
        'metrics_c',
        'metrics_c_v2',
        'metrics_c_v3',
        'metrics_d_v2',
        'metrics_d_v3',
        'metrics_e',
      ].filter((system) => {
        try {
          x.integrations['metrics'].create(system, {});
          return true;
        } catch {
          return false;
        }
      });
    };
    expect(offered('hippo')).toEqual(['metrics_a_v3', 'metrics_c_v3', 'metrics_d_v3']);
    expect(offered('legacy-1')).toEqual([
      'metrics_a',
      'metrics_a_v2',
      'metrics_b',
      'metrics_c',
      'metrics_c_v2',
      'metrics_d_v2',
      'metrics_e',
    ]);
    expect(offered('compat-1')).toHaveLength(10);
  });

  it('availability follows the plan after a plan change', () => {
    const legacy = s.registry.catalogue.plans.find((p) => p.name === 'legacy-1')!;
    i.changePlan(
      legacy,
      s.registry.catalogue.backends.find((b) => b.name === 'postgres-legacy')!,
    );
    expect(i.integrations['metrics'].create('metrics_c', { api_key: 'k', region: 'us1' }).type).toBe('metrics_c');
  });

  it('update validates against the stored system and replaces the config', () => {
    const { id } = i.integrations['metrics'].create('metrics_c_v3', { api_key: 'k', region: 'us1', tags: 'env=prod' });
    expect(
      i.integrations['metrics'].update(id, { api_key: 'k2', region: 'eu', include_ad_queues: true }, s.validate.metrics)
        .config,
    ).toEqual({
      api_key: 'k2',
      region: 'eu',
      include_ad_queues: true,
    });
    refused(() => i.integrations['metrics'].update(id, { license_key: 'x' }, s.validate.metrics), 400, 'license_key'); // a field only another system takes, with a value
    refused(() => i.integrations['metrics'].update(id, { license_key: 'x' }, s.validate.metrics, 'metrics_d_v3'), 404);
  });
});

describe('the integrations an instance holds', () => {
  const cap = LIST_CAPS.integrationsPerInstance;

  it(`are at most ${cap} log integrations; one more is a 400 (maxItems) naming the list, and changes nothing`, () => {
    for (let n = 0; n < cap; n++) i.integrations['logs'].create('logs_e', { token: `t${n}` });
    expect(i.integrations['logs'].list()).toHaveLength(cap);
    const before = snapshot(i);
    const e = refused(() => i.integrations['logs'].create('logs_e', { token: 'more' }), 400);
    expect(e.detail.rule).toBe('maxItems');
    expect(e.message).toBe(
      `logs integrations: an instance has at most ${cap} log integrations; delete one to create another`,
    );
    expect(snapshot(i)).toEqual(before);
    // The cap is per kind: metrics integrations can still be added.
    expect(i.integrations['metrics'].create('metrics_d_v3', { license_key: 'abc' }).type).toBe('metrics_d_v3');
    // Deleting one makes room for one.
    i.integrations['logs'].delete(i.integrations['logs'].list()[0]!.id);
    expect(i.integrations['logs'].create('logs_e', { token: 'again' }).config).toEqual({ token: 'again' });
  });

  it(`are at most ${cap} metrics integrations; one more is a 400 naming the metrics list`, () => {
    for (let n = 0; n < cap; n++) i.integrations['metrics'].create('metrics_d_v3', { license_key: `k${n}` });
    const e = refused(() => i.integrations['metrics'].create('metrics_d_v3', { license_key: 'more' }), 400);
    expect(e.detail.rule).toBe('maxItems');
    expect(e.message).toBe(
      `metrics integrations: an instance has at most ${cap} metrics integrations; delete one to create another`,
    );
    expect(i.integrations['metrics'].list()).toHaveLength(cap);
    expect(i.integrations['logs'].create('logs_e', { token: 't' }).type).toBe('logs_e');
  });
});
