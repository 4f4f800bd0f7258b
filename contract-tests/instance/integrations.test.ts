// Log and metrics integrations of the instance interface: add by system token, list, update by id
// and by system and id, delete; bodies per system in JSON and form encoding; metrics availability by
// broker kind; every error a client can provoke.
import { beforeAll, describe, expect, it } from 'vitest';
import { createInstance, useContract } from '../harness/index.js';
import { expectError, expectMethodNotAllowed } from './support.js';

const t = useContract();

const LOG_BODIES: Record<string, Record<string, string>> = {
  logs_a: {
    tenant_id: '9b2f6c3a-1d4e-4f5a-8b7c-0d1e2f3a4b5c',
    application_id: '4c5d6e7f-8a9b-4c0d-9e1f-2a3b4c5d6e7f',
    application_secret: 'app-secret-0123456789',
    dce_uri: 'https://tusk-dce.eastus-1.ingest.logs-a.example.com',
    table: 'TuskLogs_CL',
    dcr_id: 'dcr-0123456789abcdef0123456789abcdef',
  },
  logs_b: {
    region: 'us-east-1',
    access_key_id: 'EXAMPLEKEYID00000001',
    secret_access_key: 'wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY01',
  },
  logs_c: {
    private_key: 'cx-send-only-0123456789abcdef',
    endpoint: 'syslog.logs-c.example.com:6514',
    application: 'tusk',
    subsystem: 'postgres',
  },
  logs_d: { api_key: '0123456789abcdef0123456789abcdef', region: 'us1', tags: 'env=production,team=platform' },
  logs_e: { token: 'tcp-token-0123456789abcdef' },
  logs_f: { token: 'logs-f-token-0123456789' },
  logs_g: { url: 'logs.example.com:514' },
  logs_h: { token: 'logs-h-token-0123456789', host: 'intake.eu.logs-h.example.com' },
  logs_i: {
    token: '6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9',
    host_port: 'collector.logs-i.example.com:8088',
    sourcetype: 'postgres',
  },
};

