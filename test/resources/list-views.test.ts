// The cached answers of the customer interface's lists (src/resources/account-views.ts), against lists
// of a stand-in account whose answers the test chooses: each range of invoices is an answer of its
// own, and the instance list is made again when the database engine's address changes (every url
// holds it), for the instances it already had as well.
import { describe, expect, it } from 'vitest';
import { AccountViews, type AccountLists } from '../../src/resources/account-views.js';
import type { InstanceStore } from '../../src/resources/instances/instance.js';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

function account(instances: { id: number; revision: number }[]) {
  const state = { epoch: '', instancesVersion: 1 };
  const lists = {
    listInvoices: (from?: string, to?: string) => [{ from: from ?? null, to: to ?? null }],
    sortedInstances: () => instances as unknown as InstanceStore[],
    summary: (i: InstanceStore) => ({
      id: (i as unknown as { id: number }).id,
      url: `postgres://${state.epoch || 'pending'}/db`,
    }),
    urlEpoch: () => state.epoch,
    get instancesVersion() {
      return state.instancesVersion;
    },
  } as unknown as AccountLists;
  return { state, views: new AccountViews(lists) };
}

describe('AccountViews', () => {
  it('answers each range of invoices with its own list', () => {
    const { views } = account([]);
    const ranges: [string | undefined, string | undefined][] = [
      ['2026-01', undefined],
      ['2026-05', undefined],
      [undefined, '2026-05'],
      [undefined, '2026-07'],
      [undefined, undefined],
      ['2026-01', '2026-05'],
    ];
    for (const [from, to] of ranges)
      expect(JSON.parse(text(views.invoices(from, to)))).toEqual([{ from: from ?? null, to: to ?? null }]);
  });

  it("makes the instance list again once the engine's address is known, the same instances included", () => {
    const { state, views } = account([
      { id: 1, revision: 1 },
      { id: 2, revision: 1 },
    ]);
    expect(JSON.parse(text(views.instances()))).toEqual([
      { id: 1, url: 'postgres://pending/db' },
      { id: 2, url: 'postgres://pending/db' },
    ]);
    state.epoch = '127.0.0.1:5433';
    expect(JSON.parse(text(views.instances()))).toEqual([
      { id: 1, url: 'postgres://127.0.0.1:5433/db' },
      { id: 2, url: 'postgres://127.0.0.1:5433/db' },
    ]);
  });
});
