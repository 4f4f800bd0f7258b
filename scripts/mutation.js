#!/usr/bin/env node
// npm run mutation, after the build: runs StrykerJS (stryker.config.mjs) over src/ in parts, one
// `stryker run --mutate <part>` each. Stryker writes its results only when a run ends; in parts,
// each part's results land in the incremental file (mutation/stryker-incremental.json) as soon as
// that part ends, so a stopped run loses at most one part, and the next run re-tests only what
// changed. Mutants outside a part's scope are carried over from the incremental file (Stryker's
// incremental differ keeps them), so the report the last part writes covers all of src/.
//
//   node scripts/mutation.js            every part, in order
//   node scripts/mutation.js store http only the parts named
//   node scripts/mutation.js 'src/openapi/coverage-*.ts'
//                                       a part of the files named (a path or glob under src/), for a
//                                       part too long to finish in one sitting
import { spawnSync } from 'node:child_process';

/** The resources of one instance's records, and those of an account's home and the registry of homes. */
const INSTANCES = [
  'src/resources/instances/**/*.ts',
  'src/resources/backups/*.ts',
  'src/resources/alarms/*.ts',
  'src/resources/recipients/*.ts',
  'src/resources/integrations/*.ts',
  'src/resources/maintenance/*.ts',
];
const ACCOUNTS = [
  'src/accounts/**/*.ts',
  'src/resources/account*.ts',
  'src/control/state-check.ts',
  'src/domain/state.ts',
];
const ROUTES = ['src/resources/**/routes.ts', 'src/resources/env.ts', 'src/compose.ts'];
const not = (globs) => globs.map((g) => `!${g}`);

/**
 * Parts, cheapest first: the domain and the resources' rules are covered by few tests each, the
 * request path (validation, http) by nearly all, and each of its survivors runs them all. The
 * resources are three parts: as one they take nearly two hours on 2 cores, and a run stopped
 * meanwhile keeps nothing of it.
 */
const PARTS = {
  store: [
    'src/domain/**/*.ts',
    'src/resources/**/*.ts',
    '!src/domain/fault-rules.ts',
    ...not(INSTANCES),
    ...not(ACCOUNTS),
    ...not(ROUTES),
  ],
  instances: [...INSTANCES, ...not(ROUTES)],
  accounts: ACCOUNTS,
  resources: ROUTES,
  control: ['src/control/**/*.ts', '!src/control/state-check.ts'],
  validation: ['src/openapi/requests.ts', 'src/openapi/ajv.ts'],
  openapi: ['src/openapi/**/*.ts', '!src/openapi/requests.ts', '!src/openapi/ajv.ts'],
  simulation: ['src/domain/fault-rules.ts', 'src/http/fault-step.ts', 'src/http/prefer.ts', 'src/http/examples.ts'],
  http: [
    'src/http/**/*.ts',
    'src/core/**/*.ts',
    '!src/http/fault-step.ts',
    '!src/http/prefer.ts',
    '!src/http/examples.ts',
    'src/*.ts',
    '!src/cli.ts',
    '!src/compose.ts',
  ],
  databases: ['src/databases/**/*.ts'],
};

const asked = process.argv.slice(2);
const isFiles = (name) => name.startsWith('src/');
const unknown = asked.filter((name) => !(name in PARTS) && !isFiles(name));
if (unknown.length > 0) {
  console.error(`unknown part(s): ${unknown.join(', ')}; parts: ${Object.keys(PARTS).join(', ')}, or files under src/`);
  process.exit(2);
}

for (const name of asked.length > 0 ? asked : Object.keys(PARTS)) {
  const globs = isFiles(name) ? [name] : PARTS[name];
  console.log(`\n== mutation part ${name}: ${globs.join(' ')}`);
  const run = spawnSync('npx', ['stryker', 'run', '--mutate', globs.join(',')], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
