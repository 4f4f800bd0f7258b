#!/usr/bin/env node
// npm run build: everything dist/ holds, in one process, one line per step with its time:
//   compile       src/, fixtures/, contract-tests/ (not the tests) -> dist/ as JavaScript (esbuild,
//                 types stripped file by file, as vitest runs them; tsc checks them in npm test)
//   documents     dist/openapi/{customer,instance}.{json,yaml}, bundled by @redocly/openapi-core's API
//   validators    dist/openapi/<name>.validators.cjs, precompiled Ajv code (src/openapi/precompile.ts)
//   renderer      dist/vendor/redoc/, the API reference renderer (the pinned devDependency redoc)
//   declarations  dist/**/*.d.ts for the package's type exports (tsc); not needed to start
//   cli           dist/tusk.cjs, the `tusk` command as one file, and its code cache (scripts/bundle-cli.js)
// then the stamp that lets `npm start` skip an unchanged build:
//   node scripts/build.js                 all of it (npm run build, npm test, npm pack)
//   node scripts/build.js --if-changed    what `tusk serve` needs (all but the declarations), and only
//                                         when an input changed since the last build (npm start)
//   node scripts/build.js --check         only say whether the build is up to date (exit 0) or not (exit 1)
//   node scripts/build.js STEP...         these steps only, e.g. `compile documents` (npm run bundle)
//
// The stamp (issue 20): a SHA-256 over the content of every input (src/, fixtures/, contract-tests/,
// openapi/, the build scripts, the TypeScript configs, package.json and package-lock.json; and the
// Node version, since the build saves V8's code for the start) is compared with the one the last
// build left in dist/.build-stamp. Equal: the build is skipped (a second `npm start` on an unchanged
// tree starts at once). Content, not times, decides, so a checkout or a copy that changes mtimes but
// not files does not rebuild, and an edit always does.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NODE_COMPILE_CACHE } from '../bin/bundle-loader.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const requireHere = createRequire(import.meta.url);
const fromDist = (path) => import(pathToFileURL(join(dist, path)).href);

/** The oldest Node of package.json's engines (`^20.19.0 || >=22.12.0` -> node20.19): what the output must run on. */
const NODE_TARGET = `node${/\d+\.\d+/.exec(JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node)[0]}`;

/** The sources tsconfig.build.json compiles: every .ts under these folders but the tests. */
const SOURCE_DIRS = ['src', 'fixtures', 'contract-tests'];

function sources(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')
      ? [path]
      : [];
  });
}

const STEPS = {
  async compile() {
    const { build } = await import('esbuild');
    const entryPoints = SOURCE_DIRS.flatMap((d) => sources(join(root, d)));
    // Types stripped per file (the tsconfig has isolatedModules and verbatimModuleSyntax, so each
    // file compiles alone), same folders and names as tsc's outDir.
    await build({
      entryPoints,
      outdir: dist,
      outbase: root,
      format: 'esm',
      platform: 'node',
      target: NODE_TARGET,
      sourcemap: true,
      logLevel: 'warning',
      tsconfig: join(root, 'tsconfig.json'),
    });
    return `${entryPoints.length} files`;
  },
  async documents() {
    const { INTERFACES, writeBundle } = await fromDist('src/openapi/documents.js');
    for (const name of INTERFACES) await writeBundle(name);
    return 'dist/openapi/{customer,instance}.{json,yaml}';
  },
  async validators() {
    const { loadDocuments, INTERFACES } = await fromDist('src/openapi/documents.js');
    const { writePrecompiledValidators } = await fromDist('src/openapi/precompile.js');
    const documents = await loadDocuments();
    let n = 0;
    for (const name of INTERFACES) n += await writePrecompiledValidators(name, documents[name]);
    return `${n} validators`;
  },
  renderer() {
    // Copied, so that a packed or installed tusk-mock serves /docs without depending on redoc.
    let from;
    try {
      from = dirname(requireHere.resolve('redoc/package.json'));
    } catch {
      throw new Error('the redoc package is not installed (run npm ci)');
    }
    const to = join(dist, 'vendor', 'redoc');
    rmSync(to, { recursive: true, force: true });
    mkdirSync(join(to, 'bundles'), { recursive: true });
    for (const file of ['LICENSE', 'bundles/redoc.standalone.js', 'bundles/redoc.standalone.js.LICENSE.txt'])
      copyFileSync(join(from, file), join(to, file));
    // Only what the server reads (the version) and the licence: not an installable package.
    const { name, version, license, homepage } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
    writeFileSync(join(to, 'package.json'), JSON.stringify({ name, version, license, homepage }, null, 2) + '\n');
    return `redoc ${version}`;
  },
  declarations() {
    execFileSync(
      process.execPath,
      [requireHere.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--emitDeclarationOnly'],
      {
        cwd: root,
        stdio: 'inherit',
      },
    );
    return 'dist/**/*.d.ts';
  },
  async cli() {
    const { bundleCli } = await import('./bundle-cli.js');
    return bundleCli(NODE_TARGET);
  },
  stamp() {
    writeFileSync(join(dist, '.build-stamp'), inputsHash() + '\n');
    return 'dist/.build-stamp';
  },
};

const INPUT_DIRS = ['src', 'fixtures', 'contract-tests', 'openapi'];
const INPUT_FILES = [
  'scripts/build.js',
  'scripts/bundle-cli.js',
  'bin/bundle-loader.js',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
];
/** What a start needs built (the hand-made code cache: Node 20 only, see bin/bundle-loader.js). */
const OUTPUTS = [
  'dist/src/cli.js',
  'dist/tusk.cjs',
  ...(NODE_COMPILE_CACHE ? [] : ['dist/tusk.cjs.cache']),
  'dist/openapi/customer.json',
  'dist/openapi/instance.json',
  'dist/vendor',
];

function files(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : entry.isFile() ? [path] : [];
  });
}

