#!/usr/bin/env node
// `npm start` builds only when what the build reads has changed (issue 20): a SHA-256 over the
// content of every input (src/, fixtures/, contract-tests/, openapi/, the build scripts, the
// TypeScript configs, package.json and package-lock.json; and the Node version, since the build
// saves V8's code for the start, see scripts/bundle-cli.js) is compared with the stamp the last
// build left in dist/.build-stamp. Equal: the build is skipped (a second `npm start` on an
// unchanged tree starts at once). Different or missing: `npm run build`, then a new stamp. Content,
// not times, decides, so a checkout or a copy that changes mtimes but not files does not rebuild,
// and an edit always does.
//   node scripts/build-if-changed.js          build when needed
//   node scripts/build-if-changed.js --check  only say whether the build is up to date (exit 0) or not (exit 1)
//   node scripts/build-if-changed.js --stamp  record the inputs as built (the end of `npm run build`)
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = join(root, 'dist', '.build-stamp');
const INPUT_DIRS = ['src', 'fixtures', 'contract-tests', 'openapi'];
const INPUT_FILES = ['scripts/bundle.js', 'scripts/bundle-cli.js', 'scripts/vendor.js', 'scripts/validators.js', 'tsconfig.json', 'tsconfig.build.json', 'package.json', 'package-lock.json'];
/** What the build produces and what it needs to be there for a start. */
const OUTPUTS = ['dist/src/cli.js', 'dist/tusk.cjs', 'dist/tusk.cjs.cache', 'dist/openapi/customer.json', 'dist/openapi/instance.json', 'dist/vendor'];

function files(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...files(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

/** The hash of every input's path and content, and of the Node that builds (dist/tusk.cjs.cache is V8's code). */
export function inputsHash(base = root) {
  const hash = createHash('sha256').update(`node ${process.version} ${process.arch}\0`);
  const all = [...INPUT_DIRS.flatMap((d) => (existsSync(join(base, d)) ? files(join(base, d)) : [])), ...INPUT_FILES.map((f) => join(base, f)).filter((f) => existsSync(f) && statSync(f).isFile())];
  for (const file of all.map((f) => relative(base, f)).sort()) {
    hash.update(file).update('\0').update(readFileSync(join(base, file))).update('\0');
  }
  return hash.digest('hex');
}

export function upToDate(base = root) {
  if (!OUTPUTS.every((o) => existsSync(join(base, o)))) return false;
  return existsSync(join(base, 'dist', '.build-stamp')) && readFileSync(join(base, 'dist', '.build-stamp'), 'utf8').trim() === inputsHash(base);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--stamp')) {
    writeFileSync(STAMP, inputsHash() + '\n');
    process.exit(0);
  }
  if (process.argv.includes('--check')) {
    const ok = upToDate();
    console.log(ok ? 'build: up to date' : 'build: out of date');
    process.exit(ok ? 0 : 1);
  }
  if (upToDate()) {
    console.log('build: up to date, skipped (scripts/build-if-changed.js)');
  } else {
    execFileSync('npm', ['run', '-s', 'build'], { cwd: root, stdio: 'inherit' }); // ends with --stamp
  }
}
