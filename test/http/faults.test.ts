// Fault injection, unit by unit (src/domain/fault-rules.ts, src/http/fault-step.ts): the flag form and latencies, the checks of a
// rule and their messages, which rules a request meets and what they decide (seeded: the same
// decisions for the same seed), the answer of an injected error, and the pipeline step. The
// documents are small ones made here, so that which statuses are declared where is known exactly.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Context } from 'hono';
import type { OpenApiDocument } from '../../src/openapi/documents.js';
import { readOperations, type OperationInfo } from '../../src/openapi/operations.js';
import {
  Faults,
  MAX_LATENCY_MS,
  mulberry32,
  parseFaultFlag,
  parseLatency,
  type FaultDecision,
  type FaultRule,
} from '../../src/domain/fault-rules.js';
import { ConnectionReset, faultResponse, faultStep } from '../../src/http/fault-step.js';

/** Five customer operations (400, 401, 429, 500) and two instance ones (401, 404, 429, 500; listAlarms also 599). */
function documents(): Record<'customer' | 'instance', OpenApiDocument> {
  const components = {
    responses: {
      TooMany: { description: 'slow down', headers: { 'Retry-After': { $ref: '#/components/headers/RetryAfter' } } },
    },
    headers: { RetryAfter: { schema: { type: 'integer', minimum: 1 }, example: 30 } },
  };
  const common = {
    '401': { description: 'who' },
    '429': { $ref: '#/components/responses/TooMany' },
    '500': { description: 'oops' },
  };
  const customer: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 'customer', version: '1' },
    paths: Object.fromEntries(
      ['listPlans', 'getPlan', 'createInstance', 'deleteInstance', 'listRegions'].map((id) => [
        `/${id}`,
        { get: { operationId: id, responses: { '400': { description: 'bad' }, ...common } } },
      ]),
    ),
    components,
  };
  const instance: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: 'instance', version: '1' },
    paths: {
      '/api/alarms': {
        get: {
          operationId: 'listAlarms',
          responses: { '404': { description: 'none' }, '599': { description: 'odd' }, ...common },
        },
      },
      '/api/alarms/{id}': {
        get: {
          operationId: 'getAlarm',
          responses: {
            '404': { description: 'none' },
            '4XX': { description: 'any', headers: { 'X-Reason': { schema: { type: 'string' }, example: 'teapot' } } },
            ...common,
          },
        },
      },
    },
    components,
  };
  return { customer, instance };
}

function setup(rules: (FaultRule | string)[] = [], seed = 7) {
  const docs = documents();
  const ops = [...readOperations('customer', docs.customer), ...readOperations('instance', docs.instance)];
  const op = (id: string) => ops.find((o) => o.operationId === id)!;
  const respond = (id: string, status: number, rule: number) => faultResponse(docs[op(id).api], op(id), status, rule);
  return { faults: new Faults(ops, seed, rules), op, docs, ops, respond };
}

/** The message of what `fn` throws. */
function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  return 'nothing thrown';
}

const DECLARED = '(every operation declares 401, 405, 429 and 500)';

describe('mulberry32', () => {
  it('is the mulberry32 sequence of the seed', () => {
    const r = mulberry32(42);
    expect([r(), r(), r()]).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
    const z = mulberry32(0);
    expect([z(), z()]).toEqual([0.26642920868471265, 0.0003297457005828619]);
  });
});

