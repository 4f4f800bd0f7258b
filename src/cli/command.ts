// How a `tusk` command begins and ends on the command line: its flags read by its table (--help
// printed from it), and a usage error or a failed start as one line on stderr (or through the
// command's logger, for `--log json`) with exit code 2.
import type { Logger } from '../core/log.js';
import { helpOf, readFlags, UsageError, type Command, type FlagValue } from './flags.js';

export function fail(message: string, logger?: Logger, prefix = 'tusk'): never {
  if (logger) logger.error(`${prefix}: ${message}`);
  else console.error(`${prefix}: ${message}`);
  process.exit(2);
}

/** Where readCommand's answer keeps the arguments that are not flags (`tusk replay FILE`). */
export const POSITIONALS = Symbol('positionals');

/** A check for readCommand: each of `names` given, as a flag or its variable. */
export const required =
  (command: Command, names: string[]) =>
  (values: Record<string, FlagValue>): void => {
    for (const name of names)
      if (values[name] === undefined)
        throw new UsageError(`--${name} (or ${command.flags.find((f) => f.name === name)!.env}) is required`);
  };

/**
 * The command's flags from `args` and the environment, each checked by its row; `check` adds the
 * rules between flags (throwing UsageError). Undefined after printing the help for --help; a usage
 * error ends the process with the message, the help and exit code 2.
 */
export function readCommand(
  command: Command,
  args: string[],
  check: (values: Record<string, FlagValue>, positionals: string[]) => void = () => undefined,
  prefix = 'tusk',
): (Record<string, FlagValue> & { [POSITIONALS]?: string[] }) | undefined {
  try {
    const { values, positionals } = readFlags(command, args);
    if (values.help) {
      process.stdout.write(helpOf(command));
      return undefined;
    }
    check(values, positionals);
    return Object.assign(values, { [POSITIONALS]: positionals });
  } catch (err) {
    if (err instanceof UsageError) fail(`${err.message}\n\n${helpOf(command)}`, undefined, prefix);
    throw err;
  }
}
