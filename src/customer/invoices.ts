import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

type Ops = CustomerOperations;

export function invoicesApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  app.get('/', route('listInvoices'), (c) => {
    const { query } = input<Ops, 'listInvoices'>(c);
    const body: ResponseBody<Ops, 'listInvoices'> = c.get('principal').account.listInvoices(query.from, query.to);
    return c.json(body, 200);
  });
  // The fixed segment before the {id} route.
  app.get('/period', route('getInvoiceForPeriod'), (c) => {
    const { query } = input<Ops, 'getInvoiceForPeriod'>(c);
    const body: ResponseBody<Ops, 'getInvoiceForPeriod'> = c.get('principal').account.getInvoiceForPeriod(query.year, query.month);
    return c.json(body, 200);
  });
  app.get('/:id', route('getInvoice'), (c) => {
    const { params } = input<Ops, 'getInvoice'>(c);
    const body: ResponseBody<Ops, 'getInvoice'> = c.get('principal').account.getInvoice(params.id);
    return c.json(body, 200);
  });
  return app;
}
