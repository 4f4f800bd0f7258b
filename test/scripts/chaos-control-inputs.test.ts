// scripts/chaos/control-inputs.js on its own (issue 31, point 2): started without --url, it runs
// every hostile control-input scenario against a `tusk serve` of its own (built: npm test builds
// first), prints one PASS line per scenario, exits 0, and leaves no server behind; stopped with
// SIGTERM halfway, it stops its server too. Records only (--databases off), to keep it short; `npm
// run chaos` runs the same scenarios with the embedded Postgres.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { alive, signalGroup } from '../support/processes.js';

const SCRIPT = join(PROJECT_ROOT, 'scripts', 'chaos', 'control-inputs.js');
const started: ChildProcess[] = [];

/** Runs the script; resolves with its output and exit code, and the pid of the server it said it started. */
function run(
  args: string[],
  onLine: (line: string, child: ChildProcess) => void = () => {},
): Promise<{ code: number | null; out: string; server: number }> {
  return new Promise((resolve, reject) => {
    // In a process group of its own: afterEach ends the script and the tusk serve it started together.
    const child = spawn(process.execPath, [SCRIPT, ...args], {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    started.push(child);
    let out = '';
    let server = 0;
    child.stdout.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        if (!line) continue;
        out += `${line}\n`;
        server ||= Number(/started tusk serve \(pid (\d+)\)/.exec(line)?.[1] ?? 0);
        onLine(line, child);
      }
    });
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, server }));
  });
}

/** Waits (real time) until `pid` is gone; false after `ms`. */
async function gone(pid: number, ms = 20_000): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    if (!alive(pid)) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return !alive(pid);
}

afterEach(() => {
  // The whole group, also when the script has exited: a failing test may leave its server behind.
  for (const child of started.splice(0))
    signalGroup(child.pid, 'SIGKILL', child.exitCode !== null || child.signalCode !== null);
});

describe('scripts/chaos/control-inputs.js on its own', () => {
  it('runs every scenario against a server of its own: one PASS line each, exit code 0, and the server stopped', async () => {
    const { code, out, server } = await run(['--databases', 'off']);
    expect(server, out).toBeGreaterThan(0);
    const lines = out.split('\n').filter((l) => /^(PASS|FAIL) /.test(l));
    expect(lines.length, out).toBeGreaterThanOrEqual(16);
    expect(
      lines.filter((l) => l.startsWith('FAIL')),
      out,
    ).toEqual([]);
    expect(out).toMatch(/control inputs: (\d+) of \1 scenarios held/);
    expect(code, out).toBe(0);
    expect(await gone(server)).toBe(true);
  }, 180_000);

  it('stopped with SIGTERM halfway, it stops its server too', async () => {
    let signalled = false;
    const { out, server } = await run(['--databases', 'off'], (line, child) => {
      if (!signalled && line.startsWith('PASS ')) {
        signalled = true;
        child.kill('SIGTERM');
      }
    });
    expect(signalled, out).toBe(true);
    expect(server).toBeGreaterThan(0);
    expect(await gone(server)).toBe(true);
  }, 180_000);
});