describe('parseLatency', () => {
  it('reads fixed latencies and ranges, in ms or s, with spaces around', () => {
    expect(parseLatency('200ms')).toEqual([200, 200]);
    expect(parseLatency(' 200ms ')).toEqual([200, 200]);
    expect(parseLatency('1.25s')).toEqual([1250, 1250]);
    expect(parseLatency('1s-2s')).toEqual([1000, 2000]);
    expect(parseLatency('1s - 2s')).toEqual([1000, 2000]);
    expect(parseLatency('1-2.25s')).toEqual([1000, 2250]);
    expect(parseLatency('1-2.5s')).toEqual([1000, 2500]);
    expect(parseLatency('500ms-1s')).toEqual([500, 1000]);
    expect(parseLatency('0.4ms')).toEqual([0, 0]);
  });

  it('reads minutes too, as the clock does (within MAX_LATENCY_MS)', () => {
    expect(parseLatency('1m')).toEqual([60_000, 60_000]);
    expect(parseLatency('1.5m')).toEqual([90_000, 90_000]);
    expect(parseLatency('30s-1m')).toEqual([30_000, 60_000]);
    expect(parseLatency('1-2m')).toEqual([60_000, 120_000]);
    expect(thrown(() => parseLatency('10m'))).toBe('latency 10m is more than 120000 ms');
  });

  it('takes at most MAX_LATENCY_MS', () => {
    expect(MAX_LATENCY_MS).toBe(120_000);
    expect(parseLatency('120s')).toEqual([120_000, 120_000]);
    expect(thrown(() => parseLatency('120001ms'))).toBe('latency 120001ms is more than 120000 ms');
    expect(thrown(() => parseLatency('1-121s'))).toBe('latency 1-121s is more than 120000 ms');
  });

  it('refuses anything else, saying why', () => {
    for (const bad of ['fast', '200', '200msx', 'x200ms', '200 ms x', '-1ms', '1-2-3ms', '1s-', 'ms']) {
      expect(
        thrown(() => parseLatency(bad)),
        bad,
      ).toBe(`latency must look like 200ms, 1.5s, 1m or 100-300ms, got "${bad}"`);
    }
    expect(thrown(() => parseLatency('300-100ms'))).toBe('latency range 300-100ms goes down');
  });
});

describe('parseFaultFlag', () => {
  it('reads the target: api, operation or *', () => {
    expect(parseFaultFlag('listAlarms:latency=200ms')).toStrictEqual({ operation: 'listAlarms', latency: '200ms' });
    expect(parseFaultFlag(' listAlarms :reset')).toStrictEqual({ operation: 'listAlarms', reset: { rate: 1 } });
    expect(parseFaultFlag(':reset')).toStrictEqual({ reset: { rate: 1 } });
    expect(parseFaultFlag('*:reset')).toStrictEqual({ reset: { rate: 1 } });
    expect(parseFaultFlag('customer/listPlans:reset')).toStrictEqual({
      api: 'customer',
      operation: 'listPlans',
      reset: { rate: 1 },
    });
    expect(parseFaultFlag('instance/*:reset@5%')).toStrictEqual({ api: 'instance', reset: { rate: 0.05 } });
  });

  it('reads the effects, spaces and empty ones aside', () => {
    expect(parseFaultFlag('*: reset , latency=1ms')).toStrictEqual({ reset: { rate: 1 }, latency: '1ms' });
    expect(parseFaultFlag('*:reset,,latency=1-2s,')).toStrictEqual({ reset: { rate: 1 }, latency: '1-2s' });
    expect(parseFaultFlag('*:error=429@0.2')).toStrictEqual({ error: { status: 429, rate: 0.2 } });
    expect(parseFaultFlag('*:error=500')).toStrictEqual({ error: { status: 500, rate: 1 } });
  });

  it('reads rates from 0 to 1, or 0% to 100%', () => {
    const rate = (r: string) => parseFaultFlag(`*:reset@${r}`).reset!.rate;
    expect(rate('0')).toBe(0);
    expect(rate('1')).toBe(1);
    expect(rate('0.25')).toBe(0.25);
    expect(rate('50%')).toBe(0.5);
    expect(rate('10%')).toBe(0.1);
    expect(rate('100%')).toBe(1);
    expect(rate('0%')).toBe(0);
    expect(parseFaultFlag('*:error=500@12.5%').error).toStrictEqual({ status: 500, rate: 0.125 });
  });

  it('refuses a rate that is not a plain number from 0 to 1 (or a percentage), naming the effect', () => {
    for (const bad of ['2', '101%', '.5', '1e-1', '0x1', ' 0.5', '-0', 'half', '']) {
      expect(
        thrown(() => parseFaultFlag(`*:error=500@${bad}`)),
        bad,
      ).toBe(`error rate must be 0 to 1 (or 0% to 100%), got "${bad}"`);
      expect(
        thrown(() => parseFaultFlag(`*:reset@${bad}`)),
        bad,
      ).toBe(`reset rate must be 0 to 1 (or 0% to 100%), got "${bad}"`);
    }
  });

  it('refuses a rule that is not one, saying what is wrong', () => {
    const cases: [string, string][] = [
      ['listAlarms', 'a fault rule looks like "listAlarms:latency=200ms" or "*:error=500@0.1", got "listAlarms"'],
      ['x/listAlarms:reset', 'fault rule "x/listAlarms:reset": the interface must be customer or instance, got "x"'],
      ['/listAlarms:reset', 'fault rule "/listAlarms:reset": the interface must be customer or instance, got ""'],
      ['*:', 'fault rule "*:" names no effect (latency=, error=, reset)'],
      ['*: , ', 'fault rule "*: , " names no effect (latency=, error=, reset)'],
      ['*:error=5000', 'fault rule "*:error=5000": error needs a status like error=500 or error=429@0.2'],
      ['*:error=x500', 'fault rule "*:error=x500": error needs a status like error=500 or error=429@0.2'],
      ['*:error=@0.5', 'fault rule "*:error=@0.5": error needs a status like error=500 or error=429@0.2'],
      ['*:resetx', 'fault rule "*:resetx": unknown effect "resetx"'],
      ['*:reset0.5', 'fault rule "*:reset0.5": unknown effect "reset0.5"'],
    ];
    for (const [text, message] of cases)
      expect(
        thrown(() => parseFaultFlag(text)),
        text,
      ).toBe(message);
    const known = '(latency=200ms, latency=100-300ms, error=500, error=500@0.1, reset, reset@0.1)';
    for (const effect of ['boom', 'error', 'latency', 'latency=', 'foo=bar', 'reset=1', 'reset@=1']) {
      expect(
        thrown(() => parseFaultFlag(`*:${effect}`)),
        effect,
      ).toBe(`fault rule "*:${effect}": unknown effect "${effect}" ${known}`);
    }
  });
});

