// The conformance suite catches deployments that break a promise of the documents (issue 32,
// "Done when"). Each deployment is the reference implementation (in-process, with its embedded
// Postgres) behind a proxy that changes one thing per promise (support/broken-deployment.ts);
// the built `tusk test` runs against it and must exit 1 with a departure that names the operation
// and the rule, for every promise broken:
// - the databases behind the instances (point 1): a restore that answers and calls back but leaves
//   the database as it was; a fork that is an empty database; a point-in-time copy that is an
//   empty database; a point-in-time recovery that answers and calls back but changes nothing; a
//   fork whose url opens the source's own database (not independent of it);
// - what production always answers (point 2): createInstance without `message`, getInstance and
//   listInstances without `tags`, a cpu alarm without `value_threshold` and `time_threshold`, a
//   disk alarm without `value_calculation`.
// Needs `npm run build` (npm test builds first).
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
import { startTusk, type RunningTusk } from '../src/server.js';
import { brokenDeployment, callBackLater, type Breakage, type BrokenDeployment } from './support/broken-deployment.js';
import { closeWithTest, run, type Finished } from './support/processes.js';

let tusk: RunningTusk;
beforeAll(async () => {
  // As the suite's in-process target: short delays, so that readiness and callbacks come soon.
  tusk = await startTusk({
    customerPort: 0,
    instancePort: 0,
    log: 'off',
    provisionDelayMs: 200,
    rateLimit: '1000000/1',
    databases: 'embedded',
    registry: { backupDelayMs: 200, restoreDelayMs: 200, outbox: { retryDelayMs: 200, timeoutMs: 1000 } },
  });
}, 120_000);
afterAll(() => tusk?.close(), 60_000);

const ACCOUNT = randomUUID();
const isCreate = (x: { api: string; method: string; path: string }) =>
  x.api === 'customer' && x.method === 'POST' && x.path === '/api/instances';

/** restoreBackup answers 204 and calls back, and the database stays as it was. */
const restoreNothing: Breakage = {
  answer: (x) => {
    if (x.api !== 'instance' || x.path !== '/api/backup/restore') return undefined;
    callBackLater(x.body?.callback, { action: 'restore', backup_id: Number(x.body?.backup_id), account_id: ACCOUNT });
    return { status: 204 };
  },
};
/** recoverToPointInTime answers 204 and calls back, and the database stays as it was. */
const recoverNothing: Breakage = {
  answer: (x) => {
    if (x.api !== 'instance' || x.path !== '/api/backup/pitr') return undefined;
    callBackLater(x.body?.callback, { action: 'pitr', account_id: ACCOUNT });
    return { status: 204 };
  },
};
/** createInstance with `action` (fork or pit) makes a new, empty instance instead of a copy. */
const emptyCopy = (action: 'fork' | 'pit'): Breakage => ({
  request: (x) =>
    isCreate(x) && x.body?.action === action
      ? { name: x.body.name, plan: x.body.plan, region: x.body.region }
      : undefined,
});
/** A fork's url opens the source's database: the fork holds the source's rows, but is not a copy. */
const sharedFork = (): Breakage => {
  const sourceOf = new Map<number, number>();
  const swap = async (body: unknown, call: (api: 'customer', path: string) => Promise<unknown>) => {
    const b = body as { id?: number; url?: string };
    const source = b.id === undefined ? undefined : sourceOf.get(b.id);
    return source === undefined
      ? body
      : { ...b, url: ((await call('customer', `/api/instances/${source}`)) as { url: string }).url };
  };
  return {
    response: async (x, body, call) => {
      if (isCreate(x) && x.body?.action === 'fork' && typeof (body as { id?: unknown }).id === 'number')
        sourceOf.set((body as { id: number }).id, Number(x.body.instance_id));
      if (x.api === 'customer' && (isCreate(x) || (x.method === 'GET' && /^\/api\/instances\/\d+$/.test(x.path))))
        return swap(body, call);
      return body;
    },
  };
};
/** Drops fields from the answers of one operation (by method and path pattern). */
const without = (
  api: 'customer' | 'instance',
  method: string,
  path: RegExp,
  drop: (body: unknown) => unknown,
): Breakage => ({
  response: (x, body) => (x.api === api && x.method === method && path.test(x.path) ? drop(body) : body),
});
const omit = (record: unknown, ...fields: string[]) =>
  Object.fromEntries(Object.entries(record as Record<string, unknown>).filter(([k]) => !fields.includes(k)));
const alarmsWithout =
  (type: string, ...fields: string[]) =>
  (body: unknown) => {
    const fix = (a: unknown) => ((a as { type?: string }).type === type ? omit(a, ...fields) : a);
    return Array.isArray(body) ? body.map(fix) : fix(body);
  };

/** The built `tusk test` against a broken deployment: its exit code and output. */
async function suiteAgainst(
  deployment: BrokenDeployment,
  onFinished: Finished,
  ...args: string[]
): Promise<{ code: number | null; out: string }> {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('TUSK_') || k.startsWith('VITEST')) delete env[k];
  const { code, out } = await run(
    process.execPath,
    [
      join(PROJECT_ROOT, 'bin', 'tusk.js'),
      'test',
      '--customer-url',
      deployment.customerUrl,
      '--instance-url',
      deployment.instanceUrl,
      '--api-key',
      tusk.registry.adminKey,
      ...args,
    ],
    { cwd: PROJECT_ROOT, env, onFinished },
  );
  return { code, out };
}

