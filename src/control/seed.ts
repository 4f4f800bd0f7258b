// Another seed for the fixtures (outside the contract; whole server only):
//   POST /__tusk/seed {"seed": N}   re-seeds the fixtures and resets; later resets keep the seed
import { Hono } from 'hono';
import type { ControlDeps } from './deps.js';
import { controlBody } from './body.js';
import { scopeOf, serverOnly } from './scope.js';
import { resetResult } from './reset.js';

export function seedRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const { registry } = deps;
  app.post('/', async (c) => {
    serverOnly(scopeOf(c, registry, deps.controlKey), 'POST /__tusk/seed');
    const { seed } = await controlBody(c, deps.document, 'reseed');
    registry.reseed(seed);
    deps.clockMoved();
    return c.json(resetResult(registry));
  });
  return app;
}
