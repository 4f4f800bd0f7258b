// Rotation of the instance password (visible in the customer interface's `url`) and of the
// instance API key (the old key is refused from the next request on).
import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { NO_CONTENT, operationsOf } from '../../http/operation.js';
import type { InstanceEnv, InstanceOperations } from '../env.js';

export function rotationApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  const op = operationsOf<InstanceOperations, InstanceEnv>(route);
  app.post(
    '/rotate-password',
    ...op('rotatePassword', (c) => {
      c.get('principal').instance.rotatePassword();
      return NO_CONTENT;
    }),
  );
  app.post(
    '/rotate-apikey',
    ...op('rotateInstanceApiKey', (c) => {
      return { apikey: c.get('principal').instance.rotateApiKey() };
    }),
  );
  return app;
}