describe('log integrations', () => {
  let key: string;
  beforeAll(async () => {
    ({ apikey: key } = await createInstance(t));
  });

  const add = async (system: string, body: Record<string, unknown>, form = false) => {
    const res = await t.api.instance('createLogIntegration', key, { params: { system_or_int_id: system }, body, form });
    return t.api.record('instance', 'Integration', res);
  };
  const list = async () => (await t.api.instance('listLogIntegrations', key)).body;
  const getOne = async (id: number) => {
    const res = await t.api.instance('getLogIntegration', key, { params: { system_or_int_id: id } });
    t.api.expectStatus(res, 200);
    return res.body;
  };

  it('a new instance has no log integrations', async () => {
    const { apikey } = await createInstance(t);
    const res = await t.api.instance('listLogIntegrations', apikey);
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('every log system is added with its parameters as config, an empty error and the account id', async () => {
    for (const [system, body] of Object.entries(LOG_BODIES)) {
      const created = await add(system, body);
      expect(created).toEqual({
        id: created.id,
        type: system,
        config: body,
        error: '',
        account_id: created.account_id,
      });
      expect(created.account_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i);
      expect(await list()).toContainEqual(created);
    }
  });

  it('adding in form encoding works', async () => {
    const created = await add('logs_d', { api_key: 'form-key', region: 'eu' }, true);
    expect(created.config).toEqual({ api_key: 'form-key', region: 'eu' });
  });

  it('refuses an unknown system token and bodies the system does not take (400 naming the field; a field of another system with a value, or the missing one), adding nothing', async () => {
    const before = await list();
    expectError(
      await t.api.instance('createLogIntegration', key, {
        params: { system_or_int_id: 'logs_z' },
        body: { token: 'x' },
      }),
      400,
      'system_or_int_id',
    );
    const cases: [string, Record<string, unknown>, string | string[]][] = [
      ['logs_d', { api_key: 'k' }, 'region'],
      ['logs_d', { api_key: 'k', region: 'mars' }, 'region'],
      ['logs_d', { api_key: 'k', region: 'us1', tags: 'env=1prod' }, 'tags'],
      ['logs_e', { token: 'x', host: 'y' }, 'host'],
      ['logs_e', { api_key: 'k', region: 'us1' }, ['token', 'api_key', 'region']],
      ['logs_g', { url: 'no-port.example.com' }, 'url'],
      ['logs_h', { token: 't', host: '' }, 'host'],
      ['logs_c', { private_key: 'k', endpoint: 'e:1', application: 'a' }, 'subsystem'],
    ];
    for (const [system, body, field] of cases) {
      expectError(
        await t.api.instance('createLogIntegration', key, { params: { system_or_int_id: system }, body }),
        400,
        field,
      );
    }
    expect(await list()).toEqual(before);
  });

  it('updating by id replaces the config, validated against the stored system', async () => {
    const { id } = await add('logs_d', LOG_BODIES.logs_d!);
    const res = await t.api.instance('updateLogIntegration', key, {
      params: { system_or_int_id: id },
      body: { api_key: 'fedcba9876543210', region: 'eu' },
    });
    t.api.expectStatus(res, '2XX');
    // The answer may have no body (production answers 204): the record is read back by id.
    expect(await getOne(id)).toMatchObject({
      id,
      type: 'logs_d',
      config: { api_key: 'fedcba9876543210', region: 'eu' },
      error: '',
    });
    expect((await list()).find((i) => i.id === id)!.config).toEqual({ api_key: 'fedcba9876543210', region: 'eu' });
    const form = await t.api.instance('updateLogIntegration', key, {
      params: { system_or_int_id: id },
      body: { api_key: 'form', region: 'us5' },
      form: true,
    });
    t.api.expectStatus(form, '2XX');
    expect((await getOne(id)).config).toEqual({ api_key: 'form', region: 'us5' });
  });

  it('updating by id with the body of another system is a 400, and changes nothing', async () => {
    const created = await add('logs_d', LOG_BODIES.logs_d!);
    expectError(
      await t.api.instance('updateLogIntegration', key, {
        params: { system_or_int_id: created.id },
        body: { token: 'abc' },
      }),
      400,
      ['api_key', 'token'],
    );
    // A body that fits no system at all is refused before the stored system is known: a 400, but
    // the field it names may belong to another system's schema.
    expectError(
      await t.api.instance('updateLogIntegration', key, {
        params: { system_or_int_id: created.id },
        body: { api_key: 'k', region: 'nowhere' },
      }),
      400,
    );
    // With the system in the path, the body is checked against that system's schema.
    expectError(
      await t.api.instance('updateLogIntegrationWithSystem', key, {
        params: { system: 'logs_d', int_id: created.id },
        body: { api_key: 'k', region: 'nowhere' },
      }),
      400,
      'region',
    );
    expect((await list()).find((i) => i.id === created.id)).toEqual(created);
  });

  it('updating with the system before the id works for that system; another system is a 404', async () => {
    const created = await add('logs_e', LOG_BODIES.logs_e!);
    const ok = await t.api.instance('updateLogIntegrationWithSystem', key, {
      params: { system: 'logs_e', int_id: created.id },
      body: { token: 'rotated-token' },
    });
    t.api.expectStatus(ok, '2XX');
    expect(await getOne(created.id)).toMatchObject({
      id: created.id,
      type: 'logs_e',
      config: { token: 'rotated-token' },
    });
    expectError(
      await t.api.instance('updateLogIntegrationWithSystem', key, {
        params: { system: 'logs_f', int_id: created.id },
        body: { token: 'other' },
      }),
      404,
    );
    expectError(
      await t.api.instance('updateLogIntegrationWithSystem', key, {
        params: { system: 'logs_q', int_id: created.id },
        body: { token: 'other' },
      }),
      400,
      'system',
    );
    expect((await list()).find((i) => i.id === created.id)!.config).toEqual({ token: 'rotated-token' });
  });

  it('reads one integration by id (as production serves it); an unknown id is a 404, a non-integer id a 400', async () => {
    const created = await add('logs_d', LOG_BODIES.logs_d!);
    expect(await getOne(created.id)).toEqual(created);
    expectError(await t.api.instance('getLogIntegration', key, { params: { system_or_int_id: 999999 } }), 404);
    expectError(
      await t.api.instance('getLogIntegration', key, { params: { system_or_int_id: 'logs_d' } }),
      400,
      'system_or_int_id',
    );
    // A metrics integration id is no log integration.
    const metrics = {
      body: t.api.record(
        'instance',
        'Integration',
        await t.api.instance('createMetricsIntegration', key, {
          params: { system_or_int_id: 'metrics_d_v3' },
          body: { license_key: 'l' },
        }),
      ),
    };
    expectError(await t.api.instance('getLogIntegration', key, { params: { system_or_int_id: metrics.body.id } }), 404);
    expect(
      (await t.api.instance('getMetricsIntegration', key, { params: { system_or_int_id: metrics.body.id } })).body,
    ).toEqual(metrics.body);
  });

  it('an unknown id is a 404 for update and delete; a non-integer id a 400', async () => {
    expectError(
      await t.api.instance('updateLogIntegration', key, { params: { system_or_int_id: 999999 }, body: { token: 'x' } }),
      404,
    );
    expectError(
      await t.api.instance('updateLogIntegrationWithSystem', key, {
        params: { system: 'logs_e', int_id: 999999 },
        body: { token: 'x' },
      }),
      404,
    );
    expectError(await t.api.instance('deleteLogIntegration', key, { params: { system_or_int_id: 999999 } }), 404);
    expectError(
      await t.api.instance('deleteLogIntegration', key, { params: { system_or_int_id: 'logs_d' } }),
      400,
      'system_or_int_id',
    );
  });

  it('deleting removes the integration', async () => {
    const created = await add('logs_f', LOG_BODIES.logs_f!);
    const del = await t.api.instance('deleteLogIntegration', key, { params: { system_or_int_id: created.id } });
    expect([200, 204]).toContain(del.status);
    expect((await list()).some((i) => i.id === created.id)).toBe(false);
    expectError(await t.api.instance('deleteLogIntegration', key, { params: { system_or_int_id: created.id } }), 404);
  });

  it('unsupported methods are a 405 with Allow', async () => {
    await expectMethodNotAllowed(t, 'POST', '/api/integrations/logs', key, ['GET']);
    await expectMethodNotAllowed(t, 'PATCH', '/api/integrations/logs/logs_d', key, ['GET', 'POST', 'PUT', 'DELETE']);
    await expectMethodNotAllowed(t, 'DELETE', '/api/integrations/logs/logs_d/1', key, ['PUT']);
  });
});

describe('metrics integrations', () => {
  // The first dedicated plan of the reference implementation's catalogue runs the primary broker
  // from 4.2; the legacy and alternative backends are asked for by name.
  let key: string;
  let legacyKey: string;
  let alternativeKey: string;
  beforeAll(async () => {
    ({ apikey: key } = await createInstance(t, { backendKind: 'postgresql' }));
    ({ apikey: legacyKey } = await createInstance(t, { backendKind: 'postgres-legacy' }));
    ({ apikey: alternativeKey } = await createInstance(t, { backendKind: 'pgcompat' }));
  });

  const add = async (apikey: string, system: string, body: Record<string, unknown>, form = false) => {
    const res = await t.api.instance('createMetricsIntegration', apikey, {
      params: { system_or_int_id: system },
      body,
      form,
    });
    return t.api.record('instance', 'Integration', res);
  };
  const list = async (apikey: string) => (await t.api.instance('listMetricsIntegrations', apikey)).body;

  const BODIES: Record<string, Record<string, unknown>> = {
    metrics_a: { region: 'us-east-1', access_key_id: 'EXAMPLEKEYID00000001', secret_access_key: 'secret' },
    metrics_a_v2: { region: 'us-east-1', iam_role: 'arn:role/tusk', iam_external_id: 'ext-1' },
    metrics_a_v3: { region: 'eu-west-1', iam_role: 'arn:role/tusk', iam_external_id: 'ext-1', tags: 'env=prod' },
    metrics_b: { email: 'metrics@example.com', api_key: 'k' },
    metrics_c: { api_key: 'k', region: 'us1' },
    metrics_c_v2: { api_key: 'k', region: 'us3', queue_regex: '^orders\\.', vhost_regex: '' },
    metrics_c_v3: { api_key: 'k', region: 'eu', include_ad_queues: true },
    metrics_d_v2: { license_key: 'license' },
    metrics_d_v3: { license_key: 'license' },
    metrics_e: { token: 't', host_port: 'collector.example.com:8088', sourcetype: 'rmq' },
  };

  it('a new instance has no metrics integrations', async () => {
    const { apikey } = await createInstance(t);
    expect((await t.api.instance('listMetricsIntegrations', apikey)).body).toEqual([]);
  });

  it('the alternative broker offers every accepted system', async () => {
    for (const [system, body] of Object.entries(BODIES)) {
      const created = await add(alternativeKey, system, body);
      expect(created).toMatchObject({ type: system, config: body, error: '' });
    }
    expect((await list(alternativeKey)).map((i) => i.type).sort()).toEqual(Object.keys(BODIES).sort());
  });

  it('the primary broker from 4.2 offers the _v3 systems and refuses the others with a 400 naming the system and the broker kind', async () => {
    for (const system of ['metrics_a_v3', 'metrics_c_v3', 'metrics_d_v3']) await add(key, system, BODIES[system]!);
    const before = await list(key);
    for (const system of [
      'metrics_a',
      'metrics_a_v2',
      'metrics_b',
      'metrics_c',
      'metrics_c_v2',
      'metrics_d_v2',
      'metrics_e',
    ]) {
      const res = await t.api.instance('createMetricsIntegration', key, {
        params: { system_or_int_id: system },
        body: BODIES[system],
      });
      expect(expectError(res, 400, system).error).toMatch(/primary_from_4_2|4\.2/);
    }
    expect(await list(key)).toEqual(before);
  });

  it('the primary broker below 4.2 offers the older systems and refuses the _v3 ones', async () => {
    for (const system of [
      'metrics_a',
      'metrics_a_v2',
      'metrics_b',
      'metrics_c',
      'metrics_c_v2',
      'metrics_d_v2',
      'metrics_e',
    ])
      await add(legacyKey, system, BODIES[system]!);
    for (const system of ['metrics_a_v3', 'metrics_c_v3', 'metrics_d_v3']) {
      expectError(
        await t.api.instance('createMetricsIntegration', legacyKey, {
          params: { system_or_int_id: system },
          body: BODIES[system],
        }),
        400,
        system,
      );
    }
  });

  it('metrics_f and metrics_f_v2 are not accepted system tokens (400)', async () => {
    for (const system of ['metrics_f', 'metrics_f_v2']) {
      expectError(
        await t.api.instance('createMetricsIntegration', alternativeKey, {
          params: { system_or_int_id: system },
          body: { api_key: 'k' },
        }),
        400,
        'system_or_int_id',
      );
    }
  });

  it('adding in form encoding reads include_ad_queues=true as a boolean', async () => {
    const created = await add(key, 'metrics_c_v3', { api_key: 'k', region: 'us1', include_ad_queues: true }, true);
    expect(created.config).toEqual({ api_key: 'k', region: 'us1', include_ad_queues: true });
  });

  it('refuses bodies the system does not take (400 naming the field; a field of another system with a value, or the missing one)', async () => {
    const cases: [string, Record<string, unknown>, string | string[]][] = [
      ['metrics_a', { region: 'us-east-1', access_key_id: 'id' }, 'secret_access_key'],
      ['metrics_a', { region: 'us-east-1' }, 'access_key_id'],
      [
        'metrics_a_v3',
        { region: 'us-east-1', access_key_id: 'id', secret_access_key: 's' },
        ['iam_role', 'access_key_id', 'secret_access_key'],
      ],
      ['metrics_b', { email: 'not-an-address', api_key: 'k' }, 'email'],
      ['metrics_c', { api_key: 'k', region: 'us2' }, 'region'],
      ['metrics_c', { api_key: 'k', region: 'us1', include_ad_queues: 'yes' }, 'include_ad_queues'],
      ['metrics_c', { api_key: 'k', region: 'us1', tags: 'nope' }, 'tags'],
      ['metrics_e', { token: 't', host_port: 'nohost', sourcetype: 's' }, 'host_port'],
    ];
    const before = await list(alternativeKey);
    for (const [system, body, field] of cases) {
      expectError(
        await t.api.instance('createMetricsIntegration', alternativeKey, {
          params: { system_or_int_id: system },
          body,
        }),
        400,
        field,
      );
    }
    expect(await list(alternativeKey)).toEqual(before);
  });

  it('updating by id and by system and id replaces the config; another system is a 404; a foreign body a 400', async () => {
    const created = await add(key, 'metrics_c_v3', { api_key: 'k', region: 'us1' });
    const byId = await t.api.instance('updateMetricsIntegration', key, {
      params: { system_or_int_id: created.id },
      body: { api_key: 'k2', region: 'eu', include_ad_queues: true },
    });
    t.api.expectStatus(byId, '2XX');
    const readBack = await t.api.instance('getMetricsIntegration', key, { params: { system_or_int_id: created.id } });
    expect(readBack.body).toMatchObject({
      id: created.id,
      type: 'metrics_c_v3',
      config: { api_key: 'k2', region: 'eu', include_ad_queues: true },
    });
    const bySystem = await t.api.instance('updateMetricsIntegrationWithSystem', key, {
      params: { system: 'metrics_c_v3', int_id: created.id },
      body: { api_key: 'k3', region: 'us5' },
      form: true,
    });
    t.api.expectStatus(bySystem, '2XX');
    expect(
      (await t.api.instance('getMetricsIntegration', key, { params: { system_or_int_id: created.id } })).body.config,
    ).toEqual({
      api_key: 'k3',
      region: 'us5',
    });
    expectError(
      await t.api.instance('updateMetricsIntegrationWithSystem', key, {
        params: { system: 'metrics_d_v3', int_id: created.id },
        body: { license_key: 'l' },
      }),
      404,
    );
    expectError(
      await t.api.instance('updateMetricsIntegration', key, {
        params: { system_or_int_id: created.id },
        body: { license_key: 'l' },
      }),
      400,
      ['api_key', 'license_key'],
    );
    expect((await list(key)).find((i) => i.id === created.id)!.config).toEqual({ api_key: 'k3', region: 'us5' });
  });

  it('a log integration id is not a metrics integration (404), and unknown ids are a 404', async () => {
    const log = {
      body: t.api.record(
        'instance',
        'Integration',
        await t.api.instance('createLogIntegration', key, {
          params: { system_or_int_id: 'logs_e' },
          body: { token: 'x' },
        }),
      ),
    };
    expectError(
      await t.api.instance('updateMetricsIntegration', key, {
        params: { system_or_int_id: log.body.id },
        body: { license_key: 'l' },
      }),
      404,
    );
    expectError(
      await t.api.instance('deleteMetricsIntegration', key, { params: { system_or_int_id: log.body.id } }),
      404,
    );
    expectError(await t.api.instance('deleteMetricsIntegration', key, { params: { system_or_int_id: 999999 } }), 404);
    expect((await t.api.instance('listLogIntegrations', key)).body).toContainEqual(log.body);
  });

  it('deleting removes the integration', async () => {
    const created = await add(key, 'metrics_d_v3', { license_key: 'l' });
    const del = await t.api.instance('deleteMetricsIntegration', key, { params: { system_or_int_id: created.id } });
    expect([200, 204]).toContain(del.status);
    expect((await list(key)).some((i) => i.id === created.id)).toBe(false);
  });

  it('unsupported methods are a 405 with Allow', async () => {
    await expectMethodNotAllowed(t, 'DELETE', '/api/integrations/metrics', key, ['GET']);
    await expectMethodNotAllowed(t, 'PATCH', '/api/integrations/metrics/1', key, ['GET', 'POST', 'PUT', 'DELETE']);
    await expectMethodNotAllowed(t, 'POST', '/api/integrations/metrics/metrics_c/1', key, ['PUT']);
  });
});