/** The hash of every input's path and content, and of the Node that builds (the code cache is V8's). */
export function inputsHash(base = root) {
  const hash = createHash('sha256').update(`node ${process.version} ${process.arch}\0`);
  const all = [
    ...INPUT_DIRS.flatMap((d) => (existsSync(join(base, d)) ? files(join(base, d)) : [])),
    ...INPUT_FILES.map((f) => join(base, f)).filter((f) => existsSync(f) && statSync(f).isFile()),
  ];
  for (const file of all.map((f) => relative(base, f)).sort()) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(base, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

/** Whether what a start needs is built from the current inputs. */
export function upToDate(base = root) {
  if (!OUTPUTS.every((o) => existsSync(join(base, o)))) return false;
  const stamp = join(base, 'dist', '.build-stamp');
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === inputsHash(base);
}

/** Runs the steps in order, one line each: `build: compile      0.4 s  111 files`. */
export async function build(steps = Object.keys(STEPS), log = (line) => console.log(line)) {
  const width = Math.max(...steps.map((s) => s.length));
  const all = performance.now();
  for (const step of steps) {
    const started = performance.now();
    const what = await STEPS[step]();
    log(`build: ${step.padEnd(width)}  ${((performance.now() - started) / 1000).toFixed(1)} s  ${what}`);
  }
  return (performance.now() - all) / 1000;
}

/** What `tusk serve` needs: every step but the package's type declarations. */
export const START_STEPS = Object.keys(STEPS).filter((s) => s !== 'declarations');

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const named = args.filter((a) => !a.startsWith('--'));
  const unknown = named.filter((s) => !(s in STEPS));
  if (unknown.length) {
    console.error(`build: unknown step ${unknown.join(', ')} (steps: ${Object.keys(STEPS).join(', ')})`);
    process.exit(2);
  }
  if (args.includes('--check')) {
    const ok = upToDate();
    console.log(ok ? 'build: up to date' : 'build: out of date');
    process.exit(ok ? 0 : 1);
  }
  if (args.includes('--if-changed') && upToDate()) {
    console.log('build: up to date, skipped');
    process.exit(0);
  }
  const steps = named.length ? named : args.includes('--if-changed') ? START_STEPS : Object.keys(STEPS);
  try {
    const seconds = await build(steps);
    if (steps.length > 1)
      console.log(`build: done in ${seconds.toFixed(1)} s (${relative(process.cwd(), dist) || '.'})`);
  } catch (err) {
    console.error(`build: ${err.message}`);
    process.exit(1);
  }
  process.exit(0); // the warm-up server of the cli step
}
