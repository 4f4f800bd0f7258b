// API coverage of a client's traffic (issue 19): a small client drives the stand-in and the report
// at GET /__tusk/coverage counts exactly what it was answered, per operation and documented status,
// with the documents' operations and statuses as the denominator and the traffic outside the
// contract apart; scoped to an account, the account's requests only. `tusk coverage` prints it.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { readOperations } from '../../src/openapi/operations.js';
import { startTusk, type RunningTusk } from '../../src/server.js';
import type { CoverageReport } from '../../src/openapi/coverage-recorder.js';
import { exec as run } from '../support/processes.js';

const BIN = join(PROJECT_ROOT, 'bin', 'tusk.js');
const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });

let tusk: RunningTusk;
let job: { account_id: string; admin_key: string };
let apikey: string;

async function call(base: string, method: string, path: string, key?: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: { ...(key ? basic(key) : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.text()) || undefined };
}
const coverage = async (query = '', key?: string) =>
  JSON.parse((await call(tusk.customerUrl, 'GET', `/__tusk/coverage${query}`, key)).body!) as CoverageReport;
const row = (r: CoverageReport, api: 'customer' | 'instance', id: string) =>
  r.interfaces[api].by_operation.find((o) => o.operation_id === id)!;
const counts = (r: CoverageReport, api: 'customer' | 'instance', id: string) =>
  Object.fromEntries(row(r, api, id).statuses.map((s) => [s.status, s.count]));

beforeAll(async () => {
  tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', provisionDelayMs: 0 });
  job = JSON.parse(
    (await call(tusk.customerUrl, 'POST', '/__tusk/accounts', undefined, { name: 'coverage job' })).body!,
  );
  // The client: one instance, its alarms read three ways, a wrong key, a path that is no resource.
  const created = JSON.parse(
    (
      await call(tusk.customerUrl, 'POST', '/api/instances', job.admin_key, {
        name: 'cov',
        plan: 'hippo',
        region: 'amazon-web-services::us-east-1',
      })
    ).body!,
  );
  apikey = created.apikey;
  await call(tusk.instanceUrl, 'GET', '/api/alarms/1', apikey);
  await call(tusk.instanceUrl, 'GET', '/api/alarms/2', apikey);
  await call(tusk.instanceUrl, 'GET', '/api/alarms/999', apikey);
  await call(tusk.instanceUrl, 'GET', '/api/alarms/1', 'wrong-key-000000');
  await call(tusk.customerUrl, 'GET', '/api/plans', job.admin_key);
  await call(tusk.customerUrl, 'GET', '/api/nowhere', job.admin_key);
  await call(tusk.instanceUrl, 'DELETE', '/api/backup', apikey);
  // Another client, with the seeded account's key.
  await call(tusk.customerUrl, 'GET', '/api/plans', tusk.registry.adminKey);
});
afterAll(() => tusk.close());

