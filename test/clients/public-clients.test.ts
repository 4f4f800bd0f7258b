// The provider's public clients, replayed over real HTTP as ../shared/provider-facts/README.md
// records them: their exact requests (form without Content-Type, JSON, the full alarm model with
// zero values and extra fields) and their own status checks. Under `--answers production` every
// code is the one the client insists on; in the default mode the same flows pass with 2xx checks.
// Also: `--vary-success`, the `Tusk-Answers` header, `Tusk-Ignored-Fields` and `--strict-fields`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTusk, type RunningTusk, type TuskOptions } from '../../src/server.js';

const ADMIN = 'tusk-admin-key';

interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON as the client reads it
}

/** One HTTP request as a Go net/http client sends it: Basic auth with an empty user, the body as given. */
async function call(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: { json?: unknown; form?: string },
  headers: Record<string, string> = {},
): Promise<Answer> {
  const h: Record<string, string> = { authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}`, ...headers };
  let payload: Uint8Array | undefined;
  if (body?.json !== undefined) {
    h['content-type'] = 'application/json';
    payload = new TextEncoder().encode(JSON.stringify(body.json));
  } else if (body?.form !== undefined) payload = new TextEncoder().encode(body.form); // no Content-Type at all
  const res = await fetch(base + path, { method, headers: h, ...(payload ? { body: payload } : {}) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** A client's status check: `exact` under --answers production, any 2xx in the default mode. */
function check(res: Answer, exact: number, production: boolean, what: string): Answer {
  if (production) expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(exact);
  else expect(res.status >= 200 && res.status < 300, `${what}: ${res.status} ${JSON.stringify(res.body)}`).toBe(true);
  return res;
}

async function start(options: TuskOptions = {}): Promise<RunningTusk> {
  return startTusk({
    customerPort: 0,
    instancePort: 0,
    log: 'off',
    provisionDelayMs: 50,
    rateLimit: '100000/1',
    ...options,
  });
}

async function untilReady(tusk: RunningTusk, id: number, production: boolean): Promise<Answer> {
  for (let i = 0; i < 100; i++) {
    const got = check(
      await call(tusk.customerUrl, ADMIN, 'GET', `/api/instances/${id}`),
      200,
      production,
      'get instance',
    );
    if (got.body.ready === true) return got;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`instance ${id} never became ready`);
}

for (const production of [true, false]) {
  describe(`the public clients ${production ? 'under --answers production (their exact codes)' : 'in the default mode (2xx)'}`, () => {
    let tusk: RunningTusk;
    beforeAll(async () => {
      tusk = await start(production ? { answers: 'production' } : {});
    });
    afterAll(async () => {
      await tusk.close();
    });

    it('the service broker: form create without Content-Type, get, list, delete', async () => {
      const created = check(
        await call(tusk.customerUrl, ADMIN, 'POST', '/api/instances', {
          form: 'name=broker-db&plan=turtle&region=amazon-web-services::us-east-1',
        }),
        200,
        production,
        'create',
      );
      expect(created.body).toMatchObject({
        id: expect.any(Number),
        message: 'Instance created',
        url: expect.stringMatching(/^postgres:\/\//),
        apikey: expect.any(String),
      });
      const got = check(
        await call(tusk.customerUrl, ADMIN, 'GET', `/api/instances/${created.body.id}`),
        200,
        production,
        'get',
      );
      expect(got.body).toMatchObject({
        id: created.body.id,
        name: 'broker-db',
        plan: 'turtle',
        region: 'amazon-web-services::us-east-1',
        tags: [],
        url: created.body.url,
        apikey: created.body.apikey,
      });
      const list = check(await call(tusk.customerUrl, ADMIN, 'GET', '/api/instances'), 200, production, 'list');
      expect(list.body.map((i: { id: number }) => i.id)).toContain(created.body.id);
      const deleted = check(
        await call(tusk.customerUrl, ADMIN, 'DELETE', `/api/instances/${created.body.id}`),
        204,
        production,
        'delete',
      );
      expect(deleted.body).toBeUndefined();
      expect((await call(tusk.customerUrl, ADMIN, 'GET', `/api/instances/${created.body.id}`)).status).toBe(404);
    });

    it('the Terraform provider: JSON create, poll get until ready, update name and plan, delete', async () => {
      const created = check(
        await call(tusk.customerUrl, ADMIN, 'POST', '/api/instances', {
          json: { name: 'tf-db', plan: 'hippo', region: 'amazon-web-services::us-east-1', tags: ['terraform'] },
        }),
        200,
        production,
        'create',
      );
      const ready = await untilReady(tusk, created.body.id, production);
      expect(ready.body).toMatchObject({ name: 'tf-db', plan: 'hippo', tags: ['terraform'], ready: true });
      check(
        await call(tusk.customerUrl, ADMIN, 'PUT', `/api/instances/${created.body.id}`, {
          json: { name: 'tf-db-2', plan: 'elephant' },
        }),
        200,
        production,
        'update',
      );
      expect((await call(tusk.customerUrl, ADMIN, 'GET', `/api/instances/${created.body.id}`)).body).toMatchObject({
        name: 'tf-db-2',
        plan: 'elephant',
      });
      check(
        await call(tusk.customerUrl, ADMIN, 'DELETE', `/api/instances/${created.body.id}`),
        204,
        production,
        'delete',
      );
    });

    describe('the Go API library on the instance interface', () => {
      let key: string;
      beforeAll(async () => {
        const created = await call(tusk.customerUrl, ADMIN, 'POST', '/api/instances', {
          json: { name: 'go-lib', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
        });
        key = created.body.apikey;
        await untilReady(tusk, created.body.id, production);
      });

      it('alarms: create with the whole client model, read one, update, read, delete', async () => {
        const model = {
          type: 'cpu',
          enabled: true,
          value_threshold: 80,
          time_threshold: 600,
          value_calculation: '',
          recipients: [],
          reminder_interval: 0,
          message_type: '',
          queue_regex: '.*',
          vhost_regex: '.*',
        };
        const created = check(
          await call(tusk.instanceUrl, key, 'POST', '/api/alarms', { json: model }),
          201,
          production,
          'create alarm',
        );
        const id = created.body.id;
        expect(
          check(await call(tusk.instanceUrl, key, 'GET', `/api/alarms/${id}`), 200, production, 'read alarm').body,
        ).toEqual({
          id,
          type: 'cpu',
          enabled: true,
          value_threshold: 80,
          time_threshold: 600,
          recipients: [],
        });
        check(
          await call(tusk.instanceUrl, key, 'PUT', `/api/alarms/${id}`, { json: { ...model, value_threshold: 95 } }),
          201,
          production,
          'update alarm',
        );
        expect((await call(tusk.instanceUrl, key, 'GET', `/api/alarms/${id}`)).body.value_threshold).toBe(95);
        check(await call(tusk.instanceUrl, key, 'DELETE', `/api/alarms/${id}`), 204, production, 'delete alarm');
        // A notice alarm carries the model's zero values, which do not apply to it.
        const notice = check(
          await call(tusk.instanceUrl, key, 'POST', '/api/alarms', {
            json: {
              type: 'notice',
              enabled: true,
              value_threshold: 0,
              time_threshold: 0,
              value_calculation: '',
              recipients: [],
            },
          }),
          201,
          production,
          'create notice',
        );
        expect(notice.headers.get('tusk-ignored-fields')).toBe('value_threshold, time_threshold, value_calculation');
        expect((await call(tusk.instanceUrl, key, 'GET', `/api/alarms/${notice.body.id}`)).body).toEqual({
          id: notice.body.id,
          type: 'notice',
          enabled: true,
          recipients: [],
        });
      });

      it('recipients: create without options (read back as {}), read one, update, delete', async () => {
        const created = check(
          await call(tusk.instanceUrl, key, 'POST', '/api/alarms/recipients', {
            json: { type: 'email', value: 'ops@example.com', name: 'ops' },
          }),
          201,
          production,
          'create recipient',
        );
        expect(created.body.options).toEqual({});
        const id = created.body.id;
        expect(
          check(
            await call(tusk.instanceUrl, key, 'GET', `/api/alarms/recipients/${id}`),
            200,
            production,
            'read recipient',
          ).body,
        ).toEqual(created.body);
        check(
          await call(tusk.instanceUrl, key, 'PUT', `/api/alarms/recipients/${id}`, {
            json: { type: 'email', value: 'oncall@example.com', name: 'oncall', options: {} },
          }),
          200,
          production,
          'update recipient',
        );
        expect((await call(tusk.instanceUrl, key, 'GET', `/api/alarms/recipients/${id}`)).body).toMatchObject({
          value: 'oncall@example.com',
          options: {},
        });
        check(
          await call(tusk.instanceUrl, key, 'DELETE', `/api/alarms/recipients/${id}`),
          204,
          production,
          'delete recipient',
        );
      });

      for (const kind of ['logs', 'metrics'] as const) {
        it(`${kind} integrations: create, read one by id, update, read, delete`, async () => {
          const [system, body, changed] =
            kind === 'logs'
              ? ([
                  'logs_h',
                  { token: 'tok-0123456789', host: 'http-intake.logs.vendor-h.example' },
                  { token: 'tok-rotated', host: 'http-intake.logs.eu.vendor-h.example' },
                ] as const)
              : (['metrics_d_v3', { license_key: 'license-0123456789' }, { license_key: 'license-rotated' }] as const);
          const created = check(
            await call(tusk.instanceUrl, key, 'POST', `/api/integrations/${kind}/${system}`, { json: body }),
            201,
            production,
            'create integration',
          );
          const id = created.body.id;
          expect(
            check(
              await call(tusk.instanceUrl, key, 'GET', `/api/integrations/${kind}/${id}`),
              200,
              production,
              'read integration',
            ).body,
          ).toEqual(created.body);
          const updated = check(
            await call(tusk.instanceUrl, key, 'PUT', `/api/integrations/${kind}/${id}`, { json: changed }),
            204,
            production,
            'update integration',
          );
          if (production) expect(updated.body).toBeUndefined();
          expect((await call(tusk.instanceUrl, key, 'GET', `/api/integrations/${kind}/${id}`)).body.config).toEqual(
            changed,
          );
          check(
            await call(tusk.instanceUrl, key, 'DELETE', `/api/integrations/${kind}/${id}`),
            204,
            production,
            'delete integration',
          );
          expect((await call(tusk.instanceUrl, key, 'GET', `/api/integrations/${kind}/${id}`)).status).toBe(404);
        });
      }
    });
  });
}

describe('success codes per request and --vary-success', () => {
  let tusk: RunningTusk;
  beforeAll(async () => {
    tusk = await start({ varySuccess: true });
  });
  afterAll(async () => {
    await tusk.close();
  });

  it('a client that accepts only 200 fails on the second call of an operation that allows 200 and 204', async () => {
    const created = await call(tusk.customerUrl, ADMIN, 'POST', '/api/instances', {
      json: { name: 'vary', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    const onlyOk = async (name: string) => {
      const res = await call(tusk.customerUrl, ADMIN, 'PUT', `/api/instances/${created.body.id}`, { json: { name } });
      if (res.status !== 200) throw new Error(`expected 200, got ${res.status}`);
    };
    await onlyOk('vary-1');
    await expect(onlyOk('vary-2')).rejects.toThrow('expected 200, got 204');
    // Both calls changed the instance: only the code varies.
    expect((await call(tusk.customerUrl, ADMIN, 'GET', `/api/instances/${created.body.id}`)).body.name).toBe('vary-2');
  });

  it('an operation with one documented success code keeps it', async () => {
    for (let i = 0; i < 3; i++) expect((await call(tusk.customerUrl, ADMIN, 'GET', '/api/plans')).status).toBe(200);
  });

  it('the Tusk-Answers header picks the mode of one request; a value that is no mode is a 400 that changes nothing', async () => {
    const created = await call(tusk.customerUrl, ADMIN, 'POST', '/api/instances', {
      json: { name: 'hdr', plan: 'hippo', region: 'amazon-web-services::us-east-1' },
    });
    const key = created.body.apikey;
    const alarm = await call(
      tusk.instanceUrl,
      key,
      'POST',
      '/api/alarms',
      { json: { type: 'notice' } },
      { 'tusk-answers': 'production' },
    );
    expect(alarm.status).toBe(201);
    expect(alarm.body).toMatchObject({ type: 'notice' });
    const before = (await call(tusk.instanceUrl, key, 'GET', '/api/alarms')).body;
    const bad = await call(
      tusk.instanceUrl,
      key,
      'POST',
      '/api/alarms',
      { json: { type: 'notice' } },
      { 'tusk-answers': 'sometimes' },
    );
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ field: 'Tusk-Answers', rule: 'enum' });
    expect((await call(tusk.instanceUrl, key, 'GET', '/api/alarms')).body).toEqual(before);
    const plain = await call(tusk.instanceUrl, key, 'DELETE', `/api/alarms/${alarm.body.id}`, undefined, {
      'tusk-answers': 'default',
    });
    expect(plain.status).toBe(204);
  });
});

describe('fields the contract does not name', () => {
  let lenient: RunningTusk;
  let strict: RunningTusk;
  beforeAll(async () => {
    // One after the other: if the second fails, afterAll still closes the first.
    lenient = await start();
    strict = await start({ strictFields: true });
  });
  afterAll(async () => {
    await Promise.all([lenient?.close(), strict?.close()]);
  });

  const body = {
    name: 'extra',
    plan: 'hippo',
    region: 'amazon-web-services::us-east-1',
    no_default_alarms: true,
    colour: 'blue',
  };

  it('are ignored by default, named in Tusk-Ignored-Fields, neither stored nor echoed (JSON and form)', async () => {
    const json = await call(lenient.customerUrl, ADMIN, 'POST', '/api/instances', { json: body });
    expect(json.status).toBe(200);
    expect(json.headers.get('tusk-ignored-fields')).toBe('no_default_alarms, colour');
    const form = await call(lenient.customerUrl, ADMIN, 'POST', '/api/instances', {
      form: 'name=f&plan=hippo&region=amazon-web-services::us-east-1&colour=blue',
    });
    expect(form.status).toBe(200);
    expect(form.headers.get('tusk-ignored-fields')).toBe('colour');
    const got = (await call(lenient.customerUrl, ADMIN, 'GET', `/api/instances/${json.body.id}`)).body;
    expect(got).not.toHaveProperty('colour');
    expect(got).not.toHaveProperty('no_default_alarms');
    expect((await call(lenient.customerUrl, ADMIN, 'GET', '/api/plans')).headers.get('tusk-ignored-fields')).toBeNull();
  });

  it('are a 400 naming the field under --strict-fields, and with the Tusk-Strict-Fields header, creating nothing', async () => {
    const before = (await call(strict.customerUrl, ADMIN, 'GET', '/api/instances')).body;
    const refused = await call(strict.customerUrl, ADMIN, 'POST', '/api/instances', { json: body });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'no_default_alarms: is not an accepted field here',
      field: 'no_default_alarms',
      rule: 'additionalProperties',
    });
    expect((await call(strict.customerUrl, ADMIN, 'GET', '/api/instances')).body).toEqual(before);
    const perRequest = await call(
      lenient.customerUrl,
      ADMIN,
      'POST',
      '/api/instances',
      { json: body },
      { 'tusk-strict-fields': 'true' },
    );
    expect(perRequest.status).toBe(400);
    expect(perRequest.body.field).toBe('no_default_alarms');
    // The header can also lift the flag for one request.
    expect(
      (
        await call(
          strict.customerUrl,
          ADMIN,
          'POST',
          '/api/instances',
          { json: body },
          { 'tusk-strict-fields': 'false' },
        )
      ).status,
    ).toBe(200);
  });

  it('the key in the user field of the customer interface is a 401 that says where the key goes', async () => {
    const res = await fetch(`${lenient.customerUrl}/api/plans`, {
      headers: { authorization: `Basic ${Buffer.from(`${ADMIN}:`).toString('base64')}` },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
    expect(((await res.json()) as { error: string }).error).toMatch(/the API key goes in the password field/);
  });
});
