// Fault injection, used as a client developer testing retries would: added latency, error statuses
// at a rate (the same sequence for the same seed), connection resets seen as socket errors.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTusk } from '../../src/server.js';
import { ConnectionReset } from '../../src/http/fault-step.js';
import { mulberry32, parseFaultFlag, parseLatency } from '../../src/store/fault-rules.js';
import { ControlDocument } from '../../src/control/document.js';
import { SERVE_HELP } from '../../src/cli.js';
import { basic, start, type Api } from './client.js';

const control = new ControlDocument();

let api: Api;
let key: string;
beforeAll(async () => {
  api = await start({ seed: 7 });
  ({ apikey: key } = await api.createInstance());
});
afterAll(() => api.tusk.close());
afterEach(async () => {
  expect((await api.control('DELETE', '/faults')).status).toBe(204);
});

const setFaults = async (body: unknown) => {
  const res = await api.control('PUT', '/faults', body);
  expect(res.status, await res.clone().text()).toBe(200);
  return res.json();
};
const statuses = async (n: number, path = '/api/alarms') => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const res = await api.instance(key, 'GET', path);
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
};
const timed = async (path: string) => {
  const t0 = performance.now();
  const res = await api.instance(key, 'GET', path);
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0 };
};

describe('latency', () => {
  it('a fixed latency delays only the operation it names', async () => {
    await setFaults({ rules: [{ operation: 'listAlarms', latency: '200ms' }] });
    const slow = await timed('/api/alarms');
    expect(slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(195);
    const fast = await timed('/api/alarms/recipients');
    expect(fast.ms).toBeLessThan(180);
  });

  it('a range draws within it', async () => {
    await setFaults(['instance/listAlarms:latency=50-100ms']);
    for (let i = 0; i < 3; i++) {
      const { ms } = await timed('/api/alarms');
      expect(ms).toBeGreaterThanOrEqual(48);
    }
  });
});

describe('error statuses', () => {
  it('answer the declared status with an Error body and its headers (429 with Retry-After)', async () => {
    await setFaults({ rules: [{ operation: 'listAlarms', error: { status: 429 } }] });
    const res = await api.instance(key, 'GET', '/api/alarms');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res.headers.get('tusk-fault')).toBe('error');
    expect(((await res.json()) as { error: string }).error).toMatch(/^Injected fault: HTTP 429 for listAlarms/);
  });

  it('come at the rate, in the same sequence whenever the rules are set again (seeded)', async () => {
    const rules = { rules: [{ api: 'instance', operation: 'listAlarms', error: { status: 500, rate: 0.5 } }] };
    await setFaults(rules);
    const first = await statuses(24);
    await setFaults(rules);
    const second = await statuses(24);
    expect(second).toEqual(first);
    expect(first.filter((s) => s === 500).length).toBeGreaterThan(3);
    expect(first.filter((s) => s === 200).length).toBeGreaterThan(3);
    // Another seed, another sequence.
    await setFaults({ ...rules, seed: 8 });
    expect(await statuses(24)).not.toEqual(first);
  });

  it('are the same on another server started with the same --seed and --fault', async () => {
    await setFaults(['listAlarms:error=500@0.5']);
    const here = await statuses(16);
    const other = await start({ seed: 7, faults: ['listAlarms:error=500@0.5'] });
    try {
      const { apikey } = await other.createInstance();
      const there: number[] = [];
      for (let i = 0; i < 16; i++) {
        const res = await other.instance(apikey, 'GET', '/api/alarms');
        await res.arrayBuffer();
        there.push(res.status);
      }
      expect(there).toEqual(here);
    } finally {
      await other.tusk.close();
    }
  });

  it('apply before authentication, and change nothing', async () => {
    await setFaults(['*:error=500']);
    const anonymous = await fetch(`${api.tusk.instanceUrl}/api/alarms`);
    expect(anonymous.status).toBe(500);
    const create = await api.instance(key, 'POST', '/api/alarms', {
      type: 'cpu',
      value_threshold: 80,
      time_threshold: 60,
    });
    expect(create.status).toBe(500);
    await api.control('DELETE', '/faults');
    const alarms = (await (await api.instance(key, 'GET', '/api/alarms')).json()) as unknown[];
    expect(alarms).toHaveLength(4);
  });

  it('a status the operations do not declare is refused', async () => {
    const res = await api.control('PUT', '/faults', ['*:error=503']);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/status 503 is not declared/);
    const unknown = await api.control('PUT', '/faults', [{ operation: 'listUnicorns', latency: '1ms' }]);
    expect(unknown.status).toBe(400);
    expect((await (await api.control('GET', '/faults')).json()) as unknown).toEqual({ seed: 7, rules: [] });
  });
});

