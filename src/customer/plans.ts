import { Hono } from 'hono';
import type { Route } from '../http/app.js';
import { operationsOf } from '../http/operation.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

export function plansApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<CustomerOperations, CustomerEnv>(route);
  app.get('/', ...op('listPlans', (c, { query }) => {
    return c.get('principal').account.listPlans(query.backend);
  }));
  return app;
}
