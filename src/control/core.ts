// The core controls (see control.openapi.yaml for the full description):
//   POST /__tusk/reset            back to the seeded state (the clock keeps its time)
//   POST /__tusk/seed {seed}      re-seed the fixtures and reset
//   GET  /__tusk/state            dump the whole state;  PUT: load one (400 and no change when invalid)
//   GET  /__tusk/clock            {now, pinned, offset_ms};  POST {advance|set|pin}
//   GET  /__tusk/outbox           callbacks and notifications sent (?status=, ?kind=)
//   GET  /__tusk/requests?limit=N the request journal;  DELETE: empty it
//   POST /__tusk/accounts         a fresh isolated account with a key per role
//   GET  /__tusk/openapi.json     the control plane's document
import { Hono, type Context } from 'hono';
import { ApiError, badRequest, invalid } from '../core/errors.js';
import { StateError } from '../store/snapshot.js';
import type { Registry } from '../store/registry.js';
import type { ControlDeps } from './deps.js';
import { controlBody, jsonOf } from './body.js';
import { loadState } from './state.js';
import { parseDuration } from './duration.js';
import { freshAccount } from './accounts.js';
import { basicCredentials } from '../http/pipeline.js';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The account a control request is scoped to: `?account=ID` (404 when no account has it), else the
 * account whose admin key the request carries as HTTP Basic; undefined for the whole server.
 */
function accountOf(c: Context, registry: Registry): string | undefined {
  const id = c.req.query('account');
  if (id !== undefined) {
    if (!registry.account(id)) throw new ApiError(404, `Not found: no account with id ${id}`);
    return id;
  }
  const creds = basicCredentials(c.req.header('authorization'));
  const key = creds?.password || creds?.user;
  const principal = key ? registry.authenticateCustomer(key) : undefined;
  return principal?.key.role === 'admin' ? principal.account.id : undefined;
}

function resetResult(registry: Registry) {
  return {
    seed: registry.seed,
    now: iso(registry.clock.now()),
    accounts: [...registry.allAccounts()].map((a) => ({ account_id: a.id, name: a.name })),
  };
}

function clockOf(registry: Registry) {
  return { now: iso(registry.clock.now()), pinned: registry.clock.isPinned, offset_ms: registry.clock.offsetMs };
}

function parseTime(value: string, field: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw invalid(field, 'format', `${value} is not an ISO 8601 time`);
  return ms;
}

export function coreRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const registry = deps.registry;

  app.post('/reset', (c) => {
    // One account (`?account=ID`, or the account whose admin key the request carries) or all.
    const account = accountOf(c, registry);
    if (account) {
      try {
        registry.resetAccount(account);
      } catch (err) {
        if (err instanceof StateError) throw new ApiError(400, `account: ${err.problems.join('; ')}`, { field: 'account', rule: 'resettable' });
        throw err;
      }
    } else registry.reset();
    deps.clockMoved();
    return c.json(resetResult(registry));
  });

  app.post('/seed', async (c) => {
    const { seed } = await controlBody(c, deps.document, 'reseed');
    registry.reseed(seed);
    deps.clockMoved();
    return c.json(resetResult(registry));
  });

  app.get('/state', (c) => c.json(registry.toJSON()));

  app.put('/state', async (c) => {
    const value = await jsonOf(c, true);
    try {
      loadState(registry, value, deps.app.schemas, deps.document);
    } catch (err) {
      if (err instanceof StateError) throw new ApiError(400, err.message, { rule: 'state' });
      throw err;
    }
    deps.clockMoved();
    return c.json(resetResult(registry));
  });

  app.get('/clock', (c) => c.json(clockOf(registry)));

  app.post('/clock', async (c) => {
    const move = await controlBody(c, deps.document, 'moveClock');
    const clock = registry.clock;
    if (move.advance !== undefined) {
      const ms = parseDuration(move.advance);
      if (ms === undefined) throw invalid('advance', 'duration', `${JSON.stringify(move.advance)} is not a duration (e.g. 10m, 1.5h, 30d, 250ms, or a number of ms)`);
      clock.advance(ms);
    } else if (move.set !== undefined) {
      clock.set(parseTime(move.set, 'set'));
    } else if (move.pin !== undefined) {
      clock.pin(move.pin === null ? undefined : parseTime(move.pin, 'pin'));
    }
    deps.clockMoved();
    return c.json(clockOf(registry));
  });

  app.get('/outbox', (c) => {
    const status = c.req.query('status');
    const kind = c.req.query('kind');
    const statuses = ['pending', 'sending', 'delivered', 'failed', 'recorded'];
    if (status !== undefined && !statuses.includes(status)) throw invalid('status', 'enum', `must be one of ${statuses.join(', ')}`);
    if (kind !== undefined && kind !== 'callback' && kind !== 'notification') throw invalid('kind', 'enum', 'must be callback or notification');
    const entries = registry
      .outbox.list()
      .filter((e) => (status === undefined || e.status === status) && (kind === undefined || e.kind === kind))
      .map((e) => ({
        id: e.id,
        kind: e.kind,
        event: e.event,
        target: e.target,
        body: e.body,
        due_at: iso(e.dueAt),
        attempts: e.attempts,
        status: e.status,
        ...(e.result !== undefined ? { result: e.result } : {}),
      }));
    return c.json({ entries });
  });

  app.get('/requests', (c) => {
    const raw = c.req.query('limit');
    const limit = raw === undefined ? 100 : Number(raw);
    if (!Number.isInteger(limit) || limit < 1 || limit > deps.journal.capacity) {
      throw invalid('limit', 'range', `must be an integer from 1 to ${deps.journal.capacity}, got "${raw}"`);
    }
    return c.json({ capacity: deps.journal.capacity, entries: deps.journal.last(limit) });
  });

  app.delete('/requests', (c) => {
    deps.journal.clear();
    return c.body(null, 204);
  });

  app.post('/accounts', async (c) => {
    const options = await controlBody(c, deps.document, 'createAccount');
    const { fixture, keys } = freshAccount(options ?? {});
    try {
      registry.addAccount(fixture);
    } catch (err) {
      throw badRequest(`the account cannot be created: ${(err as Error).message}`);
    }
    return c.json({ account_id: fixture.id, name: fixture.name, team_email: fixture.teamEmail, admin_key: keys.admin, keys }, 201);
  });

  app.get('/openapi.json', (c) => c.json(deps.document.document()));

  return app;
}
