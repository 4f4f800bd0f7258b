// API coverage of the clients' traffic (outside the contract; the recorder is src/openapi/coverage-recorder.ts):
//   GET    /__tusk/coverage   per operation and documented status, how often it was answered (JSON)
//   DELETE /__tusk/coverage   forget the counts (204)
// Scoped to an account (scope.ts: ?account=ID or the account's admin key) they read and clear the
// requests made with that account's keys; unscoped, all traffic.
import { Hono, type Context } from 'hono';
import type { ControlDeps } from './deps.js';
import { scopeOf } from './scope.js';

export function coverageRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const scope = (c: Context) => scopeOf(c, deps.registry, deps.controlKey);
  app.get('/', (c) => {
    const s = scope(c);
    return c.json(s.kind === 'account' ? s.home.coverage() : deps.registry.coverage.report());
  });
  app.delete('/', (c) => {
    const s = scope(c);
    if (s.kind === 'account') s.home.clearCoverage();
    else deps.registry.coverage.clear();
    return c.body(null, 204);
  });
  return app;
}
