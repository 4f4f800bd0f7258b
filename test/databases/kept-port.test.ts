// An instance's url never changes while the instance lives, restarts included (issue 44): `tusk
// serve --state FILE` run three times for real on the same file keeps its embedded server's port
// (remembered beside the data, FILE.pgdata.port), so the url a client saved still connects to the
// data; when another process has taken that port, the server listens on another, a line says that
// the urls changed, and the new url connects. And a port taken between the engine's choice and the
// server's start (another process was quicker), or while the server is started again after a
// crash, moves the server too, with the same line.
import { chmodSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { PostgresEngine } from '../../src/databases/engine.js';
import { freePort } from '../../src/core/net.js';
import { serve } from '../support/serve.js';
import { tempDir } from '../support/temp.js';
import { ADMIN, json, query } from './support.js';

/** Listens on `port` of 127.0.0.1 until the test finishes: another process's hold on it. */
async function hold(port: number): Promise<Server> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  onTestFinished(() => new Promise<void>((r) => server.close(() => r())));
  return server;
}

/** `tusk serve --state FILE` until its databases are ready: its output and its customer URL. */
async function serveState(file: string) {
  const s = serve(['--state', file, '--quiet', '--provision-delay', '0']);
  const out = await s.until(/tusk: databases +ready/, 60_000);
  const customer = /customer API\s+(http:\/\/\S+)/.exec(out)![1]!;
  return { s, out, customer };
}

const portOf = (url: string) => Number(new URL(url).port);

describe.runIf(process.platform === 'linux')("the embedded server's port", () => {
  it('stays across restarts of tusk serve --state, and moves with a line saying so when another process took it', async () => {
    const dir = tempDir('tusk-kept-port-');
    chmodSync(dir, 0o755); // as root, the postgres system user keeps its data beside the state file
    const file = join(dir, 'state.json');

    const first = await serveState(file);
    const created = await json(`${first.customer}/api/instances`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ name: 'kept-url', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    expect(created.status).toBe(200);
    const read = async (customer: string) =>
      (await json(`${customer}/api/instances/${created.body.id}`, { headers: ADMIN })).body;
    let instance = await read(first.customer);
    for (let i = 0; i < 300 && !instance.ready; i++) {
      await new Promise((r) => setTimeout(r, 100));
      instance = await read(first.customer);
    }
    expect(instance.ready).toBe(true);
    const url = instance.url as string;
    await query(url, "create table notes (body text); insert into notes values ('kept')");
    expect(await first.s.stop()).toBe(0);
    expect(Number(readFileSync(`${file}.pgdata.port`, 'utf8'))).toBe(portOf(url));

    // Started again on the same state: the very url the client kept connects to its data.
    const second = await serveState(file);
    expect(second.out).not.toMatch(/urls changed/);
    expect((await read(second.customer)).url).toBe(url);
    expect(await query(url, 'select body from notes')).toEqual([{ body: 'kept' }]);
    expect(await second.s.stop()).toBe(0);

    // Another process holds the port now: the server takes another, and says the urls changed.
    await hold(portOf(url));
    const third = await serveState(file);
    const moved = (await read(third.customer)).url as string;
    expect(portOf(moved)).not.toBe(portOf(url));
    expect(third.out).toContain(
      `tusk: databases: port ${portOf(url)}, where the embedded server of this state listened before, is taken by another process: it listens on ${portOf(moved)} now, so the instances' urls changed (GET /api/instances/{id} gives the new ones)`,
    );
    expect(moved.replace(`:${portOf(moved)}/`, `:${portOf(url)}/`)).toBe(url); // only the port changed
    expect(await query(moved, 'select body from notes')).toEqual([{ body: 'kept' }]);
    expect(await third.s.stop()).toBe(0);
    expect(Number(readFileSync(`${file}.pgdata.port`, 'utf8'))).toBe(portOf(moved));
  }, 180_000);

  it('a port taken between the choice and the start: the server listens on another, and a line says the urls changed', async () => {
    const lines: string[] = [];
    const engine = new PostgresEngine({ kind: 'embedded' }, (level, line) => lines.push(`${level} ${line}`));
    onTestFinished(() => engine.close());
    await engine.reserve();
    const chosen = engine.port;
    await hold(chosen); // quicker than the server
    await engine.start();
    expect(engine.state).toBe('ready');
    expect(engine.port).not.toBe(chosen);
    expect(lines).toContain(
      `warn tusk: databases: port ${chosen} of 127.0.0.1 is taken by another process; the embedded server listens on ${engine.port} instead, so the instances' urls changed (GET /api/instances/{id} gives the new ones)`,
    );
    expect((await engine.sql('select 1 as one')).rows).toEqual([{ one: 1 }]);
    expect(await freePort('127.0.0.1', engine.port)).not.toBe(engine.port); // it listens there
  }, 60_000);

  it('a port taken while the server is started again after a crash: it moves, says so, and the engine works there', async () => {
    const lines: string[] = [];
    const engine = new PostgresEngine({ kind: 'embedded' }, (level, line) => lines.push(`${level} ${line}`));
    onTestFinished(() => engine.close());
    await engine.start();
    const [first, pid] = [engine.port, engine.serverPid!];
    process.kill(pid, 'SIGKILL'); // as the OOM killer would
    // Another process takes the port the moment the server lets go of it.
    await vi.waitFor(() => hold(first), { timeout: 15_000, interval: 10 });
    await vi.waitFor(() => expect(lines.join('\n')).toContain('tusk: databases: the Postgres server is back'), {
      timeout: 60_000,
      interval: 100,
    });
    expect(engine.state).toBe('ready');
    expect(engine.port).not.toBe(first);
    expect(lines).toContain(
      `warn tusk: databases: port ${first} of 127.0.0.1 is taken by another process; the embedded server listens on ${engine.port} instead, so the instances' urls changed (GET /api/instances/{id} gives the new ones)`,
    );
    // The admin's connections followed it.
    expect((await engine.sql('select 2 as two')).rows).toEqual([{ two: 2 }]);
  }, 90_000);
});
