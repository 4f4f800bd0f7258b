// Upcoming maintenance: list, reschedule, run now. The life cycle is derived in the store.
import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { Maintenance } from '../store/types.js';
import type { InstanceEnv, InstanceOperations } from './env.js';

type Ops = InstanceOperations;

export function maintenanceApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  app.get('/', route('listMaintenance'), (c) => {
    const body: ResponseBody<Ops, 'listMaintenance'> = c.get('principal').instance.listMaintenance();
    return c.json(body, 200);
  });
  app.put('/:id', route('rescheduleMaintenance'), (c) => {
    const { params, body } = input<Ops, 'rescheduleMaintenance'>(c);
    const updated: Maintenance = c.get('principal').instance.rescheduleMaintenance(params.id, body.scheduled_by);
    return c.json(updated, 200);
  });
  app.post('/:id', route('runMaintenance'), (c) => {
    const { params } = input<Ops, 'runMaintenance'>(c);
    const started: Maintenance = c.get('principal').instance.runMaintenance(params.id);
    return c.json(started, 200);
  });
  return app;
}
