// One embedded Postgres server (src/databases/embedded.ts) started for real: it accepts the
// superuser's password, a watchdog watches it while it runs, a stop it was asked for is no exit to
// report, and an exit it was not asked for (a SIGKILL, as the OOM killer would) is reported with
// its signal. The engine's reaction to that report runs in supervision.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { EmbeddedServer } from '../../src/databases/embedded.js';
import { freePort } from '../../src/core/net.js';
import { running } from '../support/processes.js';
import { query } from './support.js';

/** The watchdogs (`sh -c WATCHDOG sh OWNER SERVER DATA`) of the server `pid`: their pid and arguments. */
function watchdogsOf(pid: number): { pid: number; args: string[] }[] {
  const found: { pid: number; args: string[] }[] = [];
  for (const entry of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (args[0] === 'sh' && args[1] === '-c' && args[3] === 'sh' && args[5] === String(pid))
        found.push({ pid: Number(entry), args: args.slice(4, 7) });
    } catch {
      /* exited meanwhile */
    }
  }
  return found;
}

const patiently = { timeout: 15_000, interval: 20 };

describe.runIf(process.platform === 'linux')('an embedded server started for real', () => {
  it('runs watched, stops without reporting an exit, and reports a kill with its signal', async () => {
    const port = await freePort();
    const server = new EmbeddedServer(port);
    onTestFinished(async () => {
      await server.stop();
      server.dispose();
    });
    const exits: string[] = [];
    server.onExit = (why) => void exits.push(why);
    await server.boot();
    const url = `postgres://postgres:${server.password}@127.0.0.1:${port}/postgres`;
    expect(await query(url, 'select 1 as one')).toEqual([{ one: 1 }]);
    const first = server.pid!;
    expect(server.running).toBe(true);
    expect(watchdogsOf(first)).toEqual([
      { pid: expect.any(Number), args: [String(process.pid), String(first), server.dataDir] },
    ]);

    // A stop it was asked for: no exit reported, the watchdog gone with it.
    const [watcher] = watchdogsOf(first);
    await server.stop();
    expect(server.running).toBe(false);
    expect(server.pid).toBeUndefined();
    await vi.waitFor(() => expect(running(watcher!.pid)).toBe(false), patiently);
    expect(exits).toEqual([]);

    // Started again on the same data, then killed: reported once, with the signal.
    await server.start();
    const second = server.pid!;
    expect(second).not.toBe(first);
    expect(await query(url, 'select 2 as two')).toEqual([{ two: 2 }]);
    expect(watchdogsOf(second)).toHaveLength(1);
    process.kill(second, 'SIGKILL');
    await vi.waitFor(() => expect(exits).toEqual(['the embedded server exited (SIGKILL)']), patiently);
    expect(server.running).toBe(false);
  }, 60_000);
});
