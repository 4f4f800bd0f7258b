import { Hono } from 'hono';
import type { Route } from '../http/app.js';
import { bytesAnswer, operationsOf } from '../http/operation.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

export function regionsApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<CustomerOperations, CustomerEnv>(route);
  app.get('/', ...op('listRegions', (c, { query }) => {
    // The bytes the store keeps for the filter (AccountStore.listRegionsJson: the same JSON as listRegions()).
    return bytesAnswer(c, c.get('principal').account.listRegionsJson(query.provider));
  }));
  return app;
}
