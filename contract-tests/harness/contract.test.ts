// The harness's own tests: the response check must reject what the document does not allow.
import { beforeAll, describe, expect, it } from 'vitest';
import { Contract } from './contract.js';
import { Client } from './client.js';
import type { Target } from './target.js';
import { mostWithin } from '../derived/support.js';

let contract: Contract;
beforeAll(async () => {
  contract = await Contract.load();
});

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'application/json; charset=UTF-8', ...headers },
  text: JSON.stringify(body),
});
const region = { provider: 'amazon-web-services', region: 'us-east-1', name: 'US-East-1', has_shared_plans: true };

describe('the contract harness', () => {
  it('accepts a response that matches the document', () => {
    expect(contract.violations('customer', 'listRegions', json(200, [region]))).toEqual([]);
  });

  it('rejects a status the operation does not declare', () => {
    const v = contract.violations('customer', 'listRegions', json(418, [region]));
    expect(v.join()).toMatch(/status 418 is not declared/);
  });

  it('rejects a content type the status does not declare', () => {
    const res = { ...json(200, [region]), headers: { 'content-type': 'text/plain' } };
    expect(contract.violations('customer', 'listRegions', res).join()).toMatch(
      /content type "text\/plain" is not declared/,
    );
  });

  it('rejects a body that violates the schema, naming the field', () => {
    const v = contract.violations('customer', 'listRegions', json(200, [{ ...region, has_shared_plans: 'yes' }]));
    expect(v.join()).toMatch(/body 0\.has_shared_plans: must be boolean/);
  });

  it('rejects a body that is not JSON where JSON is declared', () => {
    const res = { status: 200, headers: { 'content-type': 'application/json' }, text: '[{' };
    expect(contract.violations('customer', 'listRegions', res).join()).toMatch(/not valid JSON/);
  });

  it('rejects a 401 without WWW-Authenticate and a 429 without Retry-After', () => {
    expect(contract.violations('customer', 'listRegions', json(401, { error: 'no key' })).join()).toMatch(
      /WWW-Authenticate is required/,
    );
    expect(contract.violations('customer', 'listRegions', json(429, { error: 'slow down' })).join()).toMatch(
      /Retry-After is required/,
    );
    expect(contract.violations('customer', 'listRegions', json(405, { error: 'no' })).join()).toMatch(
      /Allow is required/,
    );
    expect(
      contract.violations(
        'customer',
        'listRegions',
        json(401, { error: 'no key' }, { 'www-authenticate': 'Basic realm="x"' }),
      ),
    ).toEqual([]);
  });

  it('rejects an error body without the error string', () => {
    expect(contract.violations('customer', 'listRegions', json(400, { message: 'bad' })).join()).toMatch(
      /body: must have required property 'error'|body error: is required/,
    );
  });

  it('check() throws a ContractViolation that names the operation', () => {
    expect(() => contract.check('customer', 'listRegions', json(418, []))).toThrow(
      /customer listRegions departs from the contract/,
    );
  });
});

describe('the rate the 429 check reached (derived/support.ts mostWithin)', () => {
  it('counts only the waves sent and answered within one window, at the best start', () => {
    const waves = [
      { sent: 0, done: 400, requests: 100 },
      { sent: 400, done: 900, requests: 100 },
      { sent: 900, done: 1_300, requests: 100 },
      { sent: 1_300, done: 1_400, requests: 100 },
    ];
    // From 0: the first two end by 1000 ms; from 400: three end by 1400 ms.
    expect(mostWithin(waves, 1_000)).toBe(300);
    expect(mostWithin(waves, 100)).toBe(100);
    expect(mostWithin(waves, 50)).toBe(0);
    expect(mostWithin([], 1_000)).toBe(0);
  });
});

describe("the client's reading of the target's time (Client.now)", () => {
  const HOUR = 3_600_000;
  const target: Target = {
    customerUrl: 'http://127.0.0.1:1',
    instanceUrl: 'http://127.0.0.1:2',
    apiKey: 'k',
    inProcess: false,
    roleKeys: {},
    allowDestructive: false,
    checkDatabases: false,
    close: async () => undefined,
  };
  const answer = (headers: Record<string, string>, status = 200) => ({ status, headers });
  const offset = (client: Client) => client.now() - Date.now();

  it('prefers Tusk-Now to a Date header a proxy wrote with its own time, to the ms', () => {
    const client = new Client(contract, target);
    const ahead = new Date(Date.now() + HOUR + 250).toISOString();
    client.observeDate(answer({ date: new Date().toUTCString(), 'tusk-now': ahead }));
    expect(Math.abs(offset(client) - (HOUR + 250))).toBeLessThan(100);
  });

  it("falls back to Date without Tusk-Now, and takes a Date within 2 s as this machine's time", () => {
    const client = new Client(contract, target);
    client.observeDate(answer({ date: new Date(Date.now() + HOUR).toUTCString() }));
    expect(Math.abs(offset(client) - HOUR)).toBeLessThan(1600);
    client.observeDate(answer({ date: new Date().toUTCString() }));
    expect(offset(client)).toBe(0);
  });

  it('learns nothing from an error answer, nor from one without a time', () => {
    const client = new Client(contract, target);
    client.observeDate(answer({ 'tusk-now': new Date(Date.now() + HOUR).toISOString() }, 404));
    client.observeDate(answer({}));
    expect(offset(client)).toBe(0);
  });
});
