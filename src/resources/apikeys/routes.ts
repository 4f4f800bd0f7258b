import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { operationsOf } from '../../http/operation.js';
import type { CustomerEnv, CustomerOperations } from '../env.js';

export function apiKeysApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<CustomerOperations, CustomerEnv>(route);
  app.post(
    '/rotate-apikey',
    ...op('rotateApiKey', (c) => {
      return c.get('principal').account.apiKeys.rotate(c.get('principal').key.id);
    }),
  );
  return app;
}
