// Every operation of both documents is called by at least one hand-written contract test: the
// operationIds are read from the documents (no hand-kept list) and looked up in the test files
// under contract-tests/ (the generated checks in contract-tests/derived/ do not count: they call
// every operation by construction and prove nothing about the operation's own behaviour).
import { readdirSync, readFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { INTERFACES, PROJECT_ROOT, type InterfaceName } from '../src/openapi/documents.js';
import { Contract } from '../contract-tests/harness/contract.js';

const SUITE = join(PROJECT_ROOT, 'contract-tests');

/** The hand-written test files, relative to contract-tests/. */
export function handWrittenTests(): string[] {
  return (readdirSync(SUITE, { recursive: true }) as string[])
    .map((f) => f.split(sep).join('/'))
    .filter((f) => f.endsWith('.test.ts') && !f.startsWith('derived/') && !f.startsWith('harness/'));
}

/**
 * The operations a test file calls, in the harness's call styles: `.customer('op'`,
 * `.instance('op'`, `.call('customer', 'op'`, and the direct response check
 * `.check('instance', 'op'` used with raw requests.
 */
export function calledOperations(source: string): Record<InterfaceName, Set<string>> {
  const out: Record<InterfaceName, Set<string>> = { customer: new Set(), instance: new Set() };
  const q = `['"\`]`;
  for (const m of source.matchAll(new RegExp(`\\.(customer|instance)\\(\\s*${q}(\\w+)${q}`, 'g')))
    out[m[1] as InterfaceName].add(m[2]!);
  for (const m of source.matchAll(
    new RegExp(`\\.(?:call|check|url)\\(\\s*${q}(customer|instance)${q}\\s*,\\s*${q}(\\w+)${q}`, 'g'),
  ))
    out[m[1] as InterfaceName].add(m[2]!);
  return out;
}

describe('contract coverage', () => {
  it('finds calls in each of the harness call styles', () => {
    const found = calledOperations(`
      await t.api.customer('listRegions');
      await t.api.instance("listAlarms", key, {});
      await t.api.call('instance', \`getAlarm\`, { key });
      t.contract.check('customer', 'getInvoice', res);
      createInstance(t); // not an operation call
    `);
    expect([...found.customer].sort()).toEqual(['getInvoice', 'listRegions']);
    expect([...found.instance].sort()).toEqual(['getAlarm', 'listAlarms']);
  });

  it('every operationId of both documents is called by at least one hand-written contract test', async () => {
    const contract = await Contract.load();
    const called: Record<InterfaceName, Set<string>> = { customer: new Set(), instance: new Set() };
    for (const file of handWrittenTests()) {
      const found = calledOperations(readFileSync(join(SUITE, file), 'utf8'));
      for (const api of INTERFACES) found[api].forEach((id) => called[api].add(id));
    }
    const missing = INTERFACES.flatMap((api) =>
      [...contract.operations[api].keys()].filter((id) => !called[api].has(id)).map((id) => `${api} ${id}`),
    );
    if (missing.length)
      console.error(`operations without a hand-written contract test (${missing.length}):\n  ${missing.join('\n  ')}`);
    expect(missing, 'operations without a hand-written contract test').toEqual([]);
  });
});
