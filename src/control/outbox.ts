// What the server sent out (outside the contract): callbacks of backups, restores and recoveries, and
// alarm notifications, with their delivery (src/domain/outbox.ts); the server's, or one account's
// when the request is scoped to it (scope.ts).
//   GET /__tusk/outbox?status=pending|sending|delivered|failed|recorded&kind=callback|notification
import { Hono } from 'hono';
import { invalid } from '../core/errors.js';
import { isoTime } from '../domain/dates.js';
import type { ControlDeps } from './deps.js';
import { scopeOf } from './scope.js';

const STATUSES = ['pending', 'sending', 'delivered', 'failed', 'recorded'];

export function outboxRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const { registry } = deps;
  app.get('/', (c) => {
    const status = c.req.query('status');
    const kind = c.req.query('kind');
    if (status !== undefined && !STATUSES.includes(status))
      throw invalid('status', 'enum', `must be one of ${STATUSES.join(', ')}`);
    if (kind !== undefined && kind !== 'callback' && kind !== 'notification')
      throw invalid('kind', 'enum', 'must be callback or notification');
    const s = scopeOf(c, registry, deps.controlKey);
    const entries = (s.kind === 'account' ? s.home.outbox() : registry.outbox.list())
      .filter((e) => (status === undefined || e.status === status) && (kind === undefined || e.kind === kind))
      .map((e) => ({
        id: e.id,
        kind: e.kind,
        event: e.event,
        target: e.target,
        body: e.body,
        due_at: isoTime(e.dueAt),
        attempts: e.attempts,
        status: e.status,
        ...(e.result !== undefined ? { result: e.result } : {}),
        ...(e.account !== undefined ? { account: e.account } : {}),
      }));
    return c.json({ entries });
  });
  return app;
}
