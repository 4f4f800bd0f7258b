import { Hono } from 'hono';
import type { Route } from '../../http/app.js';
import { bytesAnswer, operationsOf } from '../../http/operation.js';
import type { CustomerEnv, CustomerOperations } from '../env.js';

export function auditLogApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  const op = operationsOf<CustomerOperations, CustomerEnv>(route);
  app.get(
    '/csv',
    ...op('getAuditLogCsv', (c, { query }) => {
      return bytesAnswer(c, c.get('principal').account.audit.csvBytes(query.timestamp), 'text/csv; charset=utf-8');
    }),
  );
  return app;
}
