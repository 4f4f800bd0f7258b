// Where the bench finds what it runs: the project's root, bench/, the built CLI, the built documents
// (which Prism serves too) and Prism itself.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BENCH = join(ROOT, 'bench');
export const TUSK_BIN = join(ROOT, 'bin', 'tusk.js');
export const PRISM_JS = join(ROOT, 'node_modules', '@stoplight', 'prism-cli', 'dist', 'index.js');
export const INSTANCE_DOC = join(ROOT, 'dist', 'openapi', 'instance.yaml');
export const CUSTOMER_DOC = join(ROOT, 'dist', 'openapi', 'customer.yaml');
