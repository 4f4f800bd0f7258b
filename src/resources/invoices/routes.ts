import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { bytesAnswer, operationsOf } from '../../http/operation.js';
import type { CustomerEnv, CustomerOperations } from '../env.js';

type Ops = CustomerOperations;

export function invoicesApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<Ops, CustomerEnv>(route);
  app.get(
    '/',
    ...op('listInvoices', (c, { query }) => {
      // The bytes the store keeps for the range (account-views.ts: the same JSON as the list).
      return bytesAnswer(c, c.get('principal').account.invoices.listJson(query.from, query.to));
    }),
  );
  // The fixed segment before the {id} route.
  app.get(
    '/period',
    ...op('getInvoiceForPeriod', (c, { query }) => {
      return c.get('principal').account.invoices.forPeriod(query.year, query.month);
    }),
  );
  app.get(
    '/:id',
    ...op('getInvoice', (c, { params }) => {
      return c.get('principal').account.invoices.get(params.id);
    }),
  );
  return app;
}
