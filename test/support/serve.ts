// `tusk serve` as a separate process, for the tests of the command itself: spawned with the given
// flags (any free ports unless the flags say otherwise), resolved once it prints `tusk: ready`, and
// stopped when the test finishes, whatever its outcome (./processes.ts).
import { join } from 'node:path';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { start, type Started, type StartOptions } from './processes.js';

export const BIN = join(PROJECT_ROOT, 'bin', 'tusk.js');

/** Starts `tusk serve ...args` (stopped with the test). */
export function serve(args: string[], options: StartOptions = {}): Started {
  return start(process.execPath, [BIN, 'serve', '--customer-port', '0', '--instance-port', '0', ...args], options);
}

/** Starts `tusk serve ...args` and waits (at most 15 s) for `tusk: ready`. */
export async function serveUntilReady(args: string[]): Promise<Started> {
  const served = serve(args);
  await served.until(/tusk: ready/);
  return served;
}
