// src/openapi/documents.ts: when the prebuilt bundle is read and when the sources are bundled again,
// what a document that does not bundle says, and the fall-back when the bundle cannot be written.
// The project folder is redirected to a temporary copy (node:fs mocked), and Redocly's bundler is
// replaced by a stub, so the tests are quick and touch neither openapi/ nor dist/.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { OPENAPI_DIR, PROJECT_ROOT, bundleDocument, loadDocument } from '../../src/openapi/documents.js';

interface Problem {
  severity: string;
  message: string;
}

const state = vi.hoisted(() => ({
  /** Paths under `from` are read and written under `to` instead (off while `from` is empty). */
  from: '',
  to: '',
  /** The code of the error writing under `from` fails with, if any. */
  writeError: undefined as string | undefined,
  /** Makes existsSync answer false everywhere. */
  nothingExists: false,
  bundled: [] as string[],
  result: { problems: [] as Problem[], bundle: { parsed: {} as unknown } },
}));

vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  const under = (p: unknown): p is string =>
    typeof p === 'string' && state.from !== '' && (p === state.from || p.startsWith(state.from + '/'));
  const at = (p: unknown) => (under(p) ? state.to + p.slice(state.from.length) : p);
  type Fn = (...args: unknown[]) => unknown;
  const redirected =
    (fn: unknown, write = false) =>
    (p: unknown, ...rest: unknown[]) => {
      if (write && under(p) && state.writeError) {
        throw Object.assign(new Error(`${state.writeError}: cannot write ${p}`), { code: state.writeError });
      }
      return (fn as Fn)(at(p), ...rest);
    };
  return {
    ...fs,
    existsSync: (p: unknown) => !state.nothingExists && fs.existsSync(at(p) as string),
    readFileSync: redirected(fs.readFileSync),
    readdirSync: redirected(fs.readdirSync),
    statSync: redirected(fs.statSync),
    mkdirSync: redirected(fs.mkdirSync),
    writeFileSync: redirected(fs.writeFileSync, true),
  };
});

vi.mock('@redocly/openapi-core', () => ({
  createConfig: async () => ({}),
  bundle: async ({ ref }: { ref: string }) => {
    state.bundled.push(ref);
    return state.result;
  },
}));

const SOURCES_TIME = 1_700_000_000;
const PREBUILT = { openapi: '3.1.0', info: { title: 'prebuilt', version: '1' }, paths: {} };
const FRESH = { openapi: '3.1.0', info: { title: 'fresh', version: '2' }, paths: {} };

let root: string;

/** Writes a file of the temporary project (if new) and sets its modification time, in seconds. */
function file(relative: string, seconds: number, content = 'x: 1\n'): void {
  const path = join(root, relative);
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
  utimesSync(path, seconds, seconds);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'tusk-documents-'));
  file('package.json', SOURCES_TIME, '{}\n');
  file('openapi/customer.yaml', SOURCES_TIME);
  file('openapi/instance.yaml', SOURCES_TIME);
  file('openapi/instance/alarms.yaml', SOURCES_TIME);
  file('openapi/lint/rules.yml', SOURCES_TIME);
  file('openapi/CONVENTIONS.md', SOURCES_TIME);
  file('dist/openapi/customer.json', SOURCES_TIME + 100, JSON.stringify(PREBUILT));
  state.from = PROJECT_ROOT;
  state.to = root;
  state.result = { problems: [], bundle: { parsed: structuredClone(FRESH) } };
});

afterEach(() => {
  state.from = '';
  state.writeError = undefined;
  state.nothingExists = false;
  state.bundled = [];
  rmSync(root, { recursive: true, force: true });
});

