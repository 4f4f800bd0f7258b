// ARCHITECTURE.md stays true: every file it names exists, and in the walks of the four rules each
// step's file holds the function or constant the step names, so that a reader finds the rule at
// the first place named.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';

const TEXT = readFileSync(join(PROJECT_ROOT, 'ARCHITECTURE.md'), 'utf8');

/** The paths named in backticks, with `src/`, `openapi/`, `test/` or `scripts/` in front or as a file of src/ (`accounts/home.ts`). */
function namedPaths(text: string): string[] {
  const paths = new Set<string>();
  for (const [, raw] of text.matchAll(/`([\w./-]+\.(?:ts|yaml|js|md))`/g)) {
    const path = raw!;
    if (/^(src|openapi|test|scripts|bench|contract-tests|fixtures|bin)\//.test(path)) paths.add(path);
    else if (/^[\w-]+\/[\w.-]+$/.test(path) && existsSync(join(PROJECT_ROOT, 'src', path.split('/')[0]!)))
      paths.add(`src/${path}`);
  }
  return [...paths];
}

describe('ARCHITECTURE.md', () => {
  it('names only files that exist', () => {
    const paths = namedPaths(TEXT);
    expect(paths.length).toBeGreaterThan(30);
    expect(paths.filter((p) => !existsSync(join(PROJECT_ROOT, p)))).toStrictEqual([]);
  });

  it('walks each of the four rules in at most six files, each holding what its step names', () => {
    const walks = TEXT.slice(TEXT.indexOf('## Four rules'), TEXT.indexOf('## Where each kind of rule lives'))
      .split(/\n\*\*/)
      .slice(1);
    expect(walks).toHaveLength(4);
    for (const walk of walks) {
      const files = new Set(namedPaths(walk));
      expect(files.size, walk.slice(0, 60)).toBeLessThanOrEqual(6);
      // A step: "N. `file`, `name`: ..." or "N. `file`: `name` ..." — the name is in the file.
      for (const [, file, name] of walk.matchAll(/\d\. `([\w./-]+)`[,:] `([\w.]+)`/g)) {
        const source = readFileSync(join(PROJECT_ROOT, file!), 'utf8');
        expect(source, `${file} holds ${name}`).toContain(name!.split('.').at(-1));
      }
    }
  });
});
