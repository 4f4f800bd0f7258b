// The rules the tables of flags share (checks of a value, the --help row).
import type { Flag } from '../flags.js';

/** A check made from a parser that throws: the message when it does. */
export const parses =
  (parse: (value: string) => unknown, rule: string) =>
  (value: string): string | undefined => {
    try {
      parse(value);
      return undefined;
    } catch {
      return rule;
    }
  };
export const atLeast8 = (value: string) => (value.length < 8 ? 'must have at least 8 characters' : undefined);
export const notEmpty = (value: string) => (value === '' ? 'needs a file name' : undefined);
export const httpUrl = parses((value) => {
  if (!['http:', 'https:'].includes(new URL(value).protocol)) throw new Error('not http(s)');
}, 'must be an http(s) URL');
export const RATE_LIMIT = 'must look like N/S (N requests per S seconds, or per a duration: 100/1m)';
export const PORT = [0, 65535] as const;
export const HELP: Flag = { name: 'help', short: 'h', help: 'this help', default: '' };
