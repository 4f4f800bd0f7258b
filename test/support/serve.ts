// `tusk serve` as a separate process, for the tests of the command itself: spawned with the given
// flags (any free ports unless the flags say otherwise), resolved once it prints `tusk: ready`.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';

export const BIN = join(PROJECT_ROOT, 'bin', 'tusk.js');

export interface Served {
  process: ChildProcessWithoutNullStreams;
  /** Everything it printed so far (stdout and stderr). */
  out: () => string;
}

/** Starts `tusk serve ...args` and waits (at most 15 s) for `tusk: ready`. */
export async function serveUntilReady(args: string[]): Promise<Served> {
  const p = spawn(process.execPath, [BIN, 'serve', '--customer-port', '0', '--instance-port', '0', ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  p.stderr.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready:\n${out}`)), 15_000);
    p.stdout.on('data', (d) => {
      out += d;
      if (out.includes('tusk: ready')) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  return { process: p, out: () => out };
}
