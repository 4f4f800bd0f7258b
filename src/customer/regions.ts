import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

export function regionsApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  app.get('/', route('listRegions'), (c) => {
    const { query } = input<CustomerOperations, 'listRegions'>(c);
    return c.json(c.get('principal').account.listRegions(query.provider), 200);
  });
  return app;
}
