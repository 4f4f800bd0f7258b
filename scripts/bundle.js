#!/usr/bin/env node
// npm run bundle: writes dist/openapi/{customer,instance}.{json,yaml} (not committed).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const name of ['customer', 'instance']) {
  for (const ext of ['yaml', 'json']) {
    execFileSync(join(root, 'node_modules', '.bin', 'redocly'),
      ['bundle', `openapi/${name}.yaml`, '-o', `dist/openapi/${name}.${ext}`, '--ext', ext],
      { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  }
  console.log(`dist/openapi/${name}.json, dist/openapi/${name}.yaml`);
}
