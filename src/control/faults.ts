// Fault injection through the control API (outside the contract); the rules are in src/http/faults.ts.
//   GET    /__tusk/faults   {"seed": 1, "rules": [...]}
//   PUT    /__tusk/faults   {"rules": [{"operation": "listAlarms", "latency": "100-300ms"}, "*:error=500@0.1"], "seed"?: 7}
//                           replaces every rule (objects or the --fault flag form) and restarts the random sequences
//   DELETE /__tusk/faults   removes every rule (204)
import { Hono } from 'hono';
import { invalid } from '../core/errors.js';
import type { ControlDeps } from './deps.js';
import { controlBody } from './body.js';

export function faultRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const view = () => ({ seed: deps.app.faults.currentSeed, rules: deps.app.faults.list() });

  app.get('/', (c) => c.json(view()));

  app.put('/', async (c) => {
    const body = await controlBody(c, deps.document, 'setFaults');
    const { rules, seed } = Array.isArray(body) ? { rules: body, seed: undefined } : body;
    try {
      deps.app.faults.set(rules, seed);
    } catch (err) {
      throw invalid('rules', 'fault', (err as Error).message);
    }
    return c.json(view());
  });

  app.delete('/', (c) => {
    deps.app.faults.clear();
    return c.body(null, 204);
  });

  return app;
}
