// `tusk docs`: writes the API reference of both interfaces as static HTML for publishing.
import { join, resolve } from 'node:path';
import { INTERFACES } from '../openapi/documents.js';
import { fail } from './fail.js';
import { helpOf, readFlags, UsageError } from './flags.js';
import { DOCS } from './tables/index.js';

export const DOCS_HELP = helpOf(DOCS);

export async function docsCommand(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = readFlags(DOCS, args));
  } catch (err) {
    if (err instanceof UsageError) fail(`${err.message}\n\n${DOCS_HELP}`);
    throw err;
  }
  if (values.help) {
    process.stdout.write(DOCS_HELP);
    return;
  }
  const out = resolve((values.out as string | undefined) ?? 'dist/docs');
  let files: string[];
  try {
    // Loaded by the commands that use them: `tusk serve` starts without them.
    const { buildStaticDocs } = await import('../docs/static.js');
    files = await buildStaticDocs(out);
  } catch (err) {
    fail((err as Error).message);
  }
  for (const api of INTERFACES) console.log(`tusk: ${api} reference  ${join(out, api, 'index.html')}`);
  console.log(`tusk: ${files.length} files in ${out}`);
}
