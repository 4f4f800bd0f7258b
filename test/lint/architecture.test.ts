// ARCHITECTURE.md cannot drift: every path it gives exists; every name it gives in backticks is
// exported by a module of src/ (or, written `Name.member`, is a member of an exported name, found
// in the module that exports it); and the six rules it traces are each walked in at most six files,
// each step's file holding the name the step gives, so that a reader finds the rule at the first
// place named.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';

const TEXT = readFileSync(join(PROJECT_ROOT, 'ARCHITECTURE.md'), 'utf8');
const SRC = join(PROJECT_ROOT, 'src');

/** Every hand-written module of src/, by its path from the project root. */
function sources(dir = SRC): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'generated') for (const [p, t] of sources(path)) files.set(p, t);
    else if (entry.name.endsWith('.ts')) files.set(relative(PROJECT_ROOT, path), readFileSync(path, 'utf8'));
  }
  return files;
}

const SOURCES = sources();

/** The names a module exports (declarations, and the lists of `export { ... }`). */
function exportsOf(text: string): Set<string> {
  const names = new Set<string>();
  const declared =
    /export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\*?|class|interface|type|const|let|enum)\s+([A-Za-z_$][\w$]*)/g;
  for (const [, name] of text.matchAll(declared)) names.add(name!);
  for (const [, list] of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g))
    for (const item of list!.split(','))
      names.add(
        item
          .trim()
          .replace(/^type\s+/, '')
          .split(/\s+as\s+/)
          .at(-1)!,
      );
  names.delete('');
  return names;
}

const EXPORTERS = new Map<string, string[]>();
for (const [path, text] of SOURCES)
  for (const name of exportsOf(text)) EXPORTERS.set(name, [...(EXPORTERS.get(name) ?? []), path]);

/** The paths named in backticks, with a project folder in front or as a file of src/ (`accounts/home.ts`). */
function namedPaths(text: string): string[] {
  const paths = new Set<string>();
  for (const [, raw] of text.matchAll(/`([\w./-]+\.(?:ts|yaml|js|cjs|md|json))`/g)) {
    const path = raw!;
    if (/^(src|openapi|test|scripts|bench|contract-tests|fixtures|bin|\.ci|\.github)\//.test(path)) paths.add(path);
    else if (/^[\w-]+\/[\w./-]+$/.test(path) && existsSync(join(SRC, path.split('/')[0]!))) paths.add(`src/${path}`);
    else if (!path.includes('/')) paths.add(path);
  }
  return [...paths];
}

/** The names given in backticks: an identifier, or `Name.member`. */
function namedNames(text: string): string[] {
  const names = new Set<string>();
  for (const [, raw] of text.matchAll(/`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)?)`/g)) names.add(raw!);
  return [...names];
}

/** Whether `name` (or `Name.member`) is exported by a module of src/. */
function exists(name: string): boolean {
  const [head, member] = name.split('.') as [string, string | undefined];
  const where = EXPORTERS.get(head);
  if (!where) return false;
  return member === undefined || where.some((p) => new RegExp(`\\b${member}\\b`).test(SOURCES.get(p)!));
}

/** The six walks: the paragraphs after "## Six rules", up to the next section. */
const WALKS = TEXT.slice(TEXT.indexOf('## Six rules'), TEXT.indexOf('\n## ', TEXT.indexOf('## Six rules') + 1))
  .split(/\n\*\*/)
  .slice(1);

describe('ARCHITECTURE.md', () => {
  it('names only files that exist', () => {
    const paths = namedPaths(TEXT);
    expect(paths.length).toBeGreaterThan(40);
    expect(paths.filter((p) => !existsSync(join(PROJECT_ROOT, p)))).toStrictEqual([]);
  });

  it('names only what a module of src/ exports (or a member of it)', () => {
    const names = namedNames(TEXT);
    expect(names.length).toBeGreaterThan(40);
    expect(names.filter((n) => !exists(n))).toStrictEqual([]);
  });

  it('refuses a name no module exports and a path that does not exist (the check bites)', () => {
    expect(exists('AccountHome')).toBe(true);
    expect(exists('AccountHome.dump')).toBe(true);
    expect(exists('AccountHome.noSuchMember')).toBe(false);
    expect(exists('noSuchExport')).toBe(false);
    expect(namedPaths('`src/no/such/file.ts`').filter((p) => !existsSync(join(PROJECT_ROOT, p)))).toHaveLength(1);
  });

  it('walks each of the six rules in at most six files, each holding what its step names', () => {
    expect(WALKS).toHaveLength(6);
    for (const walk of WALKS) {
      const files = new Set(namedPaths(walk).filter((p) => p.startsWith('src/') || p.startsWith('openapi/')));
      expect(files.size, walk.slice(0, 60)).toBeLessThanOrEqual(6);
      // A step: "N. `file`, `name`: ..." or "N. `file`: `name` ..." — the name is in the file.
      const steps = [...walk.matchAll(/\d\. `([\w./-]+)`[,:] `([\w.]+)`/g)];
      expect(steps.length, walk.slice(0, 60)).toBeGreaterThanOrEqual(2);
      for (const [, file, name] of steps) {
        const path = namedPaths(`\`${file}\``)[0]!;
        const source = readFileSync(join(PROJECT_ROOT, path), 'utf8');
        expect(source, `${path} holds ${name}`).toMatch(new RegExp(`\\b${name!.split('.').at(-1)}\\b`));
      }
    }
  });
});