describe('ConnectionReset', () => {
  it('is an Error named ConnectionReset', () => {
    const err = new ConnectionReset();
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ConnectionReset');
    expect(err.message).toBe('tusk: connection reset by an injected fault');
  });
});

describe('Faults: setting, listing and clearing rules', () => {
  it('starts with no rule unless given some', () => {
    const { ops } = setup();
    const faults = new Faults(ops, 7);
    expect(faults.list()).toStrictEqual([]);
    expect(faults.active).toBe(false);
    expect(faults.currentSeed).toBe(7);
    expect(faults.decide('instance', 'listAlarms')).toBeUndefined();
  });

  it('takes objects and flag strings, lists them in the object form, and clears them', () => {
    const { faults } = setup(['instance/listAlarms:latency=1ms,error=500@0.25']);
    expect(faults.active).toBe(true);
    expect(faults.list()).toStrictEqual([
      { api: 'instance', operation: 'listAlarms', latency: '1ms', error: { status: 500, rate: 0.25 } },
    ]);
    const set = faults.set(
      [
        { operation: '*', reset: {} },
        { api: 'customer', error: { status: 429 } },
      ],
      3,
    );
    expect(set).toStrictEqual([{ reset: { rate: 1 } }, { api: 'customer', error: { status: 429, rate: 1 } }]);
    expect(faults.list()).toStrictEqual(set);
    expect(faults.currentSeed).toBe(3);
    // The list is a copy.
    faults.list()[0]!.reset!.rate = 0.5;
    expect(faults.list()[0]).toStrictEqual({ reset: { rate: 1 } });
    faults.clear();
    expect(faults.list()).toStrictEqual([]);
    expect(faults.active).toBe(false);
    expect(faults.currentSeed).toBe(7);
    faults.set(['*:reset']);
    expect(faults.active).toBe(true);
    faults.set([]);
    expect(faults.active).toBe(false);
  });

  it('a refused set changes nothing', () => {
    const { faults } = setup(['listAlarms:latency=1ms'], 9);
    expect(thrown(() => faults.set(['*:reset', { reset: { rate: 2 } }], 4))).toBe(
      'fault rule 2: reset.rate must be a number from 0 to 1',
    );
    expect(faults.list()).toStrictEqual([{ operation: 'listAlarms', latency: '1ms' }]);
    expect(faults.currentSeed).toBe(9);
  });

  it('refuses rules that are not an array', () => {
    const { faults } = setup();
    for (const bad of ['*:reset', { reset: {} }, undefined]) {
      expect(thrown(() => faults.set(bad as never))).toBe('rules must be an array of fault rules');
    }
  });

  it('refuses a rule that is neither an object nor a string', () => {
    const { faults } = setup();
    for (const bad of [42, null, ['*:reset'], true]) {
      expect(
        thrown(() => faults.set([bad as never])),
        JSON.stringify(bad),
      ).toBe('fault rule 1 must be an object or a string like "listAlarms:latency=200ms"');
    }
    expect(thrown(() => faults.set(['*:reset', 7 as never]))).toBe(
      'fault rule 2 must be an object or a string like "listAlarms:latency=200ms"',
    );
  });

  it('refuses unknown fields and a rule without an effect', () => {
    const { faults } = setup();
    expect(thrown(() => faults.set([{ reset: {}, foo: 1, bar: 2 } as FaultRule]))).toBe(
      'fault rule 1: unknown field foo (fields: operation, api, latency, error, reset)',
    );
    expect(thrown(() => faults.set([{ operation: 'listAlarms' }]))).toBe(
      'fault rule 1 has no effect: give latency, error or reset',
    );
    expect(thrown(() => faults.set([{}]))).toBe('fault rule 1 has no effect: give latency, error or reset');
  });

  it('checks api and operation', () => {
    const { faults } = setup();
    expect(thrown(() => faults.set([{ api: 'admin' as never, latency: '1ms' }]))).toBe(
      'fault rule 1: api must be customer or instance',
    );
    expect(thrown(() => faults.set([{ operation: 42 as never, latency: '1ms' }]))).toBe(
      'fault rule 1: operation must be an operationId',
    );
    expect(thrown(() => faults.set([{ operation: 'listUnicorns', latency: '1ms' }]))).toBe(
      'fault rule 1: no operation listUnicorns in the customer or instance document',
    );
    expect(thrown(() => faults.set([{ api: 'customer', operation: 'listAlarms', latency: '1ms' }]))).toBe(
      'fault rule 1: no operation listAlarms in the customer document',
    );
    expect(
      faults.set([
        { api: 'instance', operation: 'listAlarms', latency: '1ms' },
        { operation: 'listPlans', latency: '1ms' },
      ]),
    ).toStrictEqual([
      { api: 'instance', operation: 'listAlarms', latency: '1ms' },
      { operation: 'listPlans', latency: '1ms' },
    ]);
    expect(faults.set([{ api: 'customer', latency: '1ms' }])).toStrictEqual([{ api: 'customer', latency: '1ms' }]);
  });

  it('checks latency', () => {
    const { faults } = setup();
    expect(thrown(() => faults.set([{ latency: 200 as never }]))).toBe(
      'fault rule 1: latency must be a string like 200ms or 100-300ms',
    );
    expect(thrown(() => faults.set([{ latency: '9 days' }]))).toBe(
      'latency must look like 200ms, 1.5s, 1m or 100-300ms, got "9 days"',
    );
  });

  it('checks the error status: an integer from 400 to 599', () => {
    const { faults } = setup();
    for (const status of ['500', 450.5, 399, 600, 200, null, undefined, Number.NaN]) {
      expect(
        thrown(() => faults.set([{ error: { status } as never }])),
        String(status),
      ).toBe('fault rule 1: error.status must be a 4xx or 5xx status');
    }
    expect(thrown(() => faults.set([{ error: null as never }]))).toBe(
      'fault rule 1: error.status must be a 4xx or 5xx status',
    );
    expect(faults.set([{ api: 'customer', error: { status: 400 } }])).toStrictEqual([
      { api: 'customer', error: { status: 400, rate: 1 } },
    ]);
    expect(faults.set([{ operation: 'listAlarms', error: { status: 599 } }])).toStrictEqual([
      { operation: 'listAlarms', error: { status: 599, rate: 1 } },
    ]);
  });

  it('checks the error and reset rates: numbers from 0 to 1', () => {
    const { faults } = setup();
    for (const rate of ['0.5', -0.1, 1.1, Number.NaN, null]) {
      expect(
        thrown(() => faults.set([{ error: { status: 500, rate } as never }])),
        String(rate),
      ).toBe('fault rule 1: error.rate must be a number from 0 to 1');
      expect(
        thrown(() => faults.set([{ reset: { rate } as never }])),
        String(rate),
      ).toBe('fault rule 1: reset.rate must be a number from 0 to 1');
    }
    expect(faults.set([{ error: { status: 500, rate: 0 } }, { reset: { rate: 0 } }])).toStrictEqual([
      { error: { status: 500, rate: 0 } },
      { reset: { rate: 0 } },
    ]);
    expect(
      faults.set([{ error: { status: 500, rate: 1 } }, { reset: { rate: 1 } }, { reset: null as never }]),
    ).toStrictEqual([{ error: { status: 500, rate: 1 } }, { reset: { rate: 1 } }, { reset: { rate: 1 } }]);
  });

  it('an error status must be declared by every operation the rule covers, which are named', () => {
    const { faults } = setup();
    const customers = 'listPlans, getPlan, createInstance, deleteInstance, listRegions';
    expect(thrown(() => faults.set([{ error: { status: 503 } }]))).toBe(
      `fault rule 1: status 503 is not declared for ${customers} and 2 more ${DECLARED}`,
    );
    expect(thrown(() => faults.set([{ api: 'customer', error: { status: 503 } }]))).toBe(
      `fault rule 1: status 503 is not declared for ${customers} ${DECLARED}`,
    );
    expect(thrown(() => faults.set([{ api: 'instance', error: { status: 503 } }]))).toBe(
      `fault rule 1: status 503 is not declared for listAlarms, getAlarm ${DECLARED}`,
    );
    expect(thrown(() => faults.set([{ operation: 'getAlarm', error: { status: 503 } }]))).toBe(
      `fault rule 1: status 503 is not declared for getAlarm ${DECLARED}`,
    );
    // 404 is declared by the instance operations only, 599 by listAlarms only, 400 by the customer ones.
    expect(thrown(() => faults.set([{ error: { status: 404 } }]))).toBe(
      `fault rule 1: status 404 is not declared for ${customers} ${DECLARED}`,
    );
    expect(thrown(() => faults.set([{ api: 'instance', error: { status: 599 } }]))).toBe(
      `fault rule 1: status 599 is not declared for getAlarm ${DECLARED}`,
    );
    expect(thrown(() => faults.set(['*:error=400']))).toBe(
      `fault rule 1: status 400 is not declared for listAlarms, getAlarm ${DECLARED}`,
    );
    expect(
      faults.set([
        { api: 'instance', error: { status: 404 } },
        'listAlarms:error=599',
        'customer/*:error=400',
        '*:error=429',
      ]),
    ).toStrictEqual([
      { api: 'instance', error: { status: 404, rate: 1 } },
      { operation: 'listAlarms', error: { status: 599, rate: 1 } },
      { api: 'customer', error: { status: 400, rate: 1 } },
      { error: { status: 429, rate: 1 } },
    ]);
  });
});

