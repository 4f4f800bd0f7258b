// Rotation of the instance password (visible in the customer interface's `url`) and of the
// instance API key (the old key is refused from the next request on).
import { Hono } from 'hono';
import type { Route } from '../http/app.js';
import type { InstanceEnv } from './env.js';

export function accountApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  app.post('/rotate-password', route('rotatePassword'), (c) => {
    c.get('principal').instance.rotatePassword();
    return c.body(null, 204);
  });
  app.post('/rotate-apikey', route('rotateInstanceApiKey'), (c) => {
    const body: { apikey: string } = { apikey: c.get('principal').instance.rotateApiKey() };
    return c.json(body, 200);
  });
  return app;
}
