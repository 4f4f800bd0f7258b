// An account's invoices (they never change): the list by a range of months, one by id, one by its
// period; the list as the bytes of its answer, kept per range asked for.
import type { InvoiceFixture } from '../../../fixtures/index.js';
import { ApiError, invalid, notFound } from '../../core/errors.js';
import { Memo } from '../../core/memo.js';
import { monthIndexOfYearMonth } from '../../domain/dates.js';
import type { InvoiceDetail, InvoiceSummary } from '../../domain/types.js';

export class Invoices {
  private readonly items: InvoiceFixture[];
  /** Each invoice's month index and summary, in the order of `items`. */
  private readonly summaries: { month: number; summary: InvoiceSummary }[];
  /** listJson(): the bytes of each range asked for (bounded). */
  private readonly ranges = new Memo<Uint8Array>({ size: 64 });

  constructor(invoices: readonly InvoiceFixture[]) {
    this.items = structuredClone([...invoices]).sort(
      (a, b) => monthIndexOfYearMonth(a.detail.period) - monthIndexOfYearMonth(b.detail.period) || a.id - b.id,
    );
    this.summaries = this.items.map((inv) => ({
      month: monthIndexOfYearMonth(inv.detail.period),
      summary: {
        id: inv.id,
        period: inv.detail.period,
        number: inv.number,
        paid: inv.paid,
        total: inv.detail.total,
        currency: inv.detail.currency,
        account_name: inv.detail.customer.account_name,
      },
    }));
  }

  /** `from` and `to` are `yyyy-mm`, both inclusive, both optional. */
  list(from?: string, to?: string): InvoiceSummary[] {
    const lo = from === undefined ? -Infinity : monthIndexOfYearMonth(from);
    const hi = to === undefined ? Infinity : monthIndexOfYearMonth(to);
    if (lo > hi) throw invalid('to', 'not-before-from', `${to} lies before from ${from}`);
    return this.summaries.filter((x) => x.month >= lo && x.month <= hi).map((x) => ({ ...x.summary }));
  }

  /** list(from, to) as the bytes of its answer; a range that is refused is refused every time. */
  listJson(from?: string, to?: string): Uint8Array {
    return this.ranges.get(`${from ?? ''}|${to ?? ''}`, () => Buffer.from(JSON.stringify(this.list(from, to))));
  }

  get(id: number): InvoiceDetail {
    const inv = this.items.find((x) => x.id === id);
    if (!inv) throw notFound('invoice', id);
    return structuredClone(inv.detail);
  }

  /** `year` must equal the year part of `month` (`yyyy-mm`). */
  forPeriod(year: number, month: string): InvoiceDetail {
    const [y, m] = month.split('-').map(Number) as [number, number];
    if (y !== year) throw invalid('month', 'year-matches', `the year of ${month} must equal year ${year}`);
    const period = `${y}/${m}`;
    const inv = this.items.find((x) => x.detail.period === period);
    if (!inv) throw new ApiError(404, `Not found: no invoice for the period ${period}`);
    return structuredClone(inv.detail);
  }

  toJSON(): InvoiceFixture[] {
    return structuredClone(this.items);
  }
}
