// The cached answers of the customer interface's lists: each range of invoices is an answer of its
// own (resources/invoices/invoices.ts), and the instance list (resources/instances/view.ts) is made
// again when the database engine's address changes (every url holds it), for the instances it
// already had as well, against lists of a stand-in whose answers the test chooses.
import { describe, expect, it } from 'vitest';
import { InstancesView, type InstanceLists } from '../../src/resources/instances/view.js';
import type { InstanceStore } from '../../src/resources/instances/instance.js';
import { Invoices } from '../../src/resources/invoices/invoices.js';
import type { InvoiceFixture } from '../../fixtures/index.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

/** An invoice of period `yyyy/m` (only what the list shows matters here). */
const invoice = (id: number, period: string): InvoiceFixture =>
  ({
    id,
    number: `INV-${id}`,
    paid: true,
    detail: { period, total: id, currency: 'USD', customer: { account_name: 'a' } },
  }) as unknown as InvoiceFixture;

function instanceList(instances: { id: number; revision: number }[]) {
  const state = { epoch: '', version: 1 };
  const lists: InstanceLists = {
    sorted: () => instances as unknown as InstanceStore[],
    summary: (i: InstanceStore) =>
      ({ id: (i as unknown as { id: number }).id, url: `postgres://${state.epoch || 'pending'}/db` }) as never,
    urlEpoch: () => state.epoch,
    get version() {
      return state.version;
    },
  };
  return { state, view: new InstancesView(lists) };
}

describe('the list views', () => {
  it('answers each range of invoices with its own list', () => {
    const invoices = new Invoices([invoice(1, '2026/1'), invoice(2, '2026/5'), invoice(3, '2026/7')]);
    const ranges: [string | undefined, string | undefined, number[]][] = [
      ['2026-01', undefined, [1, 2, 3]],
      ['2026-05', undefined, [2, 3]],
      [undefined, '2026-05', [1, 2]],
      [undefined, '2026-07', [1, 2, 3]],
      [undefined, undefined, [1, 2, 3]],
      ['2026-01', '2026-05', [1, 2]],
    ];
    for (const [from, to, ids] of ranges) {
      const listed = JSON.parse(text(invoices.listJson(from, to))) as { id: number }[];
      expect(listed.map((x) => x.id)).toEqual(ids);
      expect(text(invoices.listJson(from, to))).toBe(JSON.stringify(invoices.list(from, to)));
    }
  });

  it("makes the instance list again once the engine's address is known, the same instances included", () => {
    const { state, view } = instanceList([
      { id: 1, revision: 1 },
      { id: 2, revision: 1 },
    ]);
    expect(JSON.parse(text(view.list()))).toEqual([
      { id: 1, url: 'postgres://pending/db' },
      { id: 2, url: 'postgres://pending/db' },
    ]);
    state.epoch = '127.0.0.1:5433';
    expect(JSON.parse(text(view.list()))).toEqual([
      { id: 1, url: 'postgres://127.0.0.1:5433/db' },
      { id: 2, url: 'postgres://127.0.0.1:5433/db' },
    ]);
  });
});
