// InstanceStore: log and metrics integrations.
import { beforeEach, describe, expect, it } from 'vitest';
import type { InstanceStore } from '../../src/resources/instances/instance.js';
import { LIST_CAPS } from '../../src/core/limits.js';
import { ACCOUNT_ID, refused, setup, snapshot, type Setup } from './instance-setup.js';

let s: Setup;
let i: InstanceStore;
beforeEach(async () => {
  s = await setup();
  i = s.instance(); // hippo: backend postgres 4.2.1, broker kind primary_from_4_2
});

const logsD = { api_key: '0123456789abcdef', region: 'us1', tags: 'env=production' };

describe('log integrations', () => {
  it('are added with the system as type, the body as config, an empty error and the account id', () => {
    const created = i.createIntegration('logs', 'logs_d', logsD);
    expect(created).toEqual({ id: 1, type: 'logs_d', config: logsD, error: '', account_id: ACCOUNT_ID });
    expect(i.listIntegrations('logs')).toEqual([created]);
    expect(i.listIntegrations('metrics')).toEqual([]);
  });

  it('update by id replaces the config, validated against the stored system', () => {
    const { id } = i.createIntegration('logs', 'logs_d', logsD);
    const updated = i.updateIntegration('logs', id, { api_key: 'fedcba', region: 'eu' }, s.validate.logs);
    expect(updated.config).toEqual({ api_key: 'fedcba', region: 'eu' });
    expect(i.getIntegration('logs', id).config).toEqual({ api_key: 'fedcba', region: 'eu' });
  });

  it('update with a body of another system is a 400, and nothing changes', () => {
    const { id } = i.createIntegration('logs', 'logs_d', logsD);
    const before = snapshot(i);
    refused(() => i.updateIntegration('logs', id, { token: 'abc' }, s.validate.logs), 400, 'token'); // a field only another system takes, with a value
    refused(() => i.updateIntegration('logs', id, { ...logsD, region: 'mars' }, s.validate.logs), 400, 'region');
    expect(snapshot(i)).toEqual(before);
  });

  it('update with the system in the path: another system is a 404, the same system updates', () => {
    const { id } = i.createIntegration('logs', 'logs_d', logsD);
    const before = snapshot(i);
    refused(() => i.updateIntegration('logs', id, { token: 'abc' }, s.validate.logs, 'logs_e'), 404);
    expect(snapshot(i)).toEqual(before);
    expect(i.updateIntegration('logs', id, { api_key: 'k', region: 'us3' }, s.validate.logs, 'logs_d').config).toEqual({
      api_key: 'k',
      region: 'us3',
    });
  });

  it('an unknown id, or the id of a metrics integration, is a 404', () => {
    const metrics = i.createIntegration('metrics', 'metrics_c_v3', { api_key: 'k', region: 'eu' });
    const before = snapshot(i);
    refused(() => i.updateIntegration('logs', 99, logsD, s.validate.logs), 404);
    refused(() => i.updateIntegration('logs', metrics.id, logsD, s.validate.logs), 404);
    refused(() => i.deleteIntegration('logs', metrics.id), 404);
    refused(() => i.getIntegration('logs', metrics.id), 404);
    expect(snapshot(i)).toEqual(before);
  });

  it('the 404s name the kind, and with the system in the path the system too', () => {
    const { id } = i.createIntegration('logs', 'logs_d', logsD);
    expect(refused(() => i.getIntegration('logs', 99), 404).message).toBe('Not found: no log integration with id 99');
    expect(refused(() => i.deleteIntegration('metrics', id), 404).message).toBe(
      `Not found: no metrics integration with id ${id}`,
    );
    expect(
      refused(() => i.updateIntegration('logs', id, { token: 'abc' }, s.validate.logs, 'logs_e'), 404).message,
    ).toBe(`Not found: no logs_e log integration with id ${id}`);
  });

  it('delete removes the integration; ids are not reused', () => {
    const a = i.createIntegration('logs', 'logs_e', { token: 'a' });
    i.deleteIntegration('logs', a.id);
    expect(i.listIntegrations('logs')).toEqual([]);
    refused(() => i.deleteIntegration('logs', a.id), 404);
    expect(i.createIntegration('logs', 'logs_e', { token: 'b' }).id).toBe(a.id + 1);
  });

  it('store the config as a copy of the body', () => {
    const body: Record<string, unknown> = { token: 'a' };
    const { id } = i.createIntegration('logs', 'logs_f', body);
    body.token = 'changed';
    expect(i.getIntegration('logs', id).config).toEqual({ token: 'a' });
  });
});

