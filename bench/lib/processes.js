// The processes of the bench: a server started as `node ...` (output kept for errors, stopped with
// SIGTERM then SIGKILL), waiting for its first 200, and what a process costs: its resident memory,
// its CPU time so far, and waiting until it is idle before the next measurement.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT } from './paths.js';

/** Starts `node ...args`; the pid is the node process itself (for its memory). */
export function startNode(args, nodeFlags = [], { ignoreStdout = false } = {}) {
  // ignoreStdout: a request log goes to /dev/null rather than through this process's CPU.
  const child = spawn(process.execPath, [...nodeFlags, ...args], {
    cwd: ROOT,
    stdio: ['ignore', ignoreStdout ? 'ignore' : 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (d) => {
    output += d;
    if (output.length > 20_000) output = output.slice(-10_000);
  };
  child.stdout?.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return {
    child,
    pid: child.pid,
    output: () => output,
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** One GET without keep-alive; resolves the status (0 when the connection failed). */
function probe(url, headers) {
  return new Promise((resolve) => {
    const req = httpGet(url, { headers, agent: false, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}

/** Polls until a 200; resolves ms since `since`. */
export async function firstOk(url, headers, proc, since, timeoutMs = 60_000) {
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`the process exited before answering 200:\n${proc.output()}`);
    const status = await probe(url, headers);
    if (status === 200) return performance.now() - since;
    if (performance.now() - since > timeoutMs)
      throw new Error(`no 200 from ${url} within ${timeoutMs} ms (last status ${status}):\n${proc.output()}`);
    await sleep(status === 0 ? 2 : 5);
  }
}

export function rssMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
    return kb / 1024;
  } catch {
    const r = spawnSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' });
    return Number(r.stdout.trim()) / 1024;
  }
}

/** User + system CPU time of a process so far, in ms (Linux /proc; undefined elsewhere). */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

/**
 * Waits until a server is idle: after a set-up or a growth its own threads still work for seconds
 * (V8 marking and sweeping hundreds of MB, a whole core while it lasts), and that CPU would fall
 * on the next measurement. Idle: under 5 % of a core over half a second; at most 30 s. (Tusk's
 * 100 ms tick over some 15,000 instances takes 2 to 4 %: with 1 % as the line, such a server was
 * never idle, every wait took the full 30 s, and V8's memory reducer shrank the heap meanwhile, so
 * that the next measurement paid for growing it back: a fixed-count round of 5,000 requests ran at
 * 200 instead of 70 us of CPU per request.)
 */
export async function settle(pid) {
  for (let waited = 0; waited < 30_000; waited += 500) {
    const before = cpuMs(pid);
    await sleep(500);
    const after = cpuMs(pid);
    if (before === undefined || after === undefined || after - before < 25) return;
  }
}
