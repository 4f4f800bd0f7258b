// Recipients of alarm notifications; the default recipient always exists.
import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { NO_CONTENT, operationsOf } from '../../http/operation.js';
import type { InstanceEnv, InstanceOperations } from '../env.js';

type Ops = InstanceOperations;

export function recipientsApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  const op = operationsOf<Ops, InstanceEnv>(route);
  app.get(
    '/',
    ...op('listRecipients', (c) => {
      return c.get('principal').instance.listRecipients();
    }),
  );
  app.post(
    '/',
    ...op('createRecipient', (c, { body }) => {
      return c.get('principal').instance.createRecipient(body);
    }),
  );
  app.get(
    '/:id',
    ...op('getRecipient', (c, { params }) => {
      return c.get('principal').instance.getRecipient(params.id);
    }),
  );
  app.put(
    '/:id',
    ...op('updateRecipient', (c, { params, body }) => {
      return c.get('principal').instance.updateRecipient(params.id, body);
    }),
  );
  app.delete(
    '/:id',
    ...op('deleteRecipient', (c, { params }) => {
      c.get('principal').instance.deleteRecipient(params.id);
      return NO_CONTENT;
    }),
  );
  return app;
}
