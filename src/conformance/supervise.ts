// `tusk test` runs the suite in a process of its own and exits with the code of the suite's
// summary, whatever ends that process afterwards. The suite process holds vitest, vite and their
// native parts, and a process that ends by a signal on its way out leaves no exit code: a caller
// that stops it just after its summary (in Tusk's own tests, a concurrent test's clean-up that
// stopped the other test's run) would see no failure code at all. The suite process sends its
// code over the IPC channel before it exits; SIGINT, SIGTERM and SIGHUP sent to `tusk test` are
// passed on to it, and a suite process whose `tusk test` is gone stops.
import { fork } from 'node:child_process';
import { constants } from 'node:os';

/** Set in the suite process's environment (and removed there at once: the suite's own workers do not see it). */
const SUITE_PROCESS = 'TUSK_SUITE_PROCESS';
const PASSED_ON = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

const leaveWhenOrphaned = () => process.exit(1);

/** Whether this process is the suite process of a `tusk test`; if so, it stops once that `tusk test` is gone. */
export function isSuiteProcess(): boolean {
  if (process.env[SUITE_PROCESS] !== '1' || typeof process.send !== 'function') return false;
  delete process.env[SUITE_PROCESS];
  process.once('disconnect', leaveWhenOrphaned);
  return true;
}

/** In the suite process: tells `tusk test` the run's exit code; resolves once it is sent (or cannot be). */
export function reportCode(code: number): Promise<void> {
  process.off('disconnect', leaveWhenOrphaned);
  return new Promise((done) => {
    if (!process.connected) return done();
    process.send!({ code }, () => {
      process.disconnect();
      done();
    });
  });
}

/**
 * Runs `script args` (`bin/tusk.js test ...`) as the suite process, sharing this one's output;
 * resolves with the code to exit with: the one the suite reported, else the process's own (128 plus
 * the signal's number when a signal passed on stopped it, 1 when another signal ended it).
 */
export function superviseSuite(
  script: string,
  args: string[],
  note: (line: string) => void = (l) => console.error(l),
): Promise<number> {
  const child = fork(script, args, { env: { ...process.env, [SUITE_PROCESS]: '1' }, stdio: 'inherit' });
  let reported: number | undefined;
  let stoppedBy: NodeJS.Signals | undefined;
  child.on('message', (m: { code?: unknown }) => {
    if (typeof m?.code === 'number') reported = m.code;
  });
  const passOn = (signal: NodeJS.Signals) => {
    stoppedBy = signal;
    child.kill(signal);
  };
  for (const s of PASSED_ON) process.on(s, passOn);
  return new Promise((resolve) => {
    const finish = (code: number) => {
      for (const s of PASSED_ON) process.off(s, passOn);
      resolve(code);
    };
    child.once('error', (err) => {
      note(`tusk test: the suite's process could not run: ${err.message}`);
      finish(1);
    });
    child.once('exit', (code, signal) => {
      const how = signal ?? `exit code ${code}`;
      if (reported !== undefined) {
        if (signal || code !== reported)
          note(
            `tusk test: the suite's process ended by ${how} after its summary; the exit code is the summary's (${reported})`,
          );
        finish(reported);
      } else if (signal && signal === stoppedBy) finish(128 + constants.signals[signal]);
      else if (signal) {
        note(`tusk test: the suite's process ended by ${signal} before its summary`);
        finish(1);
      } else finish(code ?? 1);
    });
  });
}