describe('loadDocument', () => {
  it('reads the prebuilt bundle when it is newer than every YAML source', async () => {
    expect(await loadDocument('customer')).toEqual(PREBUILT);
    expect(state.bundled).toEqual([]);
  });

  it('reads the prebuilt bundle when it is exactly as new as the newest source', async () => {
    file('openapi/instance/alarms.yaml', SOURCES_TIME + 100);
    expect(await loadDocument('customer')).toEqual(PREBUILT);
    expect(state.bundled).toEqual([]);
  });

  it('bundles again when a top-level source is newer, and refreshes the JSON and YAML bundles', async () => {
    file('openapi/customer.yaml', SOURCES_TIME + 200);
    expect(await loadDocument('customer')).toEqual(FRESH);
    expect(state.bundled).toEqual([join(OPENAPI_DIR, 'customer.yaml')]);
    expect(readFileSync(join(root, 'dist/openapi/customer.json'), 'utf8')).toBe(JSON.stringify(FRESH, null, 2) + '\n');
    expect(readFileSync(join(root, 'dist/openapi/customer.yaml'), 'utf8')).toContain('title: fresh');
  });

  it("writes the YAML bundle as Redocly does (YAML 1.1, single quotes, no folded lines) and the sources' hash on one line", async () => {
    const long = 'a description long enough that a YAML writer with a line width would fold it onto a second line '
      .repeat(2)
      .trim();
    state.result.bundle.parsed = {
      ...structuredClone(FRESH),
      info: { title: 'fresh', version: '2', description: long },
      'x-example': '2026-10-01T00:00:00Z',
    };
    file('openapi/customer.yaml', SOURCES_TIME + 200);
    await loadDocument('customer');
    const yaml = readFileSync(join(root, 'dist/openapi/customer.yaml'), 'utf8');
    // A YAML 1.1 reader (Prism's js-yaml) would read an unquoted timestamp as a date.
    expect(yaml).toContain("x-example: '2026-10-01T00:00:00Z'");
    expect(yaml).toContain(`description: ${long}\n`);
    // The hash of each YAML source's path under openapi/ and its content (a package unpacked in
    // another folder reads its bundle as fresh), sorted by path.
    const hash = createHash('sha256');
    for (const relative of ['/customer.yaml', '/instance.yaml', '/instance/alarms.yaml', '/lint/rules.yml']) {
      hash
        .update(relative)
        .update('\0')
        .update(readFileSync(join(root, 'openapi', relative)))
        .update('\0');
    }
    expect(readFileSync(join(root, 'dist/openapi/sources.sha256'), 'utf8')).toBe(`${hash.digest('hex')}\n`);
  });

  it('bundles again when a source in a subfolder is newer', async () => {
    file('openapi/instance/alarms.yaml', SOURCES_TIME + 200);
    expect(await loadDocument('customer')).toEqual(FRESH);
    expect(state.bundled).toHaveLength(1);
  });

  it('counts .yml sources too', async () => {
    file('openapi/extra.yml', SOURCES_TIME + 200);
    expect(await loadDocument('customer')).toEqual(FRESH);
    expect(state.bundled).toHaveLength(1);
  });

  it('ignores files that are not YAML', async () => {
    file('openapi/CONVENTIONS.md', SOURCES_TIME + 200);
    file('openapi/notes.yaml.txt', SOURCES_TIME + 200);
    expect(await loadDocument('customer')).toEqual(PREBUILT);
    expect(state.bundled).toEqual([]);
  });

  it('reads an older bundle made from sources of the same content (an installed package: every file has the time it was unpacked)', async () => {
    file('openapi/customer.yaml', SOURCES_TIME + 200);
    expect(await loadDocument('instance')).toEqual(FRESH); // bundles, and records the sources' hash
    state.bundled = [];
    file('dist/openapi/customer.json', SOURCES_TIME + 100, JSON.stringify(PREBUILT));
    file('openapi/instance/alarms.yaml', SOURCES_TIME + 300); // newer, same content
    expect(await loadDocument('customer')).toEqual(PREBUILT);
    expect(state.bundled).toEqual([]);
    writeFileSync(join(root, 'openapi/instance/alarms.yaml'), 'x: 2\n'); // other content
    expect(await loadDocument('customer')).toEqual(FRESH);
    expect(state.bundled).toHaveLength(1);
  });

  it('bundles when there is no prebuilt bundle, and writes it', async () => {
    expect(await loadDocument('instance')).toEqual(FRESH);
    expect(state.bundled).toEqual([join(OPENAPI_DIR, 'instance.yaml')]);
    expect(JSON.parse(readFileSync(join(root, 'dist/openapi/instance.json'), 'utf8'))).toEqual(FRESH);
  });

  it.each(['EACCES', 'EROFS'])(
    'still returns the bundled document when the bundle cannot be written (%s)',
    async (code) => {
      state.writeError = code;
      expect(await loadDocument('instance')).toEqual(FRESH);
      expect(existsSync(join(root, 'dist/openapi/instance.json'))).toBe(false);
    },
  );

  it('fails on any other error writing the bundle', async () => {
    state.writeError = 'ENOSPC';
    await expect(loadDocument('instance')).rejects.toMatchObject({ code: 'ENOSPC' });
  });
});

describe('bundleDocument', () => {
  it('names the errors of a document that does not bundle, not its warnings', async () => {
    state.result.problems = [
      { severity: 'error', message: "can't resolve $ref" },
      { severity: 'warn', message: 'just style' },
      { severity: 'error', message: 'duplicate key' },
    ];
    await expect(bundleDocument('instance')).rejects.toThrow(
      /^openapi\/instance\.yaml does not bundle: can't resolve \$ref; duplicate key$/,
    );
    await expect(loadDocument('instance')).rejects.toThrow('openapi/instance.yaml does not bundle');
  });

  it('returns the bundled document when there are only warnings', async () => {
    state.result.problems = [{ severity: 'warn', message: 'just style' }];
    expect(await bundleDocument('customer')).toEqual(FRESH);
    expect(state.bundled).toEqual([join(OPENAPI_DIR, 'customer.yaml')]);
  });
});

describe('PROJECT_ROOT', () => {
  it('is the folder above the source holding openapi/customer.yaml and package.json', () => {
    state.from = '';
    expect(existsSync(join(PROJECT_ROOT, 'openapi', 'customer.yaml'))).toBe(true);
    expect(existsSync(join(PROJECT_ROOT, 'package.json'))).toBe(true);
    expect(OPENAPI_DIR).toBe(join(PROJECT_ROOT, 'openapi'));
  });

  it('cannot be found when no folder above holds the documents', async () => {
    state.nothingExists = true;
    vi.resetModules();
    await expect(import('../../src/openapi/documents.js')).rejects.toThrow(
      /^cannot find the openapi\/ folder above \/.*documents\.[jt]s$/,
    );
  });
});
