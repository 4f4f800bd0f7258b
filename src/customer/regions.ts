import { Hono } from 'hono';
import type { Route } from '../http/app.js';
import { operationsOf } from '../http/operation.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

export function regionsApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<CustomerOperations, CustomerEnv>(route);
  app.get('/', ...op('listRegions', (c, { query }) => {
    return c.get('principal').account.listRegions(query.provider);
  }));
  return app;
}