describe('connection resets', () => {
  it('the client sees a socket error', async () => {
    await setFaults({ rules: [{ operation: 'listAlarms', reset: { rate: 1 } }] });
    const err = await fetch(`${api.tusk.instanceUrl}/api/alarms`, { headers: { authorization: basic(key) } }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(TypeError);
    expect(
      String(
        (err as Error & { cause?: { code?: string } }).cause?.code ?? (err as Error & { cause?: Error }).cause?.message,
      ),
    ).toMatch(/SOCKET|ECONNRESET|other side closed/i);
    // The server goes on answering.
    expect((await api.instance(key, 'GET', '/api/alarms/recipients')).status).toBe(200);
  });

  it('in-process (app.fetch) the fetch rejects', async () => {
    const tusk = await createTusk({ log: 'off', faults: ['listPlans:reset'] });
    await expect(
      tusk.customer.fetch(
        new Request('http://tusk/api/plans', { headers: { authorization: basic(tusk.registry.adminKey) } }),
      ),
    ).rejects.toBeInstanceOf(ConnectionReset);
  });
});

describe('the control API', () => {
  it('shows the rules in force and clears them', async () => {
    const set = await setFaults({
      rules: ['listAlarms:latency=1ms,error=500@0.25', { api: 'customer', reset: { rate: 0.1 } }],
    });
    expect(set).toEqual({
      seed: 7,
      rules: [
        { operation: 'listAlarms', latency: '1ms', error: { status: 500, rate: 0.25 } },
        { api: 'customer', reset: { rate: 0.1 } },
      ],
    });
    expect(await (await api.control('GET', '/faults')).json()).toEqual(set);
    const validate = control.schema('FaultSet');
    expect(validate(set), JSON.stringify(validate.errors)).toBe(true);
    for (const rule of ['listAlarms:latency=100-300ms', '*:error=500@0.1'])
      expect(control.schema('FaultRule')(parseFaultFlag(rule))).toBe(true);
    await api.control('DELETE', '/faults');
    expect(await (await api.control('GET', '/faults')).json()).toEqual({ seed: 7, rules: [] });
  });
});

describe('rule syntax', () => {
  it('tusk serve --help lists --fault with its default', () => {
    expect(SERVE_HELP).toMatch(
      /--fault RULE\s+inject a fault, repeatable[^\n]*\n(?: {20,}.*\n)*? +\(default none; env TUSK_FAULT\)$/m,
    );
  });

  it('a bad rule at start-up is an error naming it', async () => {
    await expect(createTusk({ log: 'off', faults: ['*:error=503'] })).rejects.toThrow(
      /fault rule 1: status 503 is not declared/,
    );
  });

  it('reads the flag form', () => {
    expect(parseFaultFlag('listAlarms:latency=200ms')).toEqual({ operation: 'listAlarms', latency: '200ms' });
    expect(parseFaultFlag('*:error=500@0.1')).toEqual({ error: { status: 500, rate: 0.1 } });
    expect(parseFaultFlag('instance/*:reset@5%')).toEqual({ api: 'instance', reset: { rate: 0.05 } });
    expect(parseFaultFlag('getAlarm:reset,latency=1-2s')).toEqual({
      operation: 'getAlarm',
      reset: { rate: 1 },
      latency: '1-2s',
    });
    for (const bad of ['listAlarms', 'x/listAlarms:reset', '*:error=abc', '*:error=500@2', '*:boom', '*:'])
      expect(() => parseFaultFlag(bad)).toThrow();
  });

  it('reads latencies', () => {
    expect(parseLatency('200ms')).toEqual([200, 200]);
    expect(parseLatency('100-300ms')).toEqual([100, 300]);
    expect(parseLatency('1.5s')).toEqual([1500, 1500]);
    expect(parseLatency('1-2s')).toEqual([1000, 2000]);
    for (const bad of ['fast', '300-100ms', '200', '10m']) expect(() => parseLatency(bad)).toThrow();
  });

  it('mulberry32 is a fixed sequence per seed', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = [a(), a(), a()];
    expect([b(), b(), b()]).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
  });
});
