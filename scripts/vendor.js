#!/usr/bin/env node
// Part of npm run build: copies the API reference renderer (the pinned devDependency redoc) into
// dist/vendor/redoc/, so a packed or installed tusk-mock serves /docs without depending on it.
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
let from;
try {
  from = dirname(createRequire(join(root, 'package.json')).resolve('redoc/package.json'));
} catch {
  console.error('vendor: the redoc package is not installed (run npm ci)');
  process.exit(1);
}
const to = join(root, 'dist', 'vendor', 'redoc');
rmSync(to, { recursive: true, force: true });
mkdirSync(join(to, 'bundles'), { recursive: true });
for (const file of ['LICENSE', 'bundles/redoc.standalone.js', 'bundles/redoc.standalone.js.LICENSE.txt']) {
  copyFileSync(join(from, file), join(to, file));
}
// Only what the server reads (the version) and the licence: not an installable package.
const { name, version, license, homepage } = JSON.parse(readFileSync(join(from, 'package.json'), 'utf8'));
writeFileSync(join(to, 'package.json'), JSON.stringify({ name, version, license, homepage }, null, 2) + '\n');
console.log('dist/vendor/redoc/bundles/redoc.standalone.js');
