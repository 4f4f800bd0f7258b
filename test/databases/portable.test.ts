// The embedded server's housekeeping without the Linux-only parts (src/databases/host.ts): where
// there is no /proc, no `sh` and no `rm` (macOS has `sh` and `rm` but no /proc; Windows none), each
// has a stand-in, run here with those parts switched off (the PORTABLE switch, not a mock): a
// command line read with `ps` or not at all, removals by a detached Node process that outlives its
// starter, nothing signalled that cannot be told to be a server, and a real embedded Postgres
// server started, watched by the Node watchdog, stopped and removed. The watchdog's own checks run
// with both kinds in watchdog.test.ts.
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { cleanStaleEmbedded, EmbeddedServer, removeInBackground } from '../../src/databases/embedded.js';
import { commandLine, detectHost, PORTABLE, removalRunningOn } from '../../src/databases/host.js';
import { freePort } from '../../src/core/net.js';
import { running, start } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { query } from './support.js';

const patiently = { timeout: 15_000, interval: 20 };

/** A folder `name` in `parent` with a file in it. */
function folder(parent: string, name: string): string {
  const dir = join(parent, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'file'), 'data');
  return dir;
}

/** The processes whose command line holds `text`, read from /proc (the test may; the code under test may not). */
function processesWith(text: string): string[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map((p) => commandLine(Number(p), detectHost()))
    .filter((cmd) => cmd.includes(text));
}

describe.runIf(process.platform === 'linux')('without /proc, sh and rm', () => {
  it('the host switch says what this machine has, and the portable one has none of it', () => {
    expect(detectHost()).toEqual({ proc: true, sh: true, rm: true });
    expect(PORTABLE).toEqual({ proc: false, sh: false, rm: false });
  });

  it('reads a command line with ps where there is no /proc, and reads none without either', async () => {
    const sleeper = start('sleep', ['30']);
    const pid = sleeper.child.pid!;
    expect(commandLine(pid, { proc: true, sh: true, rm: true })).toBe('sleep 30 ');
    expect(commandLine(pid, { proc: false, sh: true, rm: true })).toBe('sleep 30');
    expect(commandLine(pid, PORTABLE)).toBe('');
    await sleeper.stop();
    expect(commandLine(pid, { proc: false, sh: true, rm: true })).toBe(''); // gone
  });

  it('removes folders in the background with a detached Node process, no rm started', async () => {
    // An `rm` first on PATH that would leave a mark: it must not be called.
    const bin = tempDir('tusk-portable-bin-');
    const mark = join(bin, 'rm-was-called');
    writeFileSync(join(bin, 'rm'), `#!/bin/sh\ntouch '${mark}'\nexit 1\n`, { mode: 0o755 });
    const path = process.env.PATH;
    process.env.PATH = `${bin}:${path}`;
    onTestFinished(() => {
      process.env.PATH = path;
    });
    const parent = tempDir('tusk-portable-remove-');
    const dirs = [folder(parent, 'a'), folder(parent, 'b')];
    removeInBackground(dirs, PORTABLE);
    for (const dir of dirs) expect(existsSync(dir)).toBe(false); // moved aside at once
    await vi.waitFor(() => expect(readdirSync(parent)).toEqual([]), patiently);
    expect(existsSync(mark)).toBe(false);
    // The same call with rm allowed uses it (and so leaves the mark here).
    const other = folder(parent, 'c');
    removeInBackground([other], { proc: true, sh: true, rm: true });
    await vi.waitFor(() => expect(existsSync(mark)).toBe(true), patiently);
  });

  it('clears what dead Tusk processes left, and signals no process it cannot tell is their server', async () => {
    const dir = tempDir('tusk-portable-clean-');
    const dead = start(process.execPath, ['-e', '']);
    await dead.exit;
    const data = folder(dir, `tusk-pg-${dead.child.pid}-abc`);
    // A process whose command line names the directory, as its postmaster's would: without a way
    // to read command lines it could be any process that got the pid, so it is left alone.
    const server = start(process.execPath, ['-e', "setInterval(() => {}, 1000); console.log('ready')", data]);
    await server.until(/ready/);
    writeFileSync(join(data, 'postmaster.pid'), `${server.child.pid}\n${data}\n`);
    folder(dir, 'tusk-trash-tusk-pg-1-abc-a1b2c3');
    expect(removalRunningOn(join(dir, 'tusk-trash-tusk-pg-1-abc-a1b2c3'), PORTABLE)).toBe(false);
    expect(cleanStaleEmbedded(dir, PORTABLE)).toBe(1);
    await vi.waitFor(() => expect(readdirSync(dir)).toEqual([]), patiently);
    expect(running(server.child.pid!)).toBe(true);
  });

  it('runs a real embedded server watched by the Node watchdog, stops it, and removes its data with Node', async () => {
    const folderOfData = tempDir('tusk-portable-data-');
    chmodSync(folderOfData, 0o755); // as root, the postgres user enters it
    const port = await freePort();
    const server = new EmbeddedServer(port, undefined, { host: PORTABLE, folder: folderOfData });
    onTestFinished(async () => {
      await server.stop();
      server.dispose();
    });
    await server.boot();
    const url = `postgres://postgres:${server.password}@127.0.0.1:${port}/postgres`;
    expect(await query(url, 'select 1 as one')).toEqual([{ one: 1 }]);
    // Its watchdog is the Node one, naming this process, the server and the data directory.
    expect(processesWith(`tusk-watchdog ${process.pid} ${server.pid} ${server.dataDir}`)).toHaveLength(1);
    const pid = server.pid!;
    await server.stop();
    expect(running(pid)).toBe(false);
    await vi.waitFor(() => expect(processesWith(`tusk-watchdog ${process.pid} ${pid}`)).toEqual([]), patiently);
    server.dispose();
    await vi.waitFor(() => expect(readdirSync(folderOfData)).toEqual([]), patiently);
  }, 60_000);
});
