// Fault injection through the control API (outside the contract); the rules are in src/http/faults.ts.
//   GET    /__tusk/faults   {"seed": 1, "rules": [...]}
//   PUT    /__tusk/faults   {"rules": [{"operation": "listAlarms", "latency": "100-300ms"}, "*:error=500@0.1"], "seed"?: 7}
//                           replaces every rule (objects or the --fault flag form) and restarts the random sequences
//   DELETE /__tusk/faults   removes every rule (204)
import { Hono } from 'hono';
import { invalid } from '../core/errors.js';
import type { ControlDeps } from './deps.js';

export function faultRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const view = () => ({ seed: deps.app.faults.currentSeed, rules: deps.app.faults.list() });

  app.get('/', (c) => c.json(view()));

  app.put('/', async (c) => {
    const text = await c.req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw invalid('body', 'json', `malformed JSON (${(err as Error).message})`);
    }
    const { rules, seed, ...rest } = (Array.isArray(body) ? { rules: body } : (body ?? {})) as { rules?: unknown; seed?: unknown };
    const extra = Object.keys(rest);
    if (extra.length) throw invalid(extra[0]!, 'additionalProperties', 'is not a field (rules, seed)');
    if (!Array.isArray(rules)) throw invalid('rules', 'type', 'must be an array of fault rules');
    if (seed !== undefined && !(typeof seed === 'number' && Number.isSafeInteger(seed) && seed >= 0)) throw invalid('seed', 'type', 'must be a non-negative integer');
    try {
      deps.app.faults.set(rules, seed as number | undefined);
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
