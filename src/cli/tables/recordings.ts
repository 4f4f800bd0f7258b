// The flags of `tusk import` (TUSK_IMPORT_<FLAG>) and `tusk replay` (TUSK_REPLAY_<FLAG>): the two
// commands that read a deployment or a recording of one (src/import/, src/replay/). Their own
// prefixes, not tusk test's TUSK_API_KEY: a job that tests the stand-in with one key imports
// production's account, or replays against another deployment, with another.
import type { Command } from '../flags.js';
import { HELP, httpUrl, notEmpty } from './checks.js';

export const IMPORT: Command = {
  name: 'import',
  usage: '--customer-url URL --instance-url URL --api-key KEY --out FILE [flags]',
  about: `Reads one account of a deployment (production, a staging copy, another Tusk) through its public
API and writes a state file for \`tusk serve --state FILE\`: the instances (names, plans, regions,
tags, creation times), per instance its recipients, alarms, log and metrics integrations,
maintenance and backup list (read on the instance API with the key get-instance answers), the
team, the invoices and the audit log. Served, every GET the import made answers the same body as
the source did, keys and passwords aside.

It sends GET requests only: it never creates, changes or deletes anything, and refuses to send
any other method. A 429 is waited out (Retry-After) and asked again. One line per instance.

Secrets are new: instance keys and passwords, and the account's keys (which the API never shows:
one per role of the team, printed at the end); integrations' keys become placeholders. Whatever
cannot be carried (a database's data, the payments behind invoices, metrics, the outbox, ...) is
listed in a report at the end. Exit code 0 when the file was written, 1 when the account could
not be read, 2 for a usage error or a file that cannot be written.`,
  flags: [
    {
      name: 'customer-url',
      arg: 'URL',
      env: 'TUSK_IMPORT_CUSTOMER_URL',
      check: httpUrl,
      help: 'the customer API of the deployment (required)',
      default: 'none',
    },
    {
      name: 'instance-url',
      arg: 'URL',
      env: 'TUSK_IMPORT_INSTANCE_URL',
      check: httpUrl,
      help: 'the instance API of the deployment (required)',
      default: 'none',
    },
    {
      name: 'api-key',
      arg: 'KEY',
      env: 'TUSK_IMPORT_API_KEY',
      help: 'a customer key of the account (required); an admin key reads everything, another role what it may',
      default: 'none',
    },
    {
      name: 'out',
      arg: 'FILE',
      env: 'TUSK_IMPORT_OUT',
      check: notEmpty,
      help: 'the state file to write (replaced if it exists; mode 0600) (required)',
      default: 'none',
    },
    {
      name: 'keep-secrets',
      env: 'TUSK_IMPORT_KEEP_SECRETS',
      help: "keep the source's instance keys, passwords and integration keys, and make the given key the admin key (the file then holds them: keep it private)",
      default: 'off',
    },
    {
      name: 'audit-months',
      arg: 'N',
      env: 'TUSK_IMPORT_AUDIT_MONTHS',
      integer: [1, 1200],
      help: "months of the audit log read at most, back from the latest (reading stops earlier once every instance's creation was found)",
      default: '12',
    },
    HELP,
  ],
};

export const REPLAY: Command = {
  name: 'replay',
  usage: 'FILE --customer-url URL --instance-url URL --api-key KEY [flags]',
  positionals: true,
  about: `Sends the requests of a recording again to a deployment, in order, and names every departure of
its answers from the recorded ones and from the contract. FILE is a HAR file (tusk proxy --record,
a browser's or an HTTP tool's) or a go-vcr cassette (YAML, versions 1 and 2: what go-vcr v1 to v4
write). Record against production once; replay against Tusk (where does the stand-in differ?) or
against a new deployment (what changed?).

Values the recorded answers made (ids, keys, urls) are carried into the later requests: where a
recorded request names one, the value the live answer had at the same place is sent. Departures:
another status; a field or list element the recorded answer had and this one has not; a field of
another type; another value (but values that differ between runs by nature: ids, keys, passwords,
urls, times, sizes, error messages, redacted values); another content type; an answer the
documents do not allow. Controls of the stand-in (/__tusk/) are skipped. Exit code 0 when every
exchange answered as recorded, 1 on any departure, 2 for a usage error or an unreadable FILE.`,
  flags: [
    {
      name: 'customer-url',
      arg: 'URL',
      env: 'TUSK_REPLAY_CUSTOMER_URL',
      check: httpUrl,
      help: 'the customer API to replay against (required)',
      default: 'none',
    },
    {
      name: 'instance-url',
      arg: 'URL',
      env: 'TUSK_REPLAY_INSTANCE_URL',
      check: httpUrl,
      help: 'the instance API to replay against (required)',
      default: 'none',
    },
    {
      name: 'api-key',
      arg: 'KEY',
      env: 'TUSK_REPLAY_API_KEY',
      help: 'replaces the customer key the recording used most',
      default: 'none: the recorded key',
    },
    {
      name: 'instance-key',
      arg: 'KEY',
      env: 'TUSK_REPLAY_INSTANCE_KEY',
      help: 'replaces an instance key that no recorded answer gave (a recording that starts with an existing instance)',
      default: 'none: the recorded key',
    },
    {
      name: 'junit',
      arg: 'FILE',
      env: 'TUSK_REPLAY_JUNIT',
      check: notEmpty,
      help: 'write a JUnit XML report (a test case per exchange)',
      default: 'none',
    },
    {
      name: 'timeout',
      arg: 'MS',
      env: 'TUSK_REPLAY_TIMEOUT',
      integer: [1, 600_000],
      help: 'how long one answer may take',
      default: '30000',
    },
    HELP,
  ],
};
