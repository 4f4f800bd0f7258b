// The Prism-compatible Prefer header on both interfaces, used as a client developer would: ask for a
// documented status or a named example and get the document's answer, without any change of state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrefer } from '../../src/http/prefer.js';
import { start, type Api } from '../control/client.js';

let api: Api;
let key: string;
beforeAll(async () => {
  api = await start();
  ({ apikey: key } = await api.createInstance());
});
afterAll(() => api.tusk.close());

describe('Prefer: code=NNN', () => {
  it('answers the documented 404 of getAlarm with its example', async () => {
    const res = await api.instance(key, 'GET', '/api/alarms/1', undefined, { prefer: 'code=404' });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('preference-applied')).toBe('code=404');
    expect(await res.json()).toEqual({ error: 'Not found: no resource with id 4242' });
  });

  it("answers a status listAlarms does not declare (404 there, 418) with Prism's 404", async () => {
    for (const code of ['404', '418']) {
      const res = await api.instance(key, 'GET', '/api/alarms', undefined, { prefer: `code=${code}` });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: `The server cannot find the requested content: Requested status code ${code} is not defined in the document.`,
        type: 'https://stoplight.io/prism/errors#NOT_FOUND',
        title: 'The server cannot find the requested content',
        status: 404,
        detail: `Requested status code ${code} is not defined in the document.`,
      });
    }
  });

  it('answers the documented 200 with its example, not with the state', async () => {
    const res = await api.instance(key, 'GET', '/api/alarms', undefined, { prefer: 'code=200' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; type: string }[];
    expect(body.map((a) => a.type)).toEqual(['cpu', 'memory', 'disk', 'notice']);
  });

  it('answers 429 with its declared Retry-After header, and 401 with WWW-Authenticate', async () => {
    const limited = await api.instance(key, 'GET', '/api/alarms', undefined, { prefer: 'code=429' });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await limited.json()) as { error: string }).error).toMatch(/Too many requests/);
    const unauthorised = await api.instance(key, 'GET', '/api/alarms', undefined, { prefer: 'code=401' });
    expect(unauthorised.status).toBe(401);
    expect(unauthorised.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('answers 204 without a body', async () => {
    const res = await api.instance(key, 'DELETE', '/api/alarms/1', undefined, { prefer: 'code=204' });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
  });

  it('does not change state: a preferred delete deletes nothing, a preferred create creates nothing', async () => {
    await api.instance(key, 'DELETE', '/api/alarms/1', undefined, { prefer: 'code=204' });
    await api.instance(
      key,
      'POST',
      '/api/alarms',
      { type: 'cpu', value_threshold: 80, time_threshold: 300 },
      { prefer: 'code=200' },
    );
    const alarms = (await (await api.instance(key, 'GET', '/api/alarms')).json()) as { id: number }[];
    expect(alarms.map((a) => a.id)).toEqual([1, 2, 3, 4]);
  });

  it('works on the customer interface too', async () => {
    const res = await api.customer('GET', '/api/instances/999999', undefined, { prefer: 'code=404' });
    expect(res.status).toBe(404);
    const plans = await api.customer('GET', '/api/plans', undefined, { prefer: 'code=500' });
    expect(plans.status).toBe(500);
  });

  it("a code that is not three digits is Prism's 422", async () => {
    const res = await api.instance(key, 'GET', '/api/alarms', undefined, { prefer: 'code=5xx' });
    expect(res.status).toBe(422);
    expect(await res.json()).toMatchObject({
      type: 'https://stoplight.io/prism/errors#UNPROCESSABLE_ENTITY',
      status: 422,
    });
  });
});

describe('Prefer: example=NAME', () => {
  it('answers a named example of the examples map', async () => {
    const res = await api.instance(key, 'GET', '/api/alarms/1', undefined, { prefer: 'example=notice' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 4, type: 'notice', enabled: false, recipients: [] });
    const cpu = await api.instance(key, 'GET', '/api/alarms/1', undefined, { prefer: 'code=200, example=cpu' });
    expect(((await cpu.json()) as { type: string }).type).toBe('cpu');
  });

  it('names a single `example` "default", and an unknown name is a 404', async () => {
    const res = await api.instance(key, 'GET', '/api/alarms', undefined, { prefer: 'example=default' });
    expect(res.status).toBe(200);
    const missing = await api.instance(key, 'GET', '/api/alarms/1', undefined, { prefer: 'example=nope' });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { detail: string }).detail).toBe(
      'Response for contentType: application/json and exampleKey: nope does not exist.',
    );
  });
});

describe('where Prefer sits in the pipeline', () => {
  it('after authentication: without a key it is still a 401', async () => {
    const res = await fetch(`${api.tusk.instanceUrl}/api/alarms`, { headers: { prefer: 'code=200' } });
    expect(res.status).toBe(401);
  });

  it('after validation: an invalid request is still a 400', async () => {
    const res = await api.instance(key, 'GET', '/api/alarms/abc', undefined, { prefer: 'code=200' });
    expect(res.status).toBe(400);
  });

  it('after authorisation: a role that may not call the operation is still a 403', async () => {
    const account = [...api.tusk.registry.allHomes()].map((h) => h.records)[0]!;
    const monitor = account.fixture.keys.find((k) => k.role === 'monitor')!;
    const res = await fetch(`${api.tusk.customerUrl}/api/instances`, {
      method: 'POST',
      headers: {
        authorization: 'Basic ' + Buffer.from(`:${monitor.key}`).toString('base64'),
        'content-type': 'application/json',
        prefer: 'code=200',
      },
      body: JSON.stringify({ name: 'x', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    expect(res.status).toBe(403);
  });

  it('other preferences are ignored', async () => {
    const res = await api.instance(key, 'GET', '/api/alarms', undefined, { prefer: 'return=minimal, dynamic=true' });
    expect(res.status).toBe(200);
    expect(res.headers.get('preference-applied')).toBeNull();
  });
});

describe('parsePrefer', () => {
  it("reads name=value pairs like Prism's parser: first wins, quotes and parameters dropped", () => {
    expect([...parsePrefer('code=404, example="a b"; q=1, code=500')]).toEqual([
      ['code', '404'],
      ['example', 'a b'],
    ]);
    expect(parsePrefer(undefined).size).toBe(0);
    expect(parsePrefer('respond-async').get('respond-async')).toBe('');
  });
});
