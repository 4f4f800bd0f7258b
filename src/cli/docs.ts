// `tusk docs`: writes the API reference of both interfaces as static HTML for publishing.
import { join, resolve } from 'node:path';
import { INTERFACES } from '../openapi/documents.js';
import { fail, readCommand } from './command.js';
import { DOCS } from './tables/index.js';

export async function docsCommand(args: string[]): Promise<void> {
  const values = readCommand(DOCS, args);
  if (!values) return;
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
