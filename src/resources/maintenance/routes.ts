// Upcoming maintenance: list, reschedule, run now. The life cycle is derived in the store.
import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { operationsOf } from '../../http/operation.js';
import type { InstanceEnv, InstanceOperations } from '../env.js';

type Ops = InstanceOperations;

export function maintenanceApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  const op = operationsOf<Ops, InstanceEnv>(route);
  app.get(
    '/',
    ...op('listMaintenance', (c) => {
      return c.get('principal').instance.maintenance.list();
    }),
  );
  app.put(
    '/:id',
    ...op('rescheduleMaintenance', (c, { params, body }) => {
      return c.get('principal').instance.maintenance.reschedule(params.id, body.scheduled_by);
    }),
  );
  app.post(
    '/:id',
    ...op('runMaintenance', (c, { params }) => {
      return c.get('principal').instance.maintenance.run(params.id);
    }),
  );
  return app;
}
