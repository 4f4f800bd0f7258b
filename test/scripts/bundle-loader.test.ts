// bin/bundle-loader.js: the `tusk` command's bundle runs with V8's code cache. On Node 20 (the cache
// made by hand) only when the cache was made from the same bytes, and its package imports work when
// the code comes from a cache made by another process (a cached `import()` of its own fails there;
// scripts/bundle-cli.js). On Node 22 and later through Node's own compile cache.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

// @ts-expect-error -- a plain JavaScript module without types
import { BANNER, NODE_COMPILE_CACHE } from '../../bin/bundle-loader.js';

const LOADER = pathToFileURL(join(__dirname, '..', '..', 'bin', 'bundle-loader.js')).href;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A bundle as scripts/bundle-cli.js writes them: CommonJS, packages through `__tusk_import`. */
function bundle(answer: string): string {
  // In the project, as dist/tusk.cjs is: its packages resolve from the project's node_modules.
  const dir = mkdtempSync(join(__dirname, '..', '..', 'dist', 'test-bundle-'));
  dirs.push(dir);
  const file = join(dir, 'b.cjs');
  writeFileSync(
    file,
    `${BANNER as string}exports.answer = () => ${JSON.stringify(answer)};\n` +
      `exports.yamlOf = async (v) => (await __tusk_import('yaml')).stringify(v).trim();\n` +
      `exports.where = () => __filename;\n`,
  );
  return file;
}

/** Runs `body` in a new Node process with `loadBundle` imported; prints what `body` resolves to, as JSON. */
function inNewProcess(body: string, env: NodeJS.ProcessEnv = process.env): unknown {
  const code = `import { loadBundle } from ${JSON.stringify(LOADER)};\nconst out = await (async () => { ${body} })();\nconsole.log(JSON.stringify(out));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', env })
      .trim()
      .split('\n')
      .at(-1) as string,
  );
}

/** Runs `body` as inNewProcess does, with Node's compile cache in `dir`; returns its result and what Node said of the cache. */
function withCompileCache(dir: string, body: string): { out: unknown; log: string } {
  const code = `import { loadBundle } from ${JSON.stringify(LOADER)};\nconst out = await (async () => { ${body} })();\nconsole.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    env: { ...process.env, NODE_COMPILE_CACHE: dir, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
  });
  if (r.status !== 0) throw new Error(r.stderr);
  const lines = r.stdout.trim().split('\n');
  return {
    out: JSON.parse(lines.filter((l) => !l.startsWith('[compile cache]')).at(-1) as string),
    log: r.stdout + r.stderr,
  };
}

describe.runIf(NODE_COMPILE_CACHE)('the bundle loader on Node 22 and later', () => {
  it("uses Node's compile cache: a second process takes the code the first one compiled", () => {
    const file = bundle('first');
    const cache = mkdtempSync(join(tmpdir(), 'tusk-compile-cache-'));
    dirs.push(cache);
    const first = withCompileCache(
      cache,
      `const b = loadBundle(${JSON.stringify(file)}); b.saveCache(); return [b.exports.answer(), b.exports.where(), await b.exports.yamlOf({ a: 1 })];`,
    );
    expect(first.out).toEqual(['first', file, 'a: 1']);
    const second = withCompileCache(cache, `const b = loadBundle(${JSON.stringify(file)}); return b.exports.answer();`);
    expect(second.out).toBe('first');
    // Node 22: "cache for FILE was accepted"; Node 24: "V8 code cache for CommonJS FILE was accepted".
    expect(
      second.log
        .split('\n')
        .some(
          (l) => l.includes(`cache for ${file} was accepted`) || l.includes(`cache for CommonJS ${file} was accepted`),
        ),
    ).toBe(true);
  });

  it('leaves no hand-made cache beside the bundle of npm run build (that one is for Node 20)', () => {
    expect(existsSync(join(__dirname, '..', '..', 'dist', 'tusk.cjs.cache'))).toBe(false);
  });
});

describe.skipIf(NODE_COMPILE_CACHE)('the bundle loader on Node 20', () => {
  it('runs a bundle without a cache, then with the cache it saved, and gives it its own file name', () => {
    const file = bundle('first');
    expect(
      inNewProcess(
        `const b = loadBundle(${JSON.stringify(file)}); b.saveCache(); return [b.cached, b.exports.answer(), b.exports.where()];`,
      ),
    ).toEqual([false, 'first', file]);
    expect(
      inNewProcess(`const b = loadBundle(${JSON.stringify(file)}); return [b.cached, b.exports.answer()];`),
    ).toEqual([true, 'first']);
  });

  it('does not use a cache made from other bytes, even of the same length', () => {
    const file = bundle('first');
    inNewProcess(`loadBundle(${JSON.stringify(file)}).saveCache(); return null;`);
    const cache = readFileSync(`${file}.cache`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('first', 'other')); // same length: V8's own check would pass it
    expect(
      inNewProcess(`const b = loadBundle(${JSON.stringify(file)}); return [b.cached, b.exports.answer()];`),
    ).toEqual([false, 'other']);
    expect(readFileSync(`${file}.cache`).equals(cache)).toBe(true); // a start never writes the cache
  });

  it('imports packages from code compiled out of a cache that another process made', () => {
    const file = bundle('first');
    // The first process never runs yamlOf, the second compiles it from the cache and runs it.
    inNewProcess(`loadBundle(${JSON.stringify(file)}).saveCache(); return null;`);
    expect(
      inNewProcess(
        `const b = loadBundle(${JSON.stringify(file)}); return [b.cached, await b.exports.yamlOf({ a: 1 })];`,
      ),
    ).toEqual([true, 'a: 1']);
  });
});

describe.skipIf(NODE_COMPILE_CACHE)('npm run build on Node 20', () => {
  it('leaves a bundle whose code cache a new process takes, so that `tusk` starts without compiling', () => {
    expect(inNewProcess('const b = loadBundle(); return [b.cached, typeof b.exports.main];')).toEqual([
      true,
      'function',
    ]);
  });
});
