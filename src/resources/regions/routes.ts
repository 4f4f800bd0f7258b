import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { bytesAnswer, operationsOf } from '../../http/operation.js';
import type { CustomerEnv, CustomerOperations } from '../env.js';

export function regionsApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<CustomerOperations, CustomerEnv>(route);
  app.get(
    '/',
    ...op('listRegions', (c, { query }) => {
      // The bytes the store keeps for the filter (account-views.ts: the same JSON as the list).
      return bytesAnswer(c, c.get('principal').account.regions.listJson(query.provider));
    }),
  );
  return app;
}
