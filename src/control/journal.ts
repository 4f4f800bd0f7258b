// The request journal (outside the contract): the last requests answered (src/domain/journal.ts),
// the server's, or one account's when the request is scoped to it (scope.ts).
//   GET    /__tusk/requests?limit=N   the newest N (default 100), newest last
//   DELETE /__tusk/requests           empty it (204)
import { Hono } from 'hono';
import { invalid } from '../core/errors.js';
import type { ControlDeps } from './deps.js';
import { scopeOf } from './scope.js';

export function journalRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const { registry } = deps;
  app.get('/', (c) => {
    const s = scopeOf(c, registry, deps.controlKey);
    const raw = c.req.query('limit');
    const limit = raw === undefined ? 100 : Number(raw);
    const journal = registry.journal;
    if (!Number.isInteger(limit) || limit < 1 || limit > journal.capacity) {
      throw invalid('limit', 'range', `must be an integer from 1 to ${journal.capacity}, got "${raw}"`);
    }
    return c.json({
      capacity: journal.capacity,
      entries: s.kind === 'account' ? s.home.requests(limit) : journal.last(limit),
    });
  });
  app.delete('/', (c) => {
    const s = scopeOf(c, registry, deps.controlKey);
    if (s.kind === 'account') s.home.clearRequests();
    else registry.journal.clear();
    return c.body(null, 204);
  });
  return app;
}
