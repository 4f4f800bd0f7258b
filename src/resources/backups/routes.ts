// Backups: list (last 30 days), create (asynchronous, with an optional callback), restore and
// point-in-time recovery. The rules live in the store (InstanceStore / instance-backups.ts).
import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { NO_CONTENT, bytesAnswer, operationsOf } from '../../http/operation.js';
import type { InstanceEnv, InstanceOperations } from '../env.js';

type Ops = InstanceOperations;

export function backupsApp(route: Route) {
  const app = new Hono<InstanceEnv>();
  const op = operationsOf<Ops, InstanceEnv>(route);
  app.get(
    '/',
    ...op('listBackups', (c, { query }) => {
      // The bytes of the list as the store keeps them (instance-backups-view.ts: the same JSON as listBackups()).
      return bytesAnswer(c, c.get('principal').instance.backups.listJson(query.db));
    }),
  );
  app.post(
    '/',
    ...op('createBackup', (c, { body }) => {
      c.get('principal').instance.backups.create(body ?? {});
      return NO_CONTENT;
    }),
  );
  app.post(
    '/restore',
    ...op('restoreBackup', (c, { body }) => {
      c.get('principal').instance.backups.restore(body);
      return NO_CONTENT;
    }),
  );
  app.post(
    '/pitr',
    ...op('recoverToPointInTime', (c, { body }) => {
      c.get('principal').instance.backups.recover(body);
      return NO_CONTENT;
    }),
  );
  return app;
}
