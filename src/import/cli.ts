// `tusk import`: reads one account of a deployment through its public API (GET requests only) and
// writes a state file that `tusk serve --state FILE` serves (account.ts reads, state.ts builds),
// then prints what could not be carried. Exit code 0 when the file was written, 1 when the account
// could not be read (its instance list), 2 for a usage error or a file that cannot be written.
import { parseArgs } from 'node:util';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readAccount } from './account.js';
import { Source, SourceError } from './source.js';
import { buildState } from './state.js';

export const IMPORT_HELP = `Usage: tusk import --customer-url URL --instance-url URL --api-key KEY --out FILE [flags]

Reads one account of a deployment (production, a staging copy, another Tusk) through its public
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
listed in a report at the end.

Flags (each can also come from its environment variable; a flag wins):
  --customer-url URL    the customer API of the deployment (TUSK_CUSTOMER_URL; required)
  --instance-url URL    the instance API of the deployment (TUSK_INSTANCE_URL; required)
  --api-key KEY         a customer key of the account; admin reads everything (TUSK_API_KEY; required)
  --out FILE            the state file to write (replaced if it exists; mode 0600)
  --keep-secrets        keep the source's instance keys, passwords and integration keys, and make
                        the given key the admin key (the file then holds them: keep it private)
  --audit-months N      months of the audit log read at most, back from the latest (default 12;
                        reading stops earlier once every instance's creation was found)
  -h, --help            this help
`;

function fail(message: string, code = 2): never {
  console.error(`tusk import: ${message}`);
  process.exit(code);
}

const httpUrl = (name: string, value: string | undefined): string => {
  if (!value) fail(`--${name} is required\n\n${IMPORT_HELP}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(`--${name} must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`--${name} must be an http(s) URL, got "${value}"`);
  return url.href.replace(/\/+$/, '');
};

export async function importCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      options: {
        'customer-url': { type: 'string' },
        'instance-url': { type: 'string' },
        'api-key': { type: 'string' },
        out: { type: 'string' },
        'keep-secrets': { type: 'boolean' },
        'audit-months': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    fail(`${(err as Error).message}\n\n${IMPORT_HELP}`);
  }
  if (values.help) {
    process.stdout.write(IMPORT_HELP);
    return;
  }
  const customerUrl = httpUrl('customer-url', values['customer-url'] ?? process.env.TUSK_CUSTOMER_URL);
  const instanceUrl = httpUrl('instance-url', values['instance-url'] ?? process.env.TUSK_INSTANCE_URL);
  const apiKey = values['api-key'] ?? process.env.TUSK_API_KEY;
  if (!apiKey) fail(`--api-key is required\n\n${IMPORT_HELP}`);
  if (!values.out) fail(`--out is required\n\n${IMPORT_HELP}`);
  const months = values['audit-months'] === undefined ? 12 : Number(values['audit-months']);
  if (!Number.isInteger(months) || months < 1 || months > 1200)
    fail(`--audit-months must be an integer from 1 to 1200, got "${values['audit-months']}"`);

  const log = (line: string) => console.log(line);
  const source = new Source({ customerUrl, instanceUrl, apiKey, log });
  log(`tusk import: reading ${customerUrl} and ${instanceUrl} (GET requests only)`);
  let built;
  try {
    const read = await readAccount(source, { auditMonths: months, log });
    built = buildState(read, { apiKey, keepSecrets: Boolean(values['keep-secrets']) });
  } catch (err) {
    if (err instanceof SourceError) fail(`cannot read the account: ${err.message}`, 1);
    throw err;
  }
  const out = resolve(values.out);
  try {
    mkdirSync(dirname(out), { recursive: true });
    const temp = `${out}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(built.state, null, 2) + '\n', { mode: 0o600 });
    renameSync(temp, out);
  } catch (err) {
    fail(`cannot write ${out}: ${(err as Error).message}`);
  }
  const instances = built.state.accounts[0]!.instances.length;
  log(
    `tusk import: ${source.reads.length} GET requests${source.rateLimited ? `, ${source.rateLimited} answered 429 and waited out` : ''}`,
  );
  log('tusk import: not carried, or only in part:');
  for (const line of built.report) log(`  - ${line}`);
  for (const [role, key] of Object.entries(built.keys)) log(`tusk import: ${`${role} key`.padEnd(20)} ${key}`);
  log(`tusk import: wrote ${out} (${instances} instances); serve it with: tusk serve --state ${out}`);
}