describe('Faults: what a request meets', () => {
  const decisions = (faults: Faults, n: number, api: 'customer' | 'instance' = 'instance', id = 'listAlarms') =>
    Array.from({ length: n }, () => faults.decide(api, id));

  it('only the rules of its api and operation', () => {
    const { faults } = setup([
      'instance/*:latency=1ms',
      'listAlarms:latency=10ms',
      'customer/*:latency=100ms',
      'getPlan:latency=1000ms',
    ]);
    expect(faults.decide('instance', 'listAlarms')).toStrictEqual({ latencyMs: 11, reset: false });
    expect(faults.decide('instance', 'getAlarm')).toStrictEqual({ latencyMs: 1, reset: false });
    expect(faults.decide('customer', 'listPlans')).toStrictEqual({ latencyMs: 100, reset: false });
    expect(faults.decide('customer', 'getPlan')).toStrictEqual({ latencyMs: 1100, reset: false });
    faults.set(['listAlarms:latency=10ms']);
    expect(faults.decide('instance', 'getAlarm')).toBeUndefined();
    faults.set(['customer/*:latency=10ms']);
    expect(faults.decide('instance', 'getAlarm')).toBeUndefined();
    // A rule that matches decides something, even nothing at all.
    faults.set(['*:reset@0']);
    expect(faults.decide('customer', 'getPlan')).toStrictEqual({ latencyMs: 0, reset: false });
  });

  it('a latency range draws uniformly within it, the same sequence for the same seed', () => {
    const { faults } = setup([{ operation: 'listAlarms', latency: '100-300ms' }]);
    const expected = [229, 113, 229, 110, 186, 123, 103, 259, 225, 205];
    expect(decisions(faults, 10).map((d) => d!.latencyMs)).toEqual(expected);
    faults.set([{ operation: 'listAlarms', latency: '100-300ms' }]);
    expect(decisions(faults, 10).map((d) => d!.latencyMs)).toEqual(expected);
    // Every rule has its own sequence: the second rule's range draws from another one.
    faults.set([{ latency: '1ms' }, { latency: '0-9ms' }], 11);
    expect(decisions(faults, 10).map((d) => d!.latencyMs)).toEqual([5, 1, 9, 8, 1, 5, 1, 1, 8, 9]);
    // The ends are reached.
    faults.set(['*:latency=0-1ms']);
    expect(new Set(decisions(faults, 40).map((d) => d!.latencyMs))).toEqual(new Set([0, 1]));
  });

  it('errors come at the rate, in a sequence fixed by the seed and the rule', () => {
    const { faults } = setup([{ operation: 'listAlarms', latency: '5ms', error: { status: 500, rate: 0.5 } }]);
    const statuses = () => decisions(faults, 16).map((d) => d!.error?.status ?? d!.latencyMs);
    const expected = [5, 500, 5, 500, 500, 500, 500, 5, 5, 5, 5, 5, 500, 500, 5, 500];
    expect(statuses()).toEqual(expected);
    faults.set([{ operation: 'listAlarms', latency: '5ms', error: { status: 500, rate: 0.5 } }]);
    expect(statuses()).toEqual(expected);
    faults.set([{ operation: 'listAlarms', latency: '5ms', error: { status: 500, rate: 0.5 } }], 8);
    expect(statuses()).not.toEqual(expected);
  });

  it('resets come at the rate, in a sequence fixed by the seed', () => {
    const { faults } = setup([{ reset: { rate: 0.5 } }], 3);
    expect(
      decisions(faults, 16)
        .map((d) => (d!.reset ? 1 : 0))
        .join(','),
    ).toBe('1,0,0,1,0,0,0,1,1,1,0,0,1,1,0,1');
  });

  it('a rate of 0 never fires, not even on a draw of exactly 0; a rate of 1 always does', () => {
    // With this seed the first rule's first draw is 0.
    const seed = 216268730;
    const { faults } = setup([{ latency: '0-1000ms' }], seed);
    expect(faults.decide('instance', 'listAlarms')).toStrictEqual({ latencyMs: 0, reset: false });
    faults.set([{ reset: { rate: 0 } }], seed);
    expect(decisions(faults, 20).every((d) => d!.reset === false)).toBe(true);
    faults.set([{ error: { status: 500, rate: 0 } }], seed);
    expect(decisions(faults, 20).every((d) => d!.error === undefined)).toBe(true);
    faults.set(['*:reset@1', '*:error=500@0'], seed);
    expect(decisions(faults, 20).every((d) => d!.reset === true && d!.error === undefined)).toBe(true);
    faults.set(['*:error=500@1']);
    expect(decisions(faults, 20).every((d) => d!.error?.status === 500)).toBe(true);
  });

  it('the first rule that fires wins: a reset or error stops later errors and resets', () => {
    const { faults } = setup(['*:error=500', '*:error=429']);
    expect(faults.decide('instance', 'listAlarms')).toStrictEqual<FaultDecision>({
      latencyMs: 0,
      reset: false,
      error: { status: 500, rule: 0 },
    });
    faults.set(['*:error=500', '*:reset']);
    expect(faults.decide('instance', 'listAlarms')).toStrictEqual<FaultDecision>({
      latencyMs: 0,
      reset: false,
      error: { status: 500, rule: 0 },
    });
    faults.set(['*:reset', '*:error=500']);
    expect(faults.decide('instance', 'listAlarms')).toStrictEqual<FaultDecision>({ latencyMs: 0, reset: true });
    // In one rule the reset is drawn first.
    faults.set(['*:error=500,reset']);
    expect(faults.decide('instance', 'listAlarms')).toStrictEqual<FaultDecision>({ latencyMs: 0, reset: true });
    // A rule that does not fire leaves the choice to the next; the latencies of all add up.
    faults.set(['*:latency=3ms,error=500@0', '*:latency=4ms,error=429', '*:latency=5ms']);
    expect(faults.decide('instance', 'listAlarms')).toStrictEqual<FaultDecision>({
      latencyMs: 12,
      reset: false,
      error: { status: 429, rule: 1 },
    });
  });
});

