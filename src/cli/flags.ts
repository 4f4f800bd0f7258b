// The flags of a `tusk` command, read from one table (tables.ts): each row names a flag, its
// placeholder, its help, its default and the environment variable that stands in for it. The
// parser and the help text are both made from the rows, so they cannot drift. A flag given on the
// command line wins over its variable; an empty variable counts as unset; a switch's variable takes
// 1, true, yes, on (and 0, false, no, off), and `--no-FLAG` turns off a switch its variable turned on.
import { parseArgs } from 'node:util';

export interface Flag {
  name: string;
  short?: string;
  /** The value's placeholder; none for a switch. */
  arg?: string;
  help: string;
  /** The default as --help shows it ('': none to show). */
  default: string;
  /** The environment variable that stands in for the flag (none: --help, --version). */
  env?: string;
  /** May be given more than once; its variable holds the values separated by `;` or new lines. */
  multiple?: boolean;
  /** The values it takes. */
  choices?: readonly string[];
  /** A whole number from the first to the second. */
  integer?: readonly [number, number];
  /** Further rules of a value: what is wrong with it ("must ..."), or undefined when it is fine. */
  check?: (value: string) => string | undefined;
}

export interface Command {
  /** `serve`, `test`, ...: `tusk NAME`. */
  name: string;
  /** What follows `Usage: tusk NAME` (default `[flags]`). */
  usage?: string;
  /** What the command does: the paragraphs before the flags. */
  about: string;
  flags: Flag[];
  /** Takes positional arguments (`tusk test` file filters). */
  positionals?: boolean;
  /** Paragraphs after the flags. */
  after?: string;
}

export type FlagValue = string | boolean | string[] | undefined;

export interface ReadFlags {
  /** By flag name: a string, true or false for a switch, a list for a repeatable flag; undefined: neither given nor set. */
  values: Record<string, FlagValue>;
  positionals: string[];
}

/** A command line or an environment the command cannot take: the message says what is wrong. */
export class UsageError extends Error {}

const YES = ['1', 'true', 'yes', 'on'];
const NO = ['0', 'false', 'no', 'off'];

/** How a message names a flag: `--customer-port (or TUSK_CUSTOMER_PORT)`. */
export const flagName = (flag: Flag): string => `--${flag.name}${flag.env ? ` (or ${flag.env})` : ''}`;

/** A switch's variable, read: yes (true) or no (false); anything else is refused. */
function envSwitch(flag: Flag, raw: string): boolean {
  const v = raw.trim().toLowerCase();
  if (YES.includes(v)) return true;
  if (NO.includes(v)) return false;
  throw new UsageError(`${flag.env} must be one of ${[...YES, ...NO].join(', ')} (as ${flagName(flag)}), got "${raw}"`);
}

/** What is wrong with a value of `flag`, by its row's rules (undefined: nothing). */
function problem(flag: Flag, value: string): string | undefined {
  if (flag.choices && !flag.choices.includes(value))
    return `must be ${flag.choices.slice(0, -1).join(', ')}${flag.choices.length > 1 ? ' or ' : ''}${flag.choices.at(-1)}`;
  if (flag.integer) {
    const n = Number(value);
    const [min, max] = flag.integer;
    if (value.trim() === '' || !Number.isInteger(n) || n < min || n > max)
      return `must be an integer from ${min} to ${max}`;
  }
  return flag.check?.(value);
}

/** Reads `args` (the command line after the command's name) and `env` by the command's table. */
export function readFlags(command: Command, args: string[], env: NodeJS.ProcessEnv = process.env): ReadFlags {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: Boolean(command.positionals),
      allowNegative: true,
      options: Object.fromEntries(
        command.flags.map((f) => [
          f.name,
          {
            type: f.arg ? ('string' as const) : ('boolean' as const),
            ...(f.short ? { short: f.short } : {}),
            ...(f.multiple ? { multiple: true } : {}),
          },
        ]),
      ),
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const values: Record<string, FlagValue> = {};
  for (const flag of command.flags) {
    const given = parsed.values[flag.name] as FlagValue;
    const raw = flag.env ? env[flag.env] : undefined;
    let value: FlagValue = given;
    if (value === undefined && raw) {
      if (!flag.arg) value = envSwitch(flag, raw);
      else if (flag.multiple)
        value = raw
          .split(/[;\n]/)
          .map((s) => s.trim())
          .filter(Boolean);
      else value = raw;
    }
    for (const v of typeof value === 'string' ? [value] : Array.isArray(value) ? value : []) {
      const wrong = problem(flag, v);
      if (wrong) throw new UsageError(`${flagName(flag)} ${wrong}, got "${v}"`);
    }
    values[flag.name] = value;
  }
  return { values, positionals: parsed.positionals };
}

/** Splits `text` into lines of at most `width` characters (a longer word keeps a line of its own). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return line ? [...lines, line] : lines;
}

/** The columns --help is wrapped to. */
export const HELP_WIDTH = 100;

/**
 * The flag lines of --help: each flag, its help wrapped beside it, and a last line with its default
 * and its variable: `(default 4010; env TUSK_CUSTOMER_PORT)`.
 */
export function flagLines(flags: Flag[]): string {
  const left = (f: Flag) => `${f.short ? `-${f.short}, ` : ''}--${f.name}${f.arg ? ` ${f.arg}` : ''}`;
  const width = Math.max(...flags.map((f) => left(f).length)) + 4;
  const indent = ' '.repeat(width);
  return flags
    .map((f) => {
      const text = wrap(f.help, HELP_WIDTH - width);
      if (f.default || f.env) text.push(`(default ${f.default}${f.env ? `; env ${f.env}` : ''})`);
      return text.map((line, i) => (i === 0 ? `  ${left(f).padEnd(width - 2)}${line}` : `${indent}${line}`)).join('\n');
    })
    .join('\n')
    .concat('\n');
}

/** The --help of a command, made from its table. */
export function helpOf(command: Command): string {
  const env = command.flags.some((f) => f.env)
    ? "\nEach flag can also be set by the variable its line names; a flag given wins over its variable, an\nempty variable counts as unset. A switch's variable takes 1/true/yes/on or 0/false/no/off, and\n--no-FLAG turns off a switch its variable turned on.\n"
    : '';
  return `Usage: tusk ${command.name} ${command.usage ?? '[flags]'}

${command.about.trim()}

Flags:
${flagLines(command.flags)}${env}${command.after ? `\n${command.after.trim()}\n` : ''}`;
}
