// bin/bundle-loader.js: the `tusk` command's bundle runs with V8's code cache only when the cache was
// made from the same bytes, and its package imports work when the code comes from a cache made by
// another process (on Node 20 a cached `import()` of its own fails there; scripts/bundle-cli.js).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const LOADER = pathToFileURL(join(__dirname, '..', '..', 'bin', 'bundle-loader.js')).href;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A bundle as scripts/bundle-cli.js writes them: CommonJS, packages through `__tusk_import`. */
function bundle(answer: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'tusk-bundle-'));
  dirs.push(dir);
  const file = join(dir, 'b.cjs');
  writeFileSync(
    file,
    `// a test bundle\nexports.answer = () => ${JSON.stringify(answer)};\n` +
      `exports.yamlOf = async (v) => (await __tusk_import('yaml')).stringify(v).trim();\n` +
      `exports.where = () => __filename;\n`,
  );
  return file;
}

/** Runs `body` in a new Node process with `loadBundle` imported; prints what `body` resolves to, as JSON. */
function inNewProcess(body: string): unknown {
  const code = `import { loadBundle } from ${JSON.stringify(LOADER)};\nconst out = await (async () => { ${body} })();\nconsole.log(JSON.stringify(out));`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8' }).trim().split('\n').at(-1) as string);
}

describe('the bundle loader', () => {
  it('runs a bundle without a cache, then with the cache it saved, and gives it its own file name', () => {
    const file = bundle('first');
    expect(inNewProcess(`const b = loadBundle(${JSON.stringify(file)}); b.saveCache(); return [b.cached, b.exports.answer(), b.exports.where()];`)).toEqual([false, 'first', file]);
    expect(inNewProcess(`const b = loadBundle(${JSON.stringify(file)}); return [b.cached, b.exports.answer()];`)).toEqual([true, 'first']);
  });

  it('does not use a cache made from other bytes, even of the same length', () => {
    const file = bundle('first');
    inNewProcess(`loadBundle(${JSON.stringify(file)}).saveCache(); return null;`);
    const cache = readFileSync(`${file}.cache`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('first', 'other')); // same length: V8's own check would pass it
    expect(inNewProcess(`const b = loadBundle(${JSON.stringify(file)}); return [b.cached, b.exports.answer()];`)).toEqual([false, 'other']);
    expect(readFileSync(`${file}.cache`).equals(cache)).toBe(true); // a start never writes the cache
  });

  it('imports packages from code compiled out of a cache that another process made', () => {
    const file = bundle('first');
    // The first process never runs yamlOf, the second compiles it from the cache and runs it.
    inNewProcess(`loadBundle(${JSON.stringify(file)}).saveCache(); return null;`);
    expect(inNewProcess(`const b = loadBundle(${JSON.stringify(file)}); return [b.cached, await b.exports.yamlOf({ a: 1 })];`)).toEqual([true, 'a: 1']);
  });
});

describe('npm run build', () => {
  it('leaves a bundle whose code cache a new process takes, so that `tusk` starts without compiling', () => {
    expect(inNewProcess('const b = loadBundle(); return [b.cached, typeof b.exports.main];')).toEqual([true, 'function']);
  });
});