/** The departures of a run's summary, one text each (operation, request, expected, got, rules). */
const departuresIn = (out: string) =>
  (out.split('Departures from the contract')[1] ?? '').split(/\n {2}\d+\. /).slice(1);

// Each run waits for readiness, backups, callbacks and a minute to pass (pitr takes minutes).
const RUN_TIMEOUT = 600_000;

describe.concurrent('the suite against deployments that break the databases behind the instances (point 1)', () => {
  it(
    'a restore, a fork, a point-in-time copy and a recovery that leave the data as it was: four departures, each naming the operation and the rule',
    async ({ onTestFinished }) => {
      const broken = closeWithTest(
        await brokenDeployment(tusk, [restoreNothing, recoverNothing, emptyCopy('fork'), emptyCopy('pit')]),
        onTestFinished,
      );
      const { code, out } = await suiteAgainst(broken, onTestFinished, '--check-databases', 'customer/databases');
      const found = departuresIn(out);
      expect(
        found.find((d) => d.startsWith('instance restoreBackup  POST /api/backup/restore')) ??
          `no such departure in:\n${out}`,
        out,
      ).toMatch(
        /restores the backup into its database .*: the database holds \["written after the backup"\], not \["kept by the backup"\]/,
      );
      expect(
        found.find((d) => d.startsWith('instance recoverToPointInTime  POST /api/backup/pitr')) ??
          `no such departure in:\n${out}`,
        out,
      ).toMatch(
        /recovers the database to the time pit .*: the database holds \["after the point in time"\], not \["at the point in time"\]/,
      );
      expect(found.find((d) => /action fork is a copy/.test(d)) ?? `no such departure in:\n${out}`, out).toMatch(
        /^customer createInstance {2}POST \/api\/instances[\s\S]*the database holds no table, not \["in the source before the fork"\]/,
      );
      expect(found.find((d) => /action pit is a copy/.test(d)) ?? `no such departure in:\n${out}`, out).toMatch(
        /^customer createInstance {2}POST \/api\/instances[\s\S]*the database holds no table, not \["at the point in time"\]/,
      );
      expect(code, out).toBe(1);
    },
    RUN_TIMEOUT,
  );

  it(
    "a fork that opens the source's own database: a departure naming createInstance and independence",
    async ({ onTestFinished }) => {
      const broken = closeWithTest(await brokenDeployment(tusk, [sharedFork()]), onTestFinished);
      const { code, out } = await suiteAgainst(broken, onTestFinished, '--check-databases', 'customer/databases');
      const found = departuresIn(out);
      expect(found, out).toHaveLength(1);
      expect(found[0]).toMatch(
        /^customer createInstance {2}POST \/api\/instances[\s\S]*a fork is a copy: a write to the fork is not seen in the source: the database holds \["in the fork only"\]/,
      );
      expect(code, out).toBe(1);
    },
    RUN_TIMEOUT,
  );
});

describe('the suite against deployments that leave out what production always answers (point 2)', () => {
  // One run per file; breakages that do not stop a file's other checks share a run.
  const runs: [string, Breakage[], string, RegExp[]][] = [
    [
      'createInstance without message',
      [without('customer', 'POST', /^\/api\/instances$/, (b) => omit(b, 'message'))],
      'customer/instances',
      [/^customer createInstance {2}POST \/api\/instances[\s\S]*body message: is required/],
    ],
    [
      'getInstance and listInstances without tags',
      [
        without('customer', 'GET', /^\/api\/instances\/\d+$/, (b) => omit(b, 'tags')),
        without('customer', 'GET', /^\/api\/instances$/, (b) => (b as unknown[]).map((i) => omit(i, 'tags'))),
      ],
      'customer/instances',
      [
        /^customer getInstance {2}GET \/api\/instances\/\d+[\s\S]*body tags: is required/,
        /^customer listInstances {2}GET \/api\/instances[\s\S]*body 0\.tags: is required/,
      ],
    ],
    [
      'cpu alarms without their thresholds, disk alarms without value_calculation',
      [
        without(
          'instance',
          'GET',
          /^\/api\/alarms(\/\d+)?$/,
          alarmsWithout('cpu', 'value_threshold', 'time_threshold'),
        ),
        without('instance', 'GET', /^\/api\/alarms(\/\d+)?$/, alarmsWithout('disk', 'value_calculation')),
      ],
      'instance/alarms',
      [
        /^instance listAlarms {2}GET \/api\/alarms[\s\S]*body 0\.value_threshold: is required[\s\S]*body 0\.time_threshold: is required/,
        /^instance listAlarms {2}GET \/api\/alarms[\s\S]*body 2\.value_calculation: is required/,
      ],
    ],
  ];
  for (const [what, breakages, file, expected] of runs) {
    it(
      `${what}: a departure naming the operation and the field, for each`,
      async ({ onTestFinished }) => {
        const broken = closeWithTest(await brokenDeployment(tusk, breakages), onTestFinished);
        const { code, out } = await suiteAgainst(broken, onTestFinished, file);
        const found = departuresIn(out);
        for (const departure of expected)
          expect(
            found.some((d) => departure.test(d)),
            `${departure}\n${out.slice(-6000)}`,
          ).toBe(true);
        expect(code, out).toBe(1);
      },
      RUN_TIMEOUT,
    );
  }
});
