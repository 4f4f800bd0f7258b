// How a `tusk` command ends on a usage error or a failed start: one line on stderr (or through the
// command's logger, for `--log json`), exit code 2.
import type { Logger } from '../core/log.js';

export function fail(message: string, logger?: Logger, prefix = 'tusk'): never {
  if (logger) logger.error(`${prefix}: ${message}`);
  else console.error(`${prefix}: ${message}`);
  process.exit(2);
}
