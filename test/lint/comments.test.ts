// Comments in src/ say what a thing is for, not how it came to be: no "issue N" (the tracker's
// history) and no pointer to BENCHMARKS.md (the measured figures live there, and the one place that
// explains the request path's speed tricks, src/http/fast-path.ts, may point to it).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';

/** "issue 18", "issues 18", "issue #18", and "issue" at a line's end with its number on the next comment line. */
const ISSUE = /\bissues?[\s/*#]*\d+/i;
const BENCHMARKS = /BENCHMARKS\.md/;

/** The one file that may point to BENCHMARKS.md. */
const MAY_POINT_TO_BENCHMARKS = new Set(['src/http/fast-path.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|ya?ml|js|json)$/.test(e.name) ? [relative(PROJECT_ROOT, path).split(sep).join('/')] : [];
  });
}

/** Each line of `file` matching `pattern`, as `file:line: text` (a match across a line break names its first line). */
function hits(file: string, pattern: RegExp): string[] {
  const text = readFileSync(join(PROJECT_ROOT, file), 'utf8');
  const global = new RegExp(pattern.source, `${pattern.flags}g`);
  return [...text.matchAll(global)].map((m) => {
    const line = text.slice(0, m.index).split('\n').length;
    return `${file}:${line}: ${text.split('\n')[line - 1]!.trim()}`;
  });
}

describe('comments in src/', () => {
  const files = sourceFiles(join(PROJECT_ROOT, 'src'));

  it('finds the sources it checks', () => {
    expect(files).toContain('src/resources/instances/instance-resources.ts');
    expect(files).toContain('src/control/control.openapi.yaml');
    expect(files.length).toBeGreaterThan(50);
  });

  it('name no issue of the tracker (they say what a thing is for, not its history)', () => {
    expect(files.flatMap((f) => hits(f, ISSUE))).toEqual([]);
  });

  it('point to BENCHMARKS.md only from src/http/fast-path.ts', () => {
    expect(files.filter((f) => !MAY_POINT_TO_BENCHMARKS.has(f)).flatMap((f) => hits(f, BENCHMARKS))).toEqual([]);
  });

  it('the patterns catch the forms an issue and the benchmarks are written in', () => {
    for (const text of [
      '(issue 18)',
      'issues 18 and 20',
      'Issue #31',
      '(issue\n// 31: an offset',
      'fixed in issue\n * 20',
    ])
      expect(text).toMatch(ISSUE);
    for (const text of ['an issue of the spec', 'nodejs/node#34661', 'issues a key']) expect(text).not.toMatch(ISSUE);
    expect('(BENCHMARKS.md, issue 20)').toMatch(BENCHMARKS);
  });
});
