// Invoices of the customer interface: the list by period range, one invoice by id, and by period.
import { describe, expect, it } from 'vitest';
import { useContract, type CustomerSchema } from '../harness/index.js';
import { requireRoleKey } from './role-keys.js';
import { expectBadRequest, expectMethodNotAllowed } from './helpers.js';

const t = useContract();

/** `yyyy/m` as a sortable month index, and as `yyyy-mm`. */
const index = (period: string) => Number(period.split('/')[0]) * 12 + Number(period.split('/')[1]) - 1;
const yearMonth = (period: string) => `${period.split('/')[0]}-${period.split('/')[1]!.padStart(2, '0')}`;

const all = async () => (await t.api.customer('listInvoices')).body;

describe('listInvoices', () => {
  it('lists every invoice in ascending period order without from and to', async () => {
    const res = await t.api.customer('listInvoices');
    expect(res.status).toBe(200);
    const periods = res.body.map((i) => index(i.period));
    expect(periods).toEqual([...periods].sort((a, b) => a - b));
  });

  it('lists only the invoices between from and to, both inclusive', async ({ skip }) => {
    const invoices = await all();
    if (invoices.length < 3) skip('the target has fewer than three invoices');
    const [, second, third] = invoices as [
      CustomerSchema<'InvoiceSummary'>,
      CustomerSchema<'InvoiceSummary'>,
      CustomerSchema<'InvoiceSummary'>,
    ];
    const res = await t.api.customer('listInvoices', {
      query: { from: yearMonth(second.period), to: yearMonth(third.period) },
    });
    expect(res.status).toBe(200);
    const expected = invoices.filter(
      (i) => index(i.period) >= index(second.period) && index(i.period) <= index(third.period),
    );
    expect(res.body).toEqual(expected);
    const from = await t.api.customer('listInvoices', { query: { from: yearMonth(third.period) } });
    expect(from.body).toEqual(invoices.filter((i) => index(i.period) >= index(third.period)));
    const to = await t.api.customer('listInvoices', { query: { to: yearMonth(second.period) } });
    expect(to.body).toEqual(invoices.filter((i) => index(i.period) <= index(second.period)));
  });

  it('gives an empty list for a range without invoices', async () => {
    const res = await t.api.customer('listInvoices', { query: { from: '2001-01', to: '2001-12' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('refuses from after to and bounds not of the form yyyy-mm (400)', async () => {
    expectBadRequest(await t.api.customer('listInvoices', { query: { from: '2026-05', to: '2026-04' } }));
    expectBadRequest(await t.api.customer('listInvoices', { query: { from: '2026-5' } }), 'from');
    expectBadRequest(await t.api.customer('listInvoices', { query: { to: '2026-13' } }), 'to');
  });

  it('is open to a billing manager key and closed to devops, member and monitor keys (403)', async ({ skip }) => {
    expect((await t.api.customer('listInvoices', { key: requireRoleKey(t, 'billing manager', skip) })).status).toBe(
      200,
    );
    for (const role of ['devops', 'member', 'monitor'] as const) {
      expect((await t.api.customer('listInvoices', { key: requireRoleKey(t, role, skip) })).status, role).toBe(403);
    }
  });

  it('answers 401 without a key and 405 for POST', async () => {
    expect((await t.api.customer('listInvoices', { key: null })).status).toBe(401);
    await expectMethodNotAllowed(t, 'listInvoices', 'POST', ['GET']);
  });
});

describe('getInvoice', () => {
  it('returns the detail of a listed invoice, with the list record’s period, total and currency', async ({ skip }) => {
    const invoices = await all();
    if (!invoices.length) skip('the target has no invoices');
    for (const inv of [invoices[0]!, invoices.at(-1)!]) {
      const res = await t.api.customer('getInvoice', { params: { id: inv.id } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ period: inv.period, total: inv.total, currency: inv.currency });
      expect(res.body.customer.account_name).toBe(inv.account_name);
      const sum = (res.body.lines as { amount: number }[]).reduce((s, l) => s + Math.round(l.amount * 100), 0);
      expect(sum).toBe(Math.round(inv.total * 100));
    }
  });

  it('answers 404 for an id no invoice has and 400 for an id that is not a positive integer', async () => {
    const ids = (await all()).map((i) => i.id);
    const unknown = Math.max(0, ...ids) + 1000;
    expect((await t.api.customer('getInvoice', { params: { id: unknown } })).status).toBe(404);
    expectBadRequest(await t.api.customer('getInvoice', { params: { id: 'abc' } }), 'id');
  });

  it('is open to a billing manager key and closed to a monitor key (403)', async ({ skip }) => {
    const invoices = await all();
    if (!invoices.length) skip('the target has no invoices');
    const id = invoices[0]!.id;
    expect(
      (await t.api.customer('getInvoice', { params: { id }, key: requireRoleKey(t, 'billing manager', skip) })).status,
    ).toBe(200);
    expect(
      (await t.api.customer('getInvoice', { params: { id }, key: requireRoleKey(t, 'monitor', skip) })).status,
    ).toBe(403);
  });

  it('answers 401 with a wrong key and 405 for DELETE', async () => {
    expect((await t.api.customer('getInvoice', { params: { id: 1 }, key: 'wrong' })).status).toBe(401);
    await expectMethodNotAllowed(t, 'getInvoice', 'DELETE', ['GET'], { id: 1 });
  });
});

describe('getInvoiceForPeriod', () => {
  it('returns the invoice of a period, the same as by id', async ({ skip }) => {
    const invoices = await all();
    if (!invoices.length) skip('the target has no invoices');
    const inv = invoices.at(-1)!;
    const res = await t.api.customer('getInvoiceForPeriod', {
      query: { year: Number(inv.period.split('/')[0]), month: yearMonth(inv.period) },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await t.api.customer('getInvoice', { params: { id: inv.id } })).body);
  });

  it('refuses a year other than the year of month, and missing or malformed parameters (400)', async () => {
    expectBadRequest(await t.api.customer('getInvoiceForPeriod', { query: { year: 2025, month: '2026-06' } }), 'month');
    expectBadRequest(await t.api.customer('getInvoiceForPeriod', { query: { month: '2026-06' } }), 'year');
    expectBadRequest(await t.api.customer('getInvoiceForPeriod', { query: { year: 2026 } }), 'month');
    expectBadRequest(await t.api.customer('getInvoiceForPeriod', { query: { year: 2026, month: '6' } }), 'month');
    expectBadRequest(
      await t.api.customer('getInvoiceForPeriod', { query: { year: 'this', month: '2026-06' } }),
      'year',
    );
  });

  it('answers 404 for a period without an invoice', async () => {
    expect((await t.api.customer('getInvoiceForPeriod', { query: { year: 2001, month: '2001-01' } })).status).toBe(404);
  });

  it('is open to a billing manager key and closed to a devops key (403)', async ({ skip }) => {
    const query = { year: 2001, month: '2001-01' };
    expect(
      (await t.api.customer('getInvoiceForPeriod', { query, key: requireRoleKey(t, 'billing manager', skip) })).status,
    ).toBe(404);
    expect(
      (await t.api.customer('getInvoiceForPeriod', { query, key: requireRoleKey(t, 'devops', skip) })).status,
    ).toBe(403);
  });

  it('answers 401 without a key and 405 for PUT', async () => {
    expect(
      (await t.api.customer('getInvoiceForPeriod', { query: { year: 2001, month: '2001-01' }, key: null })).status,
    ).toBe(401);
    await expectMethodNotAllowed(t, 'getInvoiceForPeriod', 'PUT', ['GET']);
  });
});
