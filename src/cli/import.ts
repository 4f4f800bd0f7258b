// `tusk import`: its flags and their variables read by the table (tables/recordings.ts, IMPORT),
// then the import run as a command (src/import/cli.ts).
import { fail } from './command.js';
import { helpOf, readFlags, UsageError } from './flags.js';
import { IMPORT } from './tables/index.js';

export const IMPORT_HELP = helpOf(IMPORT);

export async function importCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = readFlags(IMPORT, args));
    if (!values.help)
      for (const name of ['customer-url', 'instance-url', 'api-key', 'out'])
        if (values[name] === undefined)
          throw new UsageError(`--${name} (or ${IMPORT.flags.find((f) => f.name === name)!.env}) is required`);
  } catch (err) {
    if (err instanceof UsageError) fail(`${err.message}\n\n${IMPORT_HELP}`, undefined, 'tusk import');
    throw err;
  }
  if (values.help) {
    process.stdout.write(IMPORT_HELP);
    return;
  }
  const str = (name: string) => values[name] as string;
  const { importCommand: run } = await import('../import/cli.js');
  await run({
    customerUrl: str('customer-url'),
    instanceUrl: str('instance-url'),
    apiKey: str('api-key'),
    out: str('out'),
    keepSecrets: values['keep-secrets'] === true,
    auditMonths: Number(values['audit-months'] ?? 12),
  });
}
