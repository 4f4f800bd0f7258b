// Fault injection through the control API (outside the contract); the rules are src/domain/fault-rules.ts.
//   GET    /__tusk/faults   {"seed": 1, "rules": [...]}
//   PUT    /__tusk/faults   {"rules": [{"operation": "listAlarms", "latency": "100-300ms"}, "*:error=500@0.1"], "seed"?: 7}
//                           replaces every rule (objects or the --fault flag form) and restarts the random sequences
//   DELETE /__tusk/faults   removes every rule (204)
// Scoped to an account (scope.ts: ?account=ID or the account's admin key), each acts on that
// account's own rules (kept in its home), which only requests made with the account's keys meet (before the server's);
// unscoped, on the server's rules, which every request meets.
import { Hono, type Context } from 'hono';
import { invalid } from '../core/errors.js';
import type { Faults } from '../domain/fault-rules.js';
import type { ControlDeps } from './deps.js';
import { controlBody } from './body.js';
import { scopeOf } from './scope.js';

export function faultRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  /** The rules the request acts on; `make` creates an account's (empty) rules on first use. */
  const rulesOf = (c: Context, make: boolean): Faults | undefined => {
    const s = scopeOf(c, deps.registry, deps.controlKey);
    if (s.kind === 'server') return deps.registry.faults;
    return make ? s.home.faultsToSet() : s.home.faults;
  };
  const view = (f: Faults | undefined) => ({
    seed: f?.currentSeed ?? deps.registry.faults.serverSeed,
    rules: f?.list() ?? [],
  });

  app.get('/', (c) => c.json(view(rulesOf(c, false))));

  app.put('/', async (c) => {
    const target = rulesOf(c, true)!;
    const body = await controlBody(c, deps.document, 'setFaults');
    const { rules, seed } = Array.isArray(body) ? { rules: body, seed: undefined } : body;
    try {
      target.set(rules, seed);
    } catch (err) {
      throw invalid('rules', 'fault', (err as Error).message);
    }
    return c.json(view(target));
  });

  app.delete('/', (c) => {
    rulesOf(c, false)?.clear();
    return c.body(null, 204);
  });

  return app;
}
