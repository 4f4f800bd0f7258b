// Alarms: the four default alarms and those the client adds; the rules (plan types, recipients,
// merge update) live in the store.
import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { NO_CONTENT, operationsOf } from '../../http/operation.js';
import type { InstanceEnv, InstanceOperations } from '../env.js';

type Ops = InstanceOperations;

export function alarmsApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  const op = operationsOf<Ops, InstanceEnv>(route);
  app.get(
    '/',
    ...op('listAlarms', (c) => {
      return c.get('principal').instance.alarms.list();
    }),
  );
  app.post(
    '/',
    ...op('createAlarm', (c, { body }) => {
      return c.get('principal').instance.alarms.create(body);
    }),
  );
  app.get(
    '/:id',
    ...op('getAlarm', (c, { params }) => {
      return c.get('principal').instance.alarms.get(params.id);
    }),
  );
  app.put(
    '/:id',
    ...op('updateAlarm', (c, { params, body }) => {
      return c.get('principal').instance.alarms.update(params.id, body);
    }),
  );
  app.delete(
    '/:id',
    ...op('deleteAlarm', (c, { params }) => {
      c.get('principal').instance.alarms.delete(params.id);
      return NO_CONTENT;
    }),
  );
  return app;
}
