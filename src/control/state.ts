// The state of the server or of one account, dumped and loaded (outside the contract):
//   GET /__tusk/state   the dump: the whole server's (State), or one account's (AccountState) when
//                       the request is scoped to it (scope.ts: ?account=ID or its admin key)
//   PUT /__tusk/state   load one: checked whole first (state-check.ts), a 400 naming the field and
//                       the rule and no change when it is not valid
import { Hono } from 'hono';
import { ApiError } from '../core/errors.js';
import { CONTROL_BODY_BYTES } from '../core/limits.js';
import { StateError } from '../domain/state.js';
import type { ControlDeps } from './deps.js';
import { jsonOf } from './body.js';
import { scopeOf } from './scope.js';
import { loadAccountState, loadState } from './state-check.js';
import { resetResult } from './reset.js';

export function stateRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const { registry } = deps;
  const schemas = { schemas: deps.schemas, control: deps.document };
  app.get('/', (c) => {
    const s = scopeOf(c, registry, deps.controlKey);
    return c.json(s.kind === 'account' ? s.home.dump() : registry.dump());
  });
  app.put('/', async (c) => {
    const s = scopeOf(c, registry, deps.controlKey);
    const value = await jsonOf(c, true, CONTROL_BODY_BYTES.state);
    try {
      if (s.kind === 'account') loadAccountState(registry, s.home.id, value, schemas);
      else loadState(registry, value, schemas);
    } catch (err) {
      if (err instanceof StateError)
        throw new ApiError(400, err.message, {
          ...(err.field !== undefined ? { field: err.field } : {}),
          rule: err.rule,
        });
      throw err;
    }
    deps.clockMoved();
    return c.json(resetResult(registry, s));
  });
  return app;
}
