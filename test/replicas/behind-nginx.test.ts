// A team's Tusk as README's recipe runs it ("A team's Tusk: replicas on one Postgres", the blocks
// marked `<!-- readme-test: team -->` and `team-nginx`): one Postgres, three `tusk serve` processes
// with the same TUSK_STATE=postgres://... (their instances' databases on that server), and nginx in
// front of them with README's lines (round-robin, a refused connection tried on the next replica:
// `proxy_next_upstream error timeout non_idempotent`; its other settings its defaults). Through
// nginx the conformance suite passes, its database checks included, with the clock moved, in both
// answer modes, while every replica is restarted in turn; a replica killed with SIGKILL under
// writes loses no write it acknowledged, the others serve within 3 s, and started again it serves
// what was written without it; an instance's url is the same, and its database open, before and
// after every replica restarted.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/core/net.js';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { BIN } from '../support/serve.js';
import { run, start, type Finished, type Started } from '../support/processes.js';
import { startNginxWith, type RunningNginx } from '../support/nginx.js';
import { startPostgres, type TestPostgres } from '../support/postgres.js';
import { query } from '../databases/support.js';

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const RECIPE = /<!-- readme-test: team -->\n```sh\n([\s\S]*?)\n```/.exec(README)?.[1] ?? '';
const NGINX = /<!-- readme-test: team-nginx -->\n```nginx\n([\s\S]*?)\n```/.exec(README)?.[1] ?? '';
const EXPORTS = Object.fromEntries([...RECIPE.matchAll(/^export (\w+)=(\S+)/gm)].map((m) => [m[1]!, m[2]!]));
const SERVE_LINES = RECIPE.split('\n').filter((l) => l.startsWith('tusk serve'));
const ADMIN = EXPORTS.TUSK_API_KEY!;
const auth = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });
const JSON_TYPE = { 'content-type': 'application/json' };
const ROLE_KEYS =
  'devops=tusk-devops-key,member=tusk-member-key,monitor=tusk-monitor-key,billing manager=tusk-billing-key';

let postgres: TestPostgres;
let state: string;
let nginx: RunningNginx;
/** README's ports, each replaced by a free one. */
const PORTS = new Map<string, number>();
const localPort = (text: string) => text.replace(/\b(4[01]\d\d)\b/g, (p) => String(PORTS.get(p) ?? p));
const replicas: Started[] = [];
const KEEP: Finished = () => undefined;

/** Starts replica `i` as README's line `i` does (again, after a stop), resolved once it is ready. */
async function startReplica(i: number, extra: string[] = []): Promise<Started> {
  const flags = localPort(SERVE_LINES[i]!)
    .replace(/^tusk serve|&$/g, '')
    .trim()
    .split(/\s+/);
  const env = { ...process.env, ...EXPORTS, TUSK_STATE: state };
  const test = ['--quiet', '--rate-limit', '1000/1'];
  // Replicas outlive the test that starts them: the file's afterAll stops them.
  const replica = start(process.execPath, [BIN, 'serve', ...flags, ...test, ...extra], { env, onFinished: KEEP });
  replicas[i] = replica;
  await replica.until(/tusk: ready/, 60_000);
  return replica;
}

/** What each replica printed last and whether it still runs: the message of a failed run. */
const replicasSaid = () =>
  replicas.map((r, i) => `\nreplica ${i} (${r.exited() ? 'exited' : 'running'}):\n${r.output().slice(-1500)}`).join('');

const url = (i: number, api: 'customer' | 'instance') =>
  `http://127.0.0.1:${PORTS.get(new RegExp(`--${api}-port (\\d+)`).exec(SERVE_LINES[i]!)![1]!)}`;

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
    [BIN, 'test', '--check-databases', '--customer-url', nginx.urls.customer!, '--instance-url', nginx.urls.instance!],
    {
      env: { ...process.env, TUSK_API_KEY: ADMIN, TUSK_RATE_LIMIT: '1000/1', TUSK_ROLE_KEYS: ROLE_KEYS },
    },
  );
}

beforeAll(async () => {
  expect(SERVE_LINES).toHaveLength(3);
  postgres = await startPostgres();
  state = await postgres.database('tusk_replicas');
  for (const p of new Set((RECIPE + NGINX).match(/\b4[01]\d\d\b/g))) PORTS.set(p, await freePort());
  for (let i = 0; i < 3; i++) await startReplica(i);
  const customer = `http://127.0.0.1:${PORTS.get('4010')}`;
  const instance = `http://127.0.0.1:${PORTS.get('4011')}`;
  nginx = await startNginxWith(
    localPort(NGINX.replace(/listen (\d+);/g, 'listen 127.0.0.1:$1;')),
    { customer, instance },
    15_000,
    {
      onFinished: KEEP,
    },
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
    expect(first.code, first.out.slice(-3000) + replicasSaid()).toBe(0);

    // A rolling restart, each replica into --answers production, while the suite runs through nginx:
    // one at a time, the next once the one before is ready and nginx's fail_timeout (10 s by
    // default: how long a replica that refused a connection is left out) has passed, as README says.
    const second = suite();
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, i === 0 ? 2_000 : 11_000));
      await replicas[i]!.stop('SIGTERM');
      await startReplica(i, ['--answers', 'production']);
    }
    const out = await second;
    expect(out.code, out.out.slice(-3000) + replicasSaid()).toBe(0);
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

  it('keep an instance url the same, and its database, across a restart of every replica', async () => {
    const created = await call(`${nginx.urls.customer}/api/instances`, {
      method: 'POST',
      headers: { ...auth(ADMIN), ...JSON_TYPE },
      body: JSON.stringify({ name: 'url-test', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    const ready = async (i: number) => {
      for (let n = 0; n < 600; n++) {
        const got = await call(`${url(i, 'customer')}/api/instances/${created.body.id}`, { headers: auth(ADMIN) });
        if (got.body.ready) return got.body as { url: string };
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`instance ${created.body.id} never ready through replica ${i}`);
    };
    const before = await ready(0);
    await query(before.url, 'create table kept (x int); insert into kept values (7)');
    for (let i = 0; i < 3; i++) {
      await replicas[i]!.stop('SIGTERM');
      await startReplica(i);
    }
    for (let i = 0; i < 3; i++) expect((await ready(i)).url).toBe(before.url);
    expect(await query(before.url, 'select x from kept')).toEqual([{ x: 7 }]);
  }, 180_000);
});
