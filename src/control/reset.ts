// Back to the seeded state (outside the contract; control.openapi.yaml has the full description):
//   POST /__tusk/reset   the whole server, or one account when the request is scoped to it
//                        (scope.ts: ?account=ID or the account's admin key); the clock keeps its time
// resetResult() is the answer of every control that replaces accounts (reset, seed, a state load).
import { Hono } from 'hono';
import { ApiError } from '../core/errors.js';
import { isoTime } from '../domain/dates.js';
import { StateError } from '../domain/state.js';
import type { Registry } from '../accounts/registry.js';
import type { ControlDeps } from './deps.js';
import { scopeOf, type Scope } from './scope.js';

/** The seed, the time and the accounts of the server, or of the one account a scope names. */
export function resetResult(registry: Registry, scope: Scope = { kind: 'server' }) {
  const accounts = scope.kind === 'account' ? [scope.home.records] : [...registry.allHomes()].map((h) => h.records);
  const clock = scope.kind === 'account' ? scope.home.clock : registry.clock;
  return {
    seed: registry.seed,
    now: isoTime(clock.now()),
    accounts: accounts.map((a) => ({ account_id: a.id, name: a.name })),
  };
}

export function resetRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const { registry } = deps;
  app.post('/', (c) => {
    const s = scopeOf(c, registry, deps.controlKey);
    if (s.kind === 'account') {
      try {
        registry.resetAccount(s.home.id);
      } catch (err) {
        if (err instanceof StateError)
          throw new ApiError(400, `account: ${err.problems.join('; ')}`, { field: 'account', rule: 'resettable' });
        throw err;
      }
    } else {
      registry.reset(); // new homes: the accounts' own fault rules go with the old ones
    }
    deps.clockMoved();
    return c.json(resetResult(registry, s));
  });
  return app;
}
