// Recipients of alarm notifications; the default recipient always exists.
import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { InstanceEnv, InstanceOperations } from './env.js';

type Ops = InstanceOperations;

export function recipientsApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  app.get('/', route('listRecipients'), (c) => {
    const body: ResponseBody<Ops, 'listRecipients'> = c.get('principal').instance.listRecipients();
    return c.json(body, 200);
  });
  app.post('/', route('createRecipient'), (c) => {
    const { body } = input<Ops, 'createRecipient'>(c);
    const created: ResponseBody<Ops, 'createRecipient'> = c.get('principal').instance.createRecipient(body);
    return c.json(created, 200);
  });
  app.get('/:id', route('getRecipient'), (c) => {
    const { params } = input<Ops, 'getRecipient'>(c);
    const body: ResponseBody<Ops, 'getRecipient'> = c.get('principal').instance.getRecipient(params.id);
    return c.json(body, 200);
  });
  app.put('/:id', route('updateRecipient'), (c) => {
    const { params, body } = input<Ops, 'updateRecipient'>(c);
    const updated: ResponseBody<Ops, 'updateRecipient'> = c.get('principal').instance.updateRecipient(params.id, body);
    return c.json(updated, 200);
  });
  app.delete('/:id', route('deleteRecipient'), (c) => {
    const { params } = input<Ops, 'deleteRecipient'>(c);
    c.get('principal').instance.deleteRecipient(params.id);
    return c.body(null, 204);
  });
  return app;
}
