// Alarms: the four default alarms and those the client adds; the rules (plan types, recipients,
// merge update) live in the store.
import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { Alarm } from '../store/types.js';
import type { InstanceEnv, InstanceOperations } from './env.js';

type Ops = InstanceOperations;

export function alarmsApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  app.get('/', route('listAlarms'), (c) => {
    const body: ResponseBody<Ops, 'listAlarms'> = c.get('principal').instance.listAlarms();
    return c.json(body, 200);
  });
  app.post('/', route('createAlarm'), (c) => {
    const { body } = input<Ops, 'createAlarm'>(c);
    const created: Alarm = c.get('principal').instance.createAlarm(body);
    return c.json(created, 200);
  });
  app.get('/:id', route('getAlarm'), (c) => {
    const { params } = input<Ops, 'getAlarm'>(c);
    const body: ResponseBody<Ops, 'getAlarm'> = c.get('principal').instance.getAlarm(params.id);
    return c.json(body, 200);
  });
  app.put('/:id', route('updateAlarm'), (c) => {
    const { params, body } = input<Ops, 'updateAlarm'>(c);
    const updated: Alarm = c.get('principal').instance.updateAlarm(params.id, body);
    return c.json(updated, 200);
  });
  app.delete('/:id', route('deleteAlarm'), (c) => {
    const { params } = input<Ops, 'deleteAlarm'>(c);
    c.get('principal').instance.deleteAlarm(params.id);
    return c.body(null, 204);
  });
  return app;
}
