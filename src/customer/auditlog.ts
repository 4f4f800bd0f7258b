import { Hono } from 'hono';
import { input, type Route } from '../http/app.js';
import type { CustomerEnv, CustomerOperations } from './env.js';

export function auditLogApp(route: Route) {
  const app = new Hono<CustomerEnv>();
  app.get('/csv', route('getAuditLogCsv'), (c) => {
    const { query } = input<CustomerOperations, 'getAuditLogCsv'>(c);
    const csv = c.get('principal').account.auditLogCsv(query.timestamp);
    return c.body(csv, 200, { 'Content-Type': 'text/csv; charset=utf-8' });
  });
  return app;
}