describe('metrics integrations', () => {
  it('share the id sequence with log integrations, so an id names one integration', () => {
    const log = i.createIntegration('logs', 'logs_e', { token: 'a' });
    const metrics = i.createIntegration('metrics', 'metrics_d_v3', { license_key: 'abc' });
    expect(metrics.id).toBe(log.id + 1);
    expect(i.listIntegrations('metrics')).toEqual([
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
      const e = refused(() => i.createIntegration('metrics', system, {}), 400, 'system_or_int_id');
      expect(e.message).toContain(system);
      expect(e.message).toContain('primary_from_4_2');
      expect(e.detail.rule).toBe('availability');
    }
    expect(snapshot(i)).toEqual(before);
  });

  it('refuse a system the availability table does not list (400 availability)', () => {
    const e = refused(() => i.createIntegration('metrics', 'metrics_z', {}), 400, 'system_or_int_id', 'availability');
    expect(e.message).toContain('metrics_z');
    expect(i.listIntegrations('metrics')).toEqual([]);
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
          x.createIntegration('metrics', system, {});
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
    expect(i.createIntegration('metrics', 'metrics_c', { api_key: 'k', region: 'us1' }).type).toBe('metrics_c');
  });

  it('update validates against the stored system and replaces the config', () => {
    const { id } = i.createIntegration('metrics', 'metrics_c_v3', { api_key: 'k', region: 'us1', tags: 'env=prod' });
    expect(
      i.updateIntegration('metrics', id, { api_key: 'k2', region: 'eu', include_ad_queues: true }, s.validate.metrics)
        .config,
    ).toEqual({
      api_key: 'k2',
      region: 'eu',
      include_ad_queues: true,
    });
    refused(() => i.updateIntegration('metrics', id, { license_key: 'x' }, s.validate.metrics), 400, 'license_key'); // a field only another system takes, with a value
    refused(() => i.updateIntegration('metrics', id, { license_key: 'x' }, s.validate.metrics, 'metrics_d_v3'), 404);
  });
});

describe('the integrations an instance holds', () => {
  const cap = LIST_CAPS.integrationsPerInstance;

  it(`are at most ${cap} log integrations; one more is a 400 (maxItems) naming the list, and changes nothing`, () => {
    for (let n = 0; n < cap; n++) i.createIntegration('logs', 'logs_e', { token: `t${n}` });
    expect(i.listIntegrations('logs')).toHaveLength(cap);
    const before = snapshot(i);
    const e = refused(() => i.createIntegration('logs', 'logs_e', { token: 'more' }), 400);
    expect(e.detail.rule).toBe('maxItems');
    expect(e.message).toBe(
      `logs integrations: an instance has at most ${cap} log integrations; delete one to create another`,
    );
    expect(snapshot(i)).toEqual(before);
    // The cap is per kind: metrics integrations can still be added.
    expect(i.createIntegration('metrics', 'metrics_d_v3', { license_key: 'abc' }).type).toBe('metrics_d_v3');
    // Deleting one makes room for one.
    i.deleteIntegration('logs', i.listIntegrations('logs')[0]!.id);
    expect(i.createIntegration('logs', 'logs_e', { token: 'again' }).config).toEqual({ token: 'again' });
  });

  it(`are at most ${cap} metrics integrations; one more is a 400 naming the metrics list`, () => {
    for (let n = 0; n < cap; n++) i.createIntegration('metrics', 'metrics_d_v3', { license_key: `k${n}` });
    const e = refused(() => i.createIntegration('metrics', 'metrics_d_v3', { license_key: 'more' }), 400);
    expect(e.detail.rule).toBe('maxItems');
    expect(e.message).toBe(
      `metrics integrations: an instance has at most ${cap} metrics integrations; delete one to create another`,
    );
    expect(i.listIntegrations('metrics')).toHaveLength(cap);
    expect(i.createIntegration('logs', 'logs_e', { token: 't' }).type).toBe('logs_e');
  });
});
