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
      return c.get('principal').instance.recipients.list();
    }),
  );
  app.post(
    '/',
    ...op('createRecipient', (c, { body }) => {
      return c.get('principal').instance.recipients.create(body);
    }),
  );
  app.get(
    '/:id',
    ...op('getRecipient', (c, { params }) => {
      return c.get('principal').instance.recipients.get(params.id);
    }),
  );
  app.put(
    '/:id',
    ...op('updateRecipient', (c, { params, body }) => {
      return c.get('principal').instance.recipients.update(params.id, body);
    }),
  );
  app.delete(
    '/:id',
    ...op('deleteRecipient', (c, { params }) => {
      c.get('principal').instance.recipients.delete(params.id);
      return NO_CONTENT;
    }),
  );
  return app;
}
