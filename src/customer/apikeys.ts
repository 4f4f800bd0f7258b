import { Hono } from 'hono';
import type { Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

export function apiKeysApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  app.post('/rotate-apikey', route('rotateApiKey'), (c) => {
    const body: ResponseBody<CustomerOperations, 'rotateApiKey'> = c.get('principal').account.rotateApiKey(c.get('principal').key.id);
    return c.json(body, 200);
  });
  return app;
}
