import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { NO_CONTENT, bytesAnswer, operationsOf } from '../../http/operation.js';
import type { CustomerEnv, CustomerOperations } from '../env.js';

type Ops = CustomerOperations;

export function instancesApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<Ops, CustomerEnv>(route);
  // The bytes of the list as the store keeps them (account-views.ts: the same JSON as the list).
  app.get(
    '/',
    ...op('listInstances', (c) => {
      return bytesAnswer(c, c.get('principal').account.instances.listJson());
    }),
  );
  app.post(
    '/',
    ...op('createInstance', (c, { body }) => {
      return c.get('principal').account.instances.create(body, c.get('principal').key);
    }),
  );
  app.get(
    '/:id',
    ...op('getInstance', (c, { params }) => {
      return c.get('principal').account.instances.get(params.id);
    }),
  );
  app.put(
    '/:id',
    ...op('updateInstance', (c, { params, body }) => {
      return c.get('principal').account.instances.update(params.id, body, c.get('principal').key);
    }),
  );
  app.delete(
    '/:id',
    ...op('deleteInstance', (c, { params }) => {
      c.get('principal').account.instances.delete(params.id, c.get('principal').key);
      return NO_CONTENT;
    }),
  );
  return app;
}
