// The counts behind the coverage report (src/openapi/coverage-recorder.ts): an answer counts for its
// operation only on the interface whose document has it, anything else is traffic outside the
// contract (named by method and path, at most 1,000 distinct entries per account, listed in a
// stable order), and a status counts under the documented key it falls under.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/openapi/documents.js';
import { readOperations, type OperationInfo } from '../../src/openapi/operations.js';
import { CoverageRecorder, documentedKey } from '../../src/openapi/coverage-recorder.js';

let operations: OperationInfo[];
beforeAll(async () => {
  const docs = await loadDocuments();
  operations = [...readOperations('customer', docs.customer), ...readOperations('instance', docs.instance)];
});

describe('CoverageRecorder', () => {
  it('finds an operation by interface and id, and only on the interface whose document has it', () => {
    const recorder = new CoverageRecorder(operations);
    expect(recorder.operation('customer', 'listPlans')).toMatchObject({ api: 'customer', operationId: 'listPlans' });
    expect(recorder.operation('instance', 'listPlans')).toBeUndefined();
  });

  it("counts an operation id the interface's document lacks, or none, as traffic outside the contract", () => {
    const recorder = new CoverageRecorder(operations);
    recorder.record('instance', 'listPlans', 200, 'a', { method: 'GET', path: '/api/plans' });
    recorder.record('customer', undefined, 404, 'a', { method: 'GET', path: '/nowhere' });
    recorder.record('customer', undefined, 405, 'a');
    const report = recorder.report('a');
    expect(report.requests).toBe(3);
    expect(report.interfaces.customer.operations_exercised).toBe(0);
    expect(report.outside).toEqual([
      { api: 'customer', method: '?', path: '?', status: 405, count: 1 },
      { api: 'customer', method: 'GET', path: '/nowhere', status: 404, count: 1 },
      { api: 'instance', method: 'GET', path: '/api/plans', status: 200, count: 1 },
    ]);
  });

  it('lists the outside traffic by interface, then path, then method, then status', () => {
    const recorder = new CoverageRecorder(operations);
    const sent: [string, string, number][] = [
      ['POST', '/b', 404],
      ['GET', '/b', 500],
      ['GET', '/b', 404],
      ['GET', '/a', 404],
    ];
    for (const [method, path, status] of sent) recorder.record('customer', undefined, status, 'a', { method, path });
    recorder.record('customer', undefined, 404, 'a', { method: 'POST', path: '/b' });
    expect(recorder.report('a').outside.map((o) => `${o.method} ${o.path} ${o.status} ×${o.count}`)).toEqual([
      'GET /a 404 ×1',
      'GET /b 404 ×1',
      'GET /b 500 ×1',
      'POST /b 404 ×2',
    ]);
  });

  it('keeps at most 1,000 distinct outside entries per account, and goes on counting those it keeps', () => {
    const recorder = new CoverageRecorder(operations);
    for (let i = 0; i < 1_001; i++)
      recorder.record('customer', undefined, 404, 'a', { method: 'GET', path: `/scan/${i}` });
    recorder.record('customer', undefined, 404, 'a', { method: 'GET', path: '/scan/0' });
    const { outside } = recorder.report('a');
    expect(outside).toHaveLength(1_000);
    expect(outside.find((o) => o.path === '/scan/1000')).toBeUndefined();
    expect(outside.find((o) => o.path === '/scan/0')?.count).toBe(2);
    // Another account has a budget of its own.
    recorder.record('customer', undefined, 404, 'b', { method: 'GET', path: '/scan/1000' });
    expect(recorder.report('b').outside).toHaveLength(1);
  });
});

describe('documentedKey', () => {
  const op = (...keys: string[]) => ({ responses: new Map(keys.map((k) => [k, {}])) }) as unknown as OperationInfo;

  it('is the exact status, else its range, else default, else none', () => {
    expect(documentedKey(op('404', '4XX', 'default'), 404)).toBe('404');
    expect(documentedKey(op('4XX', 'default'), 404)).toBe('4XX');
    expect(documentedKey(op('200', 'default'), 404)).toBe('default');
    expect(documentedKey(op('200'), 404)).toBeUndefined();
  });
});