describe('GET /__tusk/coverage', () => {
  it('counts each answer under its operation and documented status, exactly', async () => {
    const r = await coverage();
    expect(r.requests).toBe(9);
    expect(counts(r, 'instance', 'getAlarm')).toMatchObject({ '200': 2, '404': 1, '401': 1, '400': 0 });
    expect(counts(r, 'customer', 'listPlans')).toMatchObject({ '200': 2, '401': 0 });
    expect(counts(r, 'customer', 'createInstance')['200']).toBe(1);
    expect(r.outside).toEqual([
      { api: 'customer', method: 'GET', path: '/api/nowhere', status: 404, count: 1 },
      { api: 'instance', method: 'DELETE', path: '/api/backup', status: 405, count: 1 },
    ]);
  });

  it("has the documents' operations and statuses as the denominator, never-exercised operations first", async () => {
    const r = await coverage();
    for (const api of ['customer', 'instance'] as const) {
      const ops = readOperations(api, tusk.deps.documents[api]);
      const c = r.interfaces[api];
      expect(c.operations).toBe(ops.length);
      expect(c.statuses).toBe(ops.reduce((n, o) => n + o.responses.size, 0));
      const firstSeen = c.by_operation.findIndex((o) => o.statuses.some((s) => s.count > 0));
      expect(c.by_operation.slice(firstSeen).every((o) => o.statuses.some((s) => s.count > 0))).toBe(true);
    }
    expect(r.interfaces.customer.operations_exercised).toBe(2);
    expect(r.interfaces.instance.operations_exercised).toBe(1);
    expect(r.interfaces.instance.statuses_exercised).toBe(3);
    expect(r.interfaces.customer.operations_percent).toBe(
      Math.round((2 / r.interfaces.customer.operations) * 1000) / 10,
    );
  });

  it("scoped to an account (its admin key or ?account=), counts that account's requests only", async () => {
    const mine = await coverage('', job.admin_key);
    expect(mine.account).toBe(job.account_id);
    expect(counts(mine, 'customer', 'listPlans')['200']).toBe(1);
    expect(counts(mine, 'instance', 'getAlarm')).toMatchObject({ '200': 2, '404': 1, '401': 0 });
    expect(await coverage(`?account=${job.account_id}`)).toEqual(mine);
  });

  it('DELETE forgets the counts of the scoped account only', async () => {
    expect((await call(tusk.customerUrl, 'DELETE', '/__tusk/coverage', job.admin_key)).status).toBe(204);
    expect((await coverage('', job.admin_key)).requests).toBe(0);
    expect(counts(await coverage(), 'customer', 'listPlans')['200']).toBe(1);
  });
});

describe('tusk coverage', () => {
  it('prints per operation the statuses seen and never seen', async () => {
    await call(tusk.instanceUrl, 'GET', '/api/alarms/1', apikey);
    const { stdout } = await run(process.execPath, [
      BIN,
      'coverage',
      '--url',
      tusk.customerUrl,
      '--key',
      job.admin_key,
    ]);
    expect(stdout).toMatch(new RegExp(`^API coverage of account ${job.account_id}: 1 requests$`, 'm'));
    expect(stdout).toMatch(/^instance interface: 1 of \d+ operations \([\d.]+ %\), 1 of \d+ documented statuses/m);
    expect(stdout).toMatch(
      /^ {2}getAlarm +200 ok \(1\), 400 never, 401 never, 404 never, 405 never, 429 never, 500 never$/m,
    );
  });

  it('says so when the server cannot be reached (exit code 2)', async () => {
    const err = await run(process.execPath, [BIN, 'coverage', '--url', 'http://127.0.0.1:9']).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).toMatchObject({ code: 2, stderr: expect.stringMatching(/cannot reach http:\/\/127\.0\.0\.1:9/) });
  });
});

describe('GET /__tusk/runtime', () => {
  it('reports the event-loop delay, the resident memory and the uptime; DELETE restarts the histogram', async () => {
    await new Promise((r) => setTimeout(r, 120));
    const before = JSON.parse((await call(tusk.customerUrl, 'GET', '/__tusk/runtime')).body!);
    expect(before).toMatchObject({
      event_loop_delay_ms: {
        p50: expect.any(Number),
        p99: expect.any(Number),
        max: expect.any(Number),
        samples: expect.any(Number),
      },
      rss_mb: expect.any(Number),
      uptime_s: expect.any(Number),
    });
    expect(before.event_loop_delay_ms.samples).toBeGreaterThan(0);
    // The delay is the lateness of the 10 ms timer, not its interval: an idle loop is about 0 late.
    expect(before.event_loop_delay_ms.p50).toBeLessThan(5);
    // A blocked event loop shows in the maximum.
    const until = Date.now() + 120;
    while (Date.now() < until);
    await new Promise((r) => setTimeout(r, 30));
    const blocked = JSON.parse((await call(tusk.customerUrl, 'GET', '/__tusk/runtime')).body!);
    expect(blocked.event_loop_delay_ms.max).toBeGreaterThanOrEqual(100);
    expect((await call(tusk.customerUrl, 'DELETE', '/__tusk/runtime')).status).toBe(204);
    const reset = JSON.parse((await call(tusk.customerUrl, 'GET', '/__tusk/runtime')).body!);
    expect(reset.event_loop_delay_ms.max).toBeLessThan(100);
  });
});
