import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

export function plansApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  app.get('/', route('listPlans'), (c) => {
    const { query } = input<CustomerOperations, 'listPlans'>(c);
    return c.json(c.get('principal').account.listPlans(query.backend), 200);
  });
  return app;
}
