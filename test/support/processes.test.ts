// The tests' process helper (issue 31, point 7): what a test starts is gone once the test is over,
// whether it passed, failed on an assertion or ran out of time, together with what the process
// started in turn (a shell's background job standing for tusk serve's embedded Postgres).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { closeWithTest, exec, ExecError, groupAlive, signalGroup, start } from './processes.js';

/** Whether a process runs: it exists and is not a zombie waiting to be reaped (Linux's /proc). */
const alive = (pid: number) => !/^$|^\d+ \(.*\) Z/.test(statOf(pid));
/** The process's line in /proc: '' when it is gone (also when it goes while it is read). */
function statOf(pid: number): string {
  let line = '';
  try {
    line = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    /* gone */
  }
  return line;
}

/** A shell that starts a background sleep and prints both pids. */
async function family(): Promise<number[]> {
  const p = start('bash', ['-c', 'sleep 600 & echo "pids $$ $!"; wait']);
  const out = await p.until(/pids \d+ \d+/);
  return /pids (\d+) (\d+)/.exec(out)!.slice(1).map(Number);
}

describe('a process started by a test', () => {
  const pids: Record<string, number[]> = {};

  it('passing', async () => {
    pids.passing = await family();
    expect(pids.passing.every(alive)).toBe(true);
  });

  it.fails('failing on an assertion', async () => {
    pids.failing = await family();
    expect(pids.failing).toEqual([]);
  });

  it.fails(
    'running out of time',
    async () => {
      pids.timeout = await family();
      await new Promise((r) => setTimeout(r, 5_000));
    },
    1_000,
  );

  it('is gone after each of them, with the process it started', async () => {
    expect(Object.keys(pids).sort()).toEqual(['failing', 'passing', 'timeout']);
    await expect.poll(() => Object.values(pids).flat().filter(alive), { timeout: 15_000 }).toEqual([]);
  });
});

describe('stop', () => {
  it('sends SIGTERM first (a clean exit keeps its exit code), and is safe to repeat', async () => {
    const p = start(process.execPath, [
      '-e',
      'process.on("SIGTERM", () => { console.log("bye"); process.exit(3); }); console.log("up"); setInterval(() => {}, 1000);',
    ]);
    await p.until(/up/);
    expect(await p.stop()).toBe(3);
    expect(p.output()).toContain('bye');
    expect(await p.stop()).toBe(3);
  });

  it('kills a process that ignores SIGTERM after the grace period', async () => {
    const p = start(process.execPath, [
      '-e',
      'process.on("SIGTERM", () => {}); console.log("up"); setInterval(() => {}, 1000);',
    ]);
    await p.until(/up/);
    expect(await p.stop('SIGTERM', 200)).toBe(null);
    expect(p.output()).toMatch(/ended by SIGKILL\]$/);
  });

  it("leaves alone a group whose exited leader's pid names a running process again (pids wrap around)", async () => {
    // A running group leader stands for a process that got the pid of one of ours that has exited.
    const other = start('sleep', ['600']);
    signalGroup(other.child.pid, 'SIGKILL', true);
    expect(groupAlive(other.child.pid, true)).toBe(false);
    await new Promise((r) => setTimeout(r, 200));
    expect(alive(other.child.pid!)).toBe(true);
    // Its own leader running, the group is signalled.
    expect(groupAlive(other.child.pid, false)).toBe(true);
    signalGroup(other.child.pid, 'SIGKILL', false);
    expect(await other.exit).toBe(null);
  });
});

describe('exec and closeWithTest', () => {
  it('exec resolves with the output of a zero exit, and rejects with code and output otherwise', async () => {
    expect((await exec('bash', ['-c', 'echo out; echo err >&2'])).stdout).toBe('out\n');
    const err = (await exec('bash', ['-c', 'echo why >&2; exit 4']).catch((e: unknown) => e)) as ExecError;
    expect(err).toBeInstanceOf(ExecError);
    expect([err.code, err.stderr]).toEqual([4, 'why\n']);
  });

  const closed: string[] = [];
  it.fails('closeWithTest closes a server once when its test fails, also after the test closed it itself', async () => {
    const a = closeWithTest({ close: () => void closed.push('a') });
    closeWithTest({ close: () => void closed.push('b') });
    await a.close();
    expect(closed).toEqual([]);
  });

  it('(each closed once)', () => {
    expect(closed.sort()).toEqual(['a', 'b']);
  });
});
