// A team's Tusk as a team runs it: one Postgres, three `tusk serve --state postgres://...`
// processes, and nginx in front of them (round-robin, a refused connection tried on the next
// replica: `proxy_next_upstream error timeout non_idempotent`; its other settings its defaults).
// Through nginx the conformance suite passes with the clock moved, in both answer modes, while every
// replica is restarted in turn; a replica killed with SIGKILL under writes loses no write it
// acknowledged, the others serve within 3 s, and started again it serves what was written without
// it; an instance's url is the same before and after every replica restarted.
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/core/net.js';
import { BIN } from '../support/serve.js';
import { run, start, type Finished, type Started } from '../support/processes.js';
import { startNginx, type RunningNginx } from '../support/nginx.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';

const ADMIN = 'replicas-admin-key';
const auth = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });
const JSON_TYPE = { 'content-type': 'application/json' };
const ROLE_KEYS =
  'devops=tusk-devops-key,member=tusk-member-key,monitor=tusk-monitor-key,billing manager=tusk-billing-key';

let postgres: TestPostgres;
let state: string;
let nginx: RunningNginx;
const ports: { customer: number; instance: number }[] = [];
const replicas: Started[] = [];
const KEEP: Finished = () => undefined;

/** Starts replica `i` on its ports (again, after a stop), resolved once it is ready. */
async function startReplica(i: number, extra: string[] = []): Promise<Started> {
  const { customer, instance } = ports[i]!;
  const flags = ['--state', state, '--databases', 'off', '--quiet', '--api-key', ADMIN, '--rate-limit', '1000/1'];
  const at = ['--customer-port', String(customer), '--instance-port', String(instance)];
  // Replicas outlive the test that starts them: the file's afterAll stops them.
  const replica = start(process.execPath, [BIN, 'serve', ...flags, ...at, ...extra], { onFinished: KEEP });
  replicas[i] = replica;
  await replica.until(/tusk: ready/, 60_000);
  return replica;
}

const url = (i: number, api: 'customer' | 'instance') => `http://127.0.0.1:${ports[i]![api]}`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as read
async function call(target: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(target, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** `tusk test` through nginx, as CI runs it against one process. */
function suite(): Promise<{ code: number | null; out: string }> {
  return run(
    process.execPath,
    [BIN, 'test', '--customer-url', nginx.urls.customer!, '--instance-url', nginx.urls.instance!],
    {
      env: { ...process.env, TUSK_API_KEY: ADMIN, TUSK_RATE_LIMIT: '1000/1', TUSK_ROLE_KEYS: ROLE_KEYS },
    },
  );
}

beforeAll(async () => {
  postgres = await startPostgres();
  state = await postgres.database('tusk_replicas');
  for (let i = 0; i < 3; i++) ports.push({ customer: await freePort(), instance: await freePort() });
  for (let i = 0; i < 3; i++) await startReplica(i);
  nginx = await startNginx(
    { customer: [0, 1, 2].map((i) => url(i, 'customer')), instance: [0, 1, 2].map((i) => url(i, 'instance')) },
    15_000,
    { onFinished: KEEP },
  );
}, 180_000);

afterAll(async () => {
  await nginx?.process.stop();
  if (nginx) rmSync(nginx.dir, { recursive: true, force: true });
  for (const r of replicas) await r?.stop();
  await postgres?.stop();
}, 60_000);

describe('three replicas behind nginx', () => {
  it('pass the conformance suite with the clock moved, then again while each restarts in production mode', async () => {
    const moved = await call(`${nginx.urls.customer}/__tusk/clock`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: JSON.stringify({ advance: '1h' }),
    });
    expect(moved.status).toBe(200);
    const first = await suite();
    expect(first.out).toMatch(/total +\d+ files: \d+ passed, 0 failed/);
    expect(first.code, first.out.slice(-3000)).toBe(0);

    // A rolling restart, each replica into --answers production, while the suite runs through nginx.
    const second = suite();
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 2_000));
      await replicas[i]!.stop('SIGTERM');
      await startReplica(i, ['--answers', 'production']);
    }
    const out = await second;
    expect(out.code, out.out.slice(-3000)).toBe(0);
  }, 600_000);

  it('lose no acknowledged write when one is killed, and the others serve within 3 s', async () => {
    const account = await call(`${nginx.urls.customer}/__tusk/accounts`, {
      method: 'POST',
      headers: JSON_TYPE,
      body: '{}',
    });
    const key = account.body.admin_key as string;
    const acknowledged: number[] = [];
    const refused: number[] = [];
    let killedAt = 0;
    const writer = async (until: number) => {
      for (let n = 0; Date.now() < until; n++) {
        const r = await call(`${nginx.urls.customer}/api/instances`, {
          method: 'POST',
          headers: { ...auth(key), ...JSON_TYPE },
          body: JSON.stringify({ name: `w${n}`, plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
        }).catch(() => ({ status: 0, body: undefined }));
        if (r.status === 200 || r.status === 201) acknowledged.push(r.body.id as number);
        else refused.push(Date.now());
      }
    };
    const end = Date.now() + 8_000;
    const writing = Promise.all([writer(end), writer(end), writer(end)]);
    await new Promise((r) => setTimeout(r, 2_000));
    killedAt = Date.now();
    replicas[1]!.child.kill('SIGKILL');
    await writing;
    expect(acknowledged.length).toBeGreaterThan(10);
    // Refusals, if any, within 3 s of the kill; none after.
    expect(refused.filter((t) => t > killedAt + 3_000)).toEqual([]);
    const listed = await call(`${url(0, 'customer')}/api/instances`, { headers: auth(key) });
    const ids = new Set((listed.body as { id: number }[]).map((r) => r.id));
    expect(acknowledged.filter((id) => !ids.has(id))).toEqual([]);

    // Started again, it serves what was written without it.
    await startReplica(1);
    const again = await call(`${url(1, 'customer')}/api/instances`, { headers: auth(key) });
    expect(again.body).toStrictEqual(listed.body);
  }, 120_000);

  it('keep an instance url the same across a restart of every replica', async () => {
    const created = await call(`${nginx.urls.customer}/api/instances`, {
      method: 'POST',
      headers: { ...auth(ADMIN), ...JSON_TYPE },
      body: JSON.stringify({ name: 'url-test', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    const before = (await call(`${url(0, 'customer')}/api/instances/${created.body.id}`, { headers: auth(ADMIN) }))
      .body;
    for (let i = 0; i < 3; i++) {
      await replicas[i]!.stop('SIGTERM');
      await startReplica(i);
    }
    for (let i = 0; i < 3; i++) {
      const after = await call(`${url(i, 'customer')}/api/instances/${created.body.id}`, { headers: auth(ADMIN) });
      expect(after.body.url).toBe(before.url);
    }
  }, 180_000);
});
