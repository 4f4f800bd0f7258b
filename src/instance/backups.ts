// Backups: list (last 30 days), create (asynchronous, with an optional callback), restore and
// point-in-time recovery. The rules live in the store (InstanceStore / instance-backups.ts).
import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { InstanceEnv, InstanceOperations } from './env.js';

type Ops = InstanceOperations;

export function backupsApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  app.get('/', route('listBackups'), (c) => {
    const { query } = input<Ops, 'listBackups'>(c);
    const body: ResponseBody<Ops, 'listBackups'> = c.get('principal').instance.listBackups(query.db);
    return c.json(body, 200);
  });
  app.post('/', route('createBackup'), (c) => {
    const { body } = input<Ops, 'createBackup'>(c);
    c.get('principal').instance.createBackup(body ?? {});
    return c.body(null, 204);
  });
  app.post('/restore', route('restoreBackup'), (c) => {
    const { body } = input<Ops, 'restoreBackup'>(c);
    c.get('principal').instance.restoreBackup(body);
    return c.body(null, 204);
  });
  app.post('/pitr', route('recoverToPointInTime'), (c) => {
    const { body } = input<Ops, 'recoverToPointInTime'>(c);
    c.get('principal').instance.recoverToPointInTime(body);
    return c.body(null, 204);
  });
  return app;
}