describe('Faults: the answer of an injected error', () => {
  it('is the declared response of the status with an Error body, its headers and Tusk-Fault', async () => {
    const { respond } = setup();
    const res = respond('listPlans', 429, 0);
    expect(res.status).toBe(429);
    expect(Object.fromEntries(res.headers)).toStrictEqual({
      'content-type': 'application/json',
      'retry-after': '30',
      'tusk-fault': 'error',
    });
    expect(await res.json()).toStrictEqual({
      error: 'Injected fault: HTTP 429 for listPlans (fault rule 1, see /__tusk/faults)',
    });
  });

  it('takes the headers of a range (4XX) and names the rule', async () => {
    const { respond } = setup();
    const res = respond('getAlarm', 418, 2);
    expect(res.status).toBe(418);
    expect(Object.fromEntries(res.headers)).toStrictEqual({
      'content-type': 'application/json',
      'x-reason': 'teapot',
      'tusk-fault': 'error',
    });
    expect(await res.json()).toStrictEqual({
      error: 'Injected fault: HTTP 418 for getAlarm (fault rule 3, see /__tusk/faults)',
    });
  });

  it('has no declared headers when nothing is declared for the status', async () => {
    const { respond } = setup();
    const res = respond('listPlans', 404, 1);
    expect(res.status).toBe(404);
    expect(Object.fromEntries(res.headers)).toStrictEqual({
      'content-type': 'application/json',
      'tusk-fault': 'error',
    });
    expect(await res.json()).toStrictEqual({
      error: 'Injected fault: HTTP 404 for listPlans (fault rule 2, see /__tusk/faults)',
    });
  });
});

