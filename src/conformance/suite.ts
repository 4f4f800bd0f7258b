// The conformance suite's files and their groups: where the suite lives (contract-tests/), which
// files are tests, and what each does to the target (read-only, creates and removes, destructive),
// from its name. Used by the runner to select and order files and by the report to group results.
import { existsSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';
import { PROJECT_ROOT } from '../openapi/documents.js';

export type Group = 'read-only' | 'creates and removes' | 'destructive';

/** The group of a test file, from its name. */
export function groupOf(file: string): Group {
  if (/\.destructive\.test\.ts$/.test(file)) return 'destructive';
  if (/\.readonly\.test\.ts$/.test(file)) return 'read-only';
  return 'creates and removes';
}
export const SUITE_DIR = join(PROJECT_ROOT, 'contract-tests');

/** Every test file of the suite (not the harness's own tests), relative to contract-tests/. */
export function suiteFiles(dir = SUITE_DIR): string[] {
  if (!existsSync(dir)) return [];
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((f) => f.split(sep).join('/'))
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('harness/'))
    .sort();
}
