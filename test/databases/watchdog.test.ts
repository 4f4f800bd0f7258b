// The watchdog of an embedded server (src/databases/watchdog.ts): when the process that owns the
// server is killed with SIGKILL, which no handler of its own sees, the watchdog stops the server
// and removes its data directory; while the owner lives, it leaves both to the owner. Played here
// by stand-ins: a Node process as the owner and a `sleep` it spawned as its server. Both watchdogs
// run the same checks: the `sh` loop reading /proc, and the Node one that stands in for it where
// there is no /proc or `sh` (macOS, Windows), here with those parts switched off (PORTABLE).
import { existsSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { watchdog } from '../../src/databases/embedded.js';
import { detectHost, PORTABLE, type Host } from '../../src/databases/host.js';
import { running, start } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

/** An owner process and the pid of its "server", a child that runs until a signal ends it. */
async function owner(): Promise<{ owner: number; server: number; kill: () => void }> {
  const script =
    "const c = require('node:child_process').spawn('sleep', ['60'], { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000);";
  const started = start(process.execPath, ['-e', script]);
  const server = Number((await started.until(/^\d+\n/m)).trim());
  return { owner: started.child.pid!, server, kill: () => process.kill(started.child.pid!, 'SIGKILL') };
}

/** Starts the watchdog, killed when the test finishes if it has not exited by then. */
function watch(
  server: number,
  dataDir: string | undefined,
  ownerPid: number,
  host: Host,
): { child: ChildProcess; exited: Promise<void> } {
  const child = watchdog(server, dataDir, ownerPid, host)!;
  expect(child).toBeDefined();
  // The kind asked for: the shell loop, or the Node stand-in.
  expect(child.spawnargs[0]).toBe(host.proc && host.sh ? 'sh' : process.execPath);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  onTestFinished(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  return { child, exited };
}

describe.runIf(process.platform === 'linux').each([
  ['sh and /proc', detectHost()],
  ['Node, without /proc, sh and rm', PORTABLE],
])('the watchdog of an embedded server (%s)', (_, host) => {
  it('stops the server and removes its data directory once its owner is killed', async () => {
    const data = tempDir('tusk-watchdog-data-');
    const { owner: pid, server, kill } = await owner();
    const { exited } = watch(server, data, pid, host);
    // While the owner lives, the server runs and its data stays.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(running(server)).toBe(true);
    expect(existsSync(data)).toBe(true);
    kill();
    await exited;
    expect(running(server)).toBe(false);
    expect(existsSync(data)).toBe(false);
  });

  it('keeps a kept data directory (none named) and still stops the server', async () => {
    const data = tempDir('tusk-watchdog-kept-');
    const { owner: pid, server, kill } = await owner();
    const { exited } = watch(server, undefined, pid, host);
    kill();
    await exited;
    expect(running(server)).toBe(false);
    expect(existsSync(data)).toBe(true);
  });

  it('leaves the data to a living owner when the server stops or crashes, and exits', async () => {
    const data = tempDir('tusk-watchdog-crash-');
    const { owner: pid, server } = await owner();
    const { exited } = watch(server, data, pid, host);
    process.kill(server, 'SIGKILL');
    await exited;
    expect(running(pid)).toBe(true);
    expect(existsSync(data)).toBe(true);
  });
});
