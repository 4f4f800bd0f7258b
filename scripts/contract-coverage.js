#!/usr/bin/env node
// Which documented statuses the contract tests provoked. Client.call (contract-tests/harness/client.ts)
// appends one JSON line {api, operationId, status} per checked response to a file in the folder
// named by TUSK_OBSERVED_DIR; `npm test` runs vitest with that folder set and then this script over
// it. It fails when, for an operation, a documented 400, 401, 403 or 404 was never observed or no
// documented 2xx was, or when an interface never answered 405 or 429. Needs `npm run build`.
// One documented status a client cannot provoke is not asked for: 404 on an operation whose path
// parameters are all enumerations (a value outside the enum is a 400, every value inside names
// something that exists), e.g. createLogIntegration on /api/integrations/logs/{system}.
//
//   node scripts/contract-coverage.js DIR         check DIR (written by a test run)
//   node scripts/contract-coverage.js --clear DIR empty DIR before a run
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
if (args[0] === '--clear') {
  const dir = resolve(args[1] ?? 'reports/observed');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  process.exit(0);
}
const dir = resolve(args[0] ?? 'reports/observed');

const { loadDocuments, INTERFACES } = await import('../dist/src/openapi/documents.js');
const { readOperations } = await import('../dist/src/openapi/operations.js');

const observed = new Map(); // "api operationId" -> Set of statuses
const perInterface = { customer: new Set(), instance: new Set() };
let lines = 0;
if (existsSync(dir)) {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      const { api, operationId, status } = JSON.parse(line);
      lines++;
      perInterface[api]?.add(status);
      if (!operationId) continue;
      const key = `${api} ${operationId}`;
      if (!observed.has(key)) observed.set(key, new Set());
      observed.get(key).add(status);
    }
  }
}
if (lines === 0) {
  console.error(`contract coverage: nothing observed in ${dir} (run the tests with TUSK_OBSERVED_DIR=${dir})`);
  process.exit(1);
}

const documents = await loadDocuments();
const missing = [];
const unprovokable = [];
let pairs = 0;
for (const api of INTERFACES) {
  for (const op of readOperations(api, documents[api])) {
    const seen = observed.get(`${api} ${op.operationId}`) ?? new Set();
    const declared = [...op.responses.keys()];
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const enumOnly =
      pathParams.length > 0 && pathParams.every((p) => Array.isArray(p.schema.enum) || 'const' in p.schema);
    for (const status of ['400', '401', '403', '404']) {
      if (!declared.includes(status)) continue;
      if (status === '404' && enumOnly) {
        unprovokable.push(`${api} ${op.operationId}: 404 (its path parameters are all enumerations)`);
        continue;
      }
      pairs++;
      if (!seen.has(Number(status))) missing.push(`${api} ${op.operationId}: ${status} never provoked`);
    }
    const success = declared.filter((s) => /^2/.test(s));
    pairs++;
    if (!success.some((s) => seen.has(Number(s))))
      missing.push(`${api} ${op.operationId}: no success (${success.join(' or ')}) observed`);
  }
  for (const status of [405, 429]) {
    pairs++;
    if (!perInterface[api].has(status)) missing.push(`${api} interface: ${status} never provoked`);
  }
}

if (missing.length) {
  console.error(
    `contract coverage: ${missing.length} of ${pairs} documented outcomes were never observed:\n  ${missing.join('\n  ')}`,
  );
  process.exit(1);
}
if (unprovokable.length)
  console.log(`contract coverage: not provokable by a client, so not required:\n  ${unprovokable.join('\n  ')}`);
console.log(
  `contract coverage: all ${pairs} documented outcomes (400/401/403/404 per operation, a success per operation, 405 and 429 per interface) were observed (${lines} checked responses)`,
);
