// What a test starts is stopped on every path (issue 31, point 7): a failing assertion, a thrown
// error or a test's timeout included, so that no `tusk serve`, `tusk proxy`, `tusk test`, Prism,
// npm, shell script, embedded Postgres or receiver outlives the test that started it.
//
// - `start(command, args)` spawns a process in a process group of its own (what it starts in turn,
//   such as the embedded Postgres of `tusk serve` or a shell's background jobs, is in that group).
//   Started inside a test, it is stopped when the test finishes, whatever the outcome
//   (onTestFinished); started in a hook, the file stops it in its afterAll (`stop()`, or
//   `stopStarted()` for all). Stopping sends SIGTERM (or the signal asked for) to the process, then
//   SIGKILL to its whole group once it has exited or after a grace period; and whatever is still
//   running when the test worker exits is killed with SIGKILL. A group whose leader has exited is
//   signalled only while no other process has the leader's pid (signalGroup: pids are reused).
// - `closeWithTest(thing)` closes an in-process server (a Tusk, which may run an embedded Postgres,
//   a receiver, a proxy) when the current test finishes; its own `close()` may run before that, and
//   it runs once in all. Made in a hook, the file's afterAll closes it.
// - In a concurrent test (`describe.concurrent`, `it.concurrent`) both take the test context's
//   onTestFinished: vitest's global one cannot tell concurrent tests apart, and would stop a
//   test's process when another test finishes.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { onTestFinished } from 'vitest';

export interface Started {
  readonly child: ChildProcess;
  /** stdout and stderr so far, interleaved as they came. */
  output(): string;
  /** stdout so far. */
  stdout(): string;
  /** stderr so far. */
  stderr(): string;
  /** The exit code once the process has exited (null when a signal ended it). */
  readonly exit: Promise<number | null>;
  /** Whether the process has exited. */
  exited(): boolean;
  /** Resolves with the output once it matches `pattern`; rejects when the process exits first or after `timeoutMs`. */
  until(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /**
   * Ends the process: `signal` (SIGTERM) to it, SIGKILL to its group after `graceMs` if it has not
   * exited by then, and SIGKILL to whatever of its group is left once it has. Resolves with its
   * exit code. Safe to call more than once and after the process has exited.
   */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<number | null>;
}

export interface StartOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** `pipe` keeps stdin open (`child.stdin`); default `ignore`. */
  stdin?: 'ignore' | 'pipe';
  /**
   * In a concurrent test: the test context's onTestFinished. Vitest's global one cannot tell
   * concurrent tests apart and may stop the process when another test finishes.
   */
  onFinished?: Finished;
}

/** The onTestFinished that registers for the test at hand (the global one, or a test context's). */
export type Finished = typeof onTestFinished;

const live = new Set<Started>();

/** Whether a process runs: it exists and is not a zombie that no one has reaped yet (Linux, /proc). */
export function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** Whether a process with this pid exists (a zombie included). */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * Sends `signal` to the process group that `pid` leads (nothing if it is empty). Once the leader
 * has exited, only while no process has its pid again: the kernel frees a group's id once the group
 * is empty, pids wrap around (at 32,768 on these machines), and a detached process started later
 * with that pid leads a group that is not ours.
 */
export function signalGroup(pid: number | undefined, signal: NodeJS.Signals, leaderExited: boolean): void {
  if (pid === undefined || (leaderExited && alive(pid))) return;
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is empty */
  }
}

/** Whether any process is left of the group that `pid` leads (or led: as signalGroup, never a later group with that pid). */
export function groupAlive(pid: number | undefined, leaderExited: boolean): boolean {
  if (pid === undefined || (leaderExited && alive(pid))) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}

// The last resort: a worker that exits (its file done, or ended by vitest) takes its processes along.
process.once('exit', () => {
  for (const s of live) signalGroup(s.child.pid, 'SIGKILL', s.exited());
});

