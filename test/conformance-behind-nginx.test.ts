// `tusk test` through a real nginx in front of `tusk serve` whose clock runs an hour ahead. nginx,
// like most reverse proxies, replaces the upstream's Date header with its own time, so the account's
// time reaches the suite only in Tusk's own header, Tusk-Now (src/http/finish.ts). The suite's
// checks that pick a time relative to the target's now (customer/instances.test.ts: a point-in-time
// copy between the source's creation and now, and one in the future) failed this way while the suite
// read Date alone; they pass once it reads Tusk-Now (contract-tests/harness/client.ts).
import { describe, expect, it } from 'vitest';
import { run } from './support/processes.js';
import { BIN, serveUntilReady } from './support/serve.js';
import { startNginx } from './support/nginx.js';

const HOUR = 3_600_000;
const ADMIN_KEY = 'nginx-test-admin-key';
const basic = { authorization: `Basic ${Buffer.from(`:${ADMIN_KEY}`).toString('base64')}` };

describe('the conformance suite behind nginx', () => {
  it('passes through nginx against a stand-in whose clock runs an hour ahead', { timeout: 120_000 }, async () => {
    const served = await serveUntilReady(['--databases', 'off', '--quiet', '--api-key', ADMIN_KEY]);
    const customer = /customer API\s+(http:\/\/\S+)/.exec(served.output())![1]!;
    const instance = /instance API\s+(http:\/\/\S+)/.exec(served.output())![1]!;
    const moved = await fetch(`${customer}/__tusk/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ advance: '1h' }),
    });
    expect(moved.status).toBe(200);
    const nginx = await startNginx({ customer, instance });

    // Through nginx, Date is nginx's (real time); Tusk-Now still tells the account's time.
    const plans = await fetch(`${nginx.urls.customer}/api/plans`, { headers: basic });
    expect(plans.status).toBe(200);
    expect(plans.headers.get('server')).toMatch(/^nginx/);
    expect(Math.abs(Date.parse(plans.headers.get('date')!) - Date.now())).toBeLessThan(5_000);
    expect(Math.abs(Date.parse(plans.headers.get('tusk-now')!) - (Date.now() + HOUR))).toBeLessThan(5_000);

    const suite = await run(process.execPath, [
      BIN,
      'test',
      '--customer-url',
      nginx.urls.customer!,
      '--instance-url',
      nginx.urls.instance!,
      '--api-key',
      ADMIN_KEY,
      'customer/instances',
    ]);
    expect(suite.out).toMatch(/total +1 files: \d+ passed, 0 failed/);
    expect(suite.code, suite.out).toBe(0);
  });
});
