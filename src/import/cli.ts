// `tusk import`: reads one account of a deployment through its public API (GET requests only) and
// writes a state file that `tusk serve --state FILE` serves (account.ts reads, state.ts builds),
// then prints what could not be carried. Exit code 0 when the file was written, 1 when the account
// could not be read (its instance list), 2 for a usage error or a file that cannot be written.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { readAccount } from './account.js';
import { Source, SourceError } from './source.js';
import { buildState } from './state.js';

/** The command's flags, read by the `tusk` command from its table (src/cli/tables/recordings.ts, IMPORT). */
export interface ImportCommandOptions {
  customerUrl: string;
  instanceUrl: string;
  apiKey: string;
  out: string;
  keepSecrets: boolean;
  auditMonths: number;
}

function fail(message: string, code = 2): never {
  console.error(`tusk import: ${message}`);
  process.exit(code);
}

export async function importCommand(values: ImportCommandOptions): Promise<void> {
  const customerUrl = values.customerUrl.replace(/\/+$/, '');
  const instanceUrl = values.instanceUrl.replace(/\/+$/, '');
  const { apiKey } = values;
  const log = (line: string) => console.log(line);
  const source = new Source({ customerUrl, instanceUrl, apiKey, log });
  log(`tusk import: reading ${customerUrl} and ${instanceUrl} (GET requests only)`);
  let built;
  try {
    const read = await readAccount(source, { auditMonths: values.auditMonths, log });
    built = buildState(read, { apiKey, keepSecrets: values.keepSecrets });
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