describe('faultStep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const context = (env?: unknown) => ({ env }) as unknown as Context;
  const run = (faults: Faults | undefined, op: OperationInfo, env?: unknown) => {
    const next = vi.fn(async () => {});
    const result = faultStep({ doc: documents()[op.api], op, server: () => faults })(context(env), next);
    return { next, result };
  };
  /** Lets pending promise reactions run, without advancing (fake) timers. */
  const settle = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve();
  };

  it('passes on synchronously when there are no faults or no rule matches', () => {
    const { faults, op } = setup(['customer/*:error=500']);
    const none = run(undefined, op('listAlarms'));
    expect(none.next).toHaveBeenCalledTimes(1);
    const unmatched = run(faults, op('listAlarms'));
    expect(unmatched.next).toHaveBeenCalledTimes(1);
  });

  it('answers an injected error at once, without waiting, and without going on', async () => {
    vi.useFakeTimers();
    const { faults, op } = setup(['listAlarms:error=429']);
    const { next, result } = run(faults, op('listAlarms'));
    let answer: Response | undefined;
    void Promise.resolve(result).then((r) => (answer = r as Response));
    await settle();
    expect(answer?.status).toBe(429);
    expect(answer?.headers.get('tusk-fault')).toBe('error');
    expect(next).not.toHaveBeenCalled();
  });

  it('a matching rule without an effect now goes on at once', async () => {
    vi.useFakeTimers();
    const { faults, op } = setup(['listAlarms:error=500@0']);
    const { next, result } = run(faults, op('listAlarms'));
    await settle();
    expect(next).toHaveBeenCalledTimes(1);
    await result;
  });

  it('waits the latency, then goes on', async () => {
    vi.useFakeTimers();
    const { faults, op } = setup(['listAlarms:latency=200ms']);
    const { next, result } = run(faults, op('listAlarms'));
    await vi.advanceTimersByTimeAsync(199);
    expect(next).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(next).toHaveBeenCalledTimes(1);
    await result;
  });

  it('a reset destroys the socket of the node request and rejects with ConnectionReset', async () => {
    const { faults, op } = setup(['listAlarms:reset']);
    const destroy = vi.fn();
    const withSocket = run(faults, op('listAlarms'), { incoming: { socket: { destroy } } });
    await expect(withSocket.result).rejects.toBeInstanceOf(ConnectionReset);
    expect(destroy).toHaveBeenCalledTimes(1);
    expect(withSocket.next).not.toHaveBeenCalled();
    for (const env of [undefined, {}, { incoming: {} }]) {
      await expect(run(faults, op('listAlarms'), env).result, JSON.stringify(env)).rejects.toBeInstanceOf(
        ConnectionReset,
      );
    }
  });
});
