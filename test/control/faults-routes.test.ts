// GET/PUT/DELETE /__tusk/faults in-process: the rules and seed in force, and the 400s of a bad PUT
// (field and rule a client reads), which leave the rules in force as they were. The first tests
// build their own Tusk, so that the routes themselves are built inside a test.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';

const faults = async (tusk: Tusk, method: string, body?: string) => {
  const res = await tusk.customer.fetch(
    new Request('http://tusk/__tusk/faults', {
      method,
      ...(body !== undefined ? { body, headers: { 'content-type': 'application/json' } } : {}),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : undefined) as unknown };
};
const put = (tusk: Tusk, body: unknown) => faults(tusk, 'PUT', typeof body === 'string' ? body : JSON.stringify(body));
const IN_FORCE = { seed: 7, rules: [{ operation: 'listAlarms', latency: '1ms' }] };

/** A Tusk started with --seed 7 and one rule in force. */
const tuskWithRule = () => createTusk({ log: 'off', seed: 7, faults: ['listAlarms:latency=1ms'] });

describe('fault control: GET, PUT and DELETE', () => {
  it('GET shows the --seed and the --fault rules in force', async () => {
    const tusk = await tuskWithRule();
    expect(await faults(tusk, 'GET')).toStrictEqual({ status: 200, body: IN_FORCE });
  });

  it('PUT replaces every rule and answers the rules and seed now in force; a seed of 0 is a seed', async () => {
    const tusk = await tuskWithRule();
    const set = { seed: 0, rules: [{ api: 'instance', error: { status: 429, rate: 0.5 } }] };
    expect(await put(tusk, { rules: ['instance/*:error=429@0.5'], seed: 0 })).toStrictEqual({ status: 200, body: set });
    expect(await faults(tusk, 'GET')).toStrictEqual({ status: 200, body: set });
    // Without a seed, the server's --seed again.
    expect(await put(tusk, [])).toStrictEqual({ status: 200, body: { seed: 7, rules: [] } });
  });

  it('PUT takes a latency in minutes and a range with spaces, as the flag form does', async () => {
    const tusk = await tuskWithRule();
    const rules = [
      { operation: 'listAlarms', latency: '1m' },
      { operation: 'getAlarm', latency: '30s - 1.5m' },
    ];
    expect(await put(tusk, { rules, seed: 1 })).toStrictEqual({ status: 200, body: { seed: 1, rules } });
  });

  it("DELETE removes every rule (204, no body) and restores the server's seed", async () => {
    const tusk = await tuskWithRule();
    await put(tusk, { rules: ['*:reset@0.1'], seed: 3 });
    expect(await faults(tusk, 'DELETE')).toStrictEqual({ status: 204, body: undefined });
    expect(await faults(tusk, 'GET')).toStrictEqual({ status: 200, body: { seed: 7, rules: [] } });
  });
});

describe('fault control: a PUT that is refused changes nothing', () => {
  let tusk: Tusk;
  beforeAll(async () => {
    tusk = await tuskWithRule();
  });
  const refused = async (body: unknown, error: { error: unknown; field: string; rule: string }) => {
    expect(await put(tusk, body), JSON.stringify(body)).toStrictEqual({ status: 400, body: error });
    expect(await faults(tusk, 'GET')).toStrictEqual({ status: 200, body: IN_FORCE });
  };

  it('malformed JSON is a 400 body/json', async () => {
    await refused('{"rules": [', {
      error: expect.stringMatching(/^body: malformed JSON \(.+\)$/),
      field: 'body',
      rule: 'json',
    });
  });

  it('a field other than rules and seed is a 400 naming it (additionalProperties)', async () => {
    await refused(
      { rules: [], seeds: 3 },
      { error: 'seeds: is not an accepted field here', field: 'seeds', rule: 'additionalProperties' },
    );
  });

  it('rules that are missing (400 rules/required) or not an array (400 rules/type) are refused; so is a body neither object nor array', async () => {
    await refused({ seed: 3 }, { error: 'rules: is required', field: 'rules', rule: 'required' });
    await refused({ rules: 'listAlarms:reset' }, { error: 'rules: must be array', field: 'rules', rule: 'type' });
    await refused(null, { error: 'body: must be object', field: 'body', rule: 'type' });
  });

  it('a seed that is not a non-negative integer is a 400 naming seed and the rule', async () => {
    await refused({ rules: [], seed: -1 }, { error: 'seed: must be >= 0', field: 'seed', rule: 'minimum' });
    for (const seed of [1.5, '7', null]) {
      await refused({ rules: [], seed }, { error: 'seed: must be integer', field: 'seed', rule: 'type' });
    }
  });

  it('a bad rule is a 400 rules/fault naming the rule and the problem', async () => {
    await refused(['listAlarms:latency=1ms', '*:error=503'], {
      error: expect.stringMatching(/^rules: fault rule 2: status 503 is not declared/),
      field: 'rules',
      rule: 'fault',
    });
  });
});
