// API coverage of the clients' traffic (outside the contract; the recorder is src/openapi/coverage.ts):
//   GET    /__tusk/coverage   per operation and documented status, how often it was answered (JSON)
//   DELETE /__tusk/coverage   forget the counts (204)
// Scoped to an account (scope.ts: ?account=ID or the account's admin key) they read and clear the
// requests made with that account's keys; unscoped, all traffic.
import { Hono, type Context } from 'hono';
import type { ControlDeps } from './deps.js';
import { scopeOf } from './scope.js';

export function coverageRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const accountOf = (c: Context) => {
    const s = scopeOf(c, deps.registry, deps.controlKey);
    return s.kind === 'account' ? s.account.id : undefined;
  };
  app.get('/', (c) => c.json(deps.app.coverage.report(accountOf(c))));
  app.delete('/', (c) => {
    deps.app.coverage.clear(accountOf(c));
    return c.body(null, 204);
  });
  return app;
}