/** Spawns `command args` in a process group of its own; stopped when the current test finishes (see above). */
export function start(command: string, args: string[], options: StartOptions = {}): Started {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdio: [options.stdin ?? 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let stdout = '';
  let stderr = '';
  let hasExited = false;
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
    stdout += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
    stderr += d.toString();
  });
  const exit = new Promise<number | null>((resolve) => {
    child.once('error', (err) => {
      out += `\n${String(err)}`;
      hasExited = true;
      resolve(null);
    });
    child.once('exit', (code, signal) => {
      // A signal leaves no exit code: say which one, so that a failing test's output shows it.
      if (signal) out += `\n[${command} ended by ${signal}]`;
      hasExited = true;
      resolve(code);
    });
  });
  let stopping: Promise<number | null> | undefined;
  const started: Started = {
    child,
    output: () => out,
    stdout: () => stdout,
    stderr: () => stderr,
    exit,
    exited: () => hasExited,
    until(pattern, timeoutMs = 15_000) {
      return new Promise<string>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            finish(
              new Error(`${command} ${args.join(' ')}: no ${pattern} within ${timeoutMs} ms; its output:\n${out}`),
            ),
          timeoutMs,
        );
        const check = () => {
          if (pattern.test(out)) finish();
        };
        function finish(err?: Error) {
          clearTimeout(timer);
          child.stdout!.off('data', check);
          child.stderr!.off('data', check);
          if (err) reject(err);
          else resolve(out);
        }
        child.stdout!.on('data', check);
        child.stderr!.on('data', check);
        void exit.then((code) => {
          if (pattern.test(out)) finish();
          else
            finish(
              new Error(
                `${command} ${args.join(' ')} exited (${code}) before printing ${pattern}; its output:\n${out}`,
              ),
            );
        });
        check();
      });
    },
    stop(signal = 'SIGTERM', graceMs = 10_000) {
      stopping ??= (async () => {
        if (!hasExited) {
          try {
            child.kill(signal);
          } catch {
            /* gone already */
          }
          const timer = setTimeout(() => signalGroup(child.pid, 'SIGKILL', hasExited), graceMs);
          await exit;
          clearTimeout(timer);
        }
        signalGroup(child.pid, 'SIGKILL', true);
        live.delete(started);
        return exit;
      })();
      return stopping;
    },
  };
  live.add(started);
  try {
    (options.onFinished ?? onTestFinished)(() => started.stop().then(() => undefined));
  } catch {
    /* started in a hook: the file's afterAll stops it (stop() or stopStarted()) */
  }
  return started;
}

/** Runs `command args` to its end: its exit code and output (stopped with the test if it outlives it). */
export async function run(
  command: string,
  args: string[],
  options: StartOptions = {},
): Promise<{ code: number | null; out: string; stdout: string; stderr: string }> {
  const s = start(command, args, options);
  const code = await s.exit;
  return { code, out: s.output(), stdout: s.stdout(), stderr: s.stderr() };
}

/** An error of `exec`: the command's exit code and output. */
export class ExecError extends Error {
  constructor(
    readonly code: number | null,
    readonly stdout: string,
    readonly stderr: string,
    what: string,
  ) {
    super(`${what} exited with ${code}:\n${stdout}\n${stderr}`);
  }
}

/** As promisify(execFile): stdout and stderr when the exit code is 0, else an ExecError carrying them (stopped with the test if it outlives it). */
export async function exec(
  command: string,
  args: string[],
  options: StartOptions = {},
): Promise<{ stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await run(command, args, options);
  if (code !== 0) throw new ExecError(code, stdout, stderr, `${command} ${args.join(' ')}`);
  return { stdout, stderr };
}

/** Stops every process started by this file that still runs (for an afterAll). */
export async function stopStarted(): Promise<void> {
  await Promise.all([...live].map((s) => s.stop()));
}

/**
 * Closes `thing` (an in-process Tusk, a receiver, a proxy) when the current test finishes, passed
 * or failed (in a concurrent test, pass the test context's `onTestFinished`). Its `close()` may
 * also be called by the test; it runs once in all. Outside a test (a hook), nothing is registered:
 * the file's afterAll closes it.
 */
export function closeWithTest<T extends { close(): unknown }>(thing: T, onFinished: Finished = onTestFinished): T {
  const close = thing.close.bind(thing);
  let closing: Promise<unknown> | undefined;
  thing.close = (() => (closing ??= Promise.resolve().then(close))) as T['close'];
  try {
    onFinished(async () => {
      await thing.close();
    });
  } catch {
    /* made in a hook */
  }
  return thing;
}
