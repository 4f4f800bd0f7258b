// `tusk import`: its flags and their variables read by the table (tables/recordings.ts, IMPORT),
// then the import run as a command (src/import/cli.ts).
import { readCommand, required } from './command.js';
import { helpOf } from './flags.js';
import { IMPORT } from './tables/index.js';

export const IMPORT_HELP = helpOf(IMPORT);

export async function importCommand(args: string[]): Promise<void> {
  const values = readCommand(
    IMPORT,
    args,
    required(IMPORT, ['customer-url', 'instance-url', 'api-key', 'out']),
    'tusk import',
  );
  if (!values) return;
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
