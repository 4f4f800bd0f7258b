import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

type Ops = CustomerOperations;

export function instancesApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  app.get('/', route('listInstances'), (c) => {
    const body: ResponseBody<Ops, 'listInstances'> = c.get('principal').account.listInstances();
    return c.json(body, 200);
  });
  app.post('/', route('createInstance'), (c) => {
    const { body } = input<Ops, 'createInstance'>(c);
    const created: ResponseBody<Ops, 'createInstance'> = c.get('principal').account.createInstance(body, c.get('principal').key);
    return c.json(created, 200);
  });
  app.get('/:id', route('getInstance'), (c) => {
    const { params } = input<Ops, 'getInstance'>(c);
    const instance: ResponseBody<Ops, 'getInstance'> = c.get('principal').account.getInstance(params.id);
    return c.json(instance, 200);
  });
  app.put('/:id', route('updateInstance'), (c) => {
    const { params, body } = input<Ops, 'updateInstance'>(c);
    const instance: ResponseBody<Ops, 'getInstance'> = c.get('principal').account.updateInstance(params.id, body, c.get('principal').key);
    return c.json(instance, 200);
  });
  app.delete('/:id', route('deleteInstance'), (c) => {
    const { params } = input<Ops, 'deleteInstance'>(c);
    c.get('principal').account.deleteInstance(params.id, c.get('principal').key);
    return c.body(null, 204);
  });
  return app;
}
