// The controls of the state and time of the server or of one account (control.openapi.yaml has
// the full description). Those marked * act on one account's home when the request is scoped to it
// (scope.ts: ?account=ID or the account's admin key), else on the whole server:
//   POST /__tusk/reset          *  back to the seeded state (the clock keeps its time)
//   POST /__tusk/seed {seed}       re-seed the fixtures and reset (whole server only)
//   GET  /__tusk/state          *  dump the state;  PUT: load one (400 and no change when invalid)
//   GET  /__tusk/clock          *  {now, pinned, offset_ms};  POST {advance|set|pin|follow_server}
//   GET  /__tusk/outbox         *  callbacks and notifications sent (?status=, ?kind=)
//   GET  /__tusk/requests?limit=N * the request journal;  DELETE: empty it
//   POST /__tusk/accounts          a fresh isolated account with a key per role (whole server only)
//   GET  /__tusk/openapi.json     the control plane's document
import { Hono, type Context } from 'hono';
import { ApiError, badRequest, invalid } from '../core/errors.js';
import { CONTROL_BODY_BYTES } from '../core/limits.js';
import { StateError } from '../store/snapshot.js';
import type { Registry } from '../store/registry.js';
import type { ControlDeps } from './deps.js';
import { controlBody, jsonOf } from './body.js';
import { loadAccountState, loadState } from './state.js';
import { scopeOf, serverOnly, type Scope } from './scope.js';
import { AccountClock, clockTimeProblem, type VirtualClock } from '../store/clock.js';
import { isoTime as iso } from '../store/dates.js';
import { parseDuration } from '../core/duration.js';
import { freshAccount } from './accounts.js';

function resetResult(registry: Registry, scope: Scope = { kind: 'server' }) {
  const accounts = scope.kind === 'account' ? [scope.home.records] : [...registry.allAccounts()];
  return {
    seed: registry.seed,
    now: iso(clockIn(registry, scope).now()),
    accounts: accounts.map((a) => ({ account_id: a.id, name: a.name })),
  };
}

/** The clock a scope reads and moves: the server's, or the account's. */
function clockIn(registry: Registry, scope: Scope): VirtualClock | AccountClock {
  return scope.kind === 'account' ? scope.home.clock : registry.clock;
}

function clockView(registry: Registry, scope: Scope) {
  const clock = clockIn(registry, scope);
  return {
    now: iso(clock.now()),
    pinned: clock.isPinned,
    offset_ms: clock.offsetMs,
    ...(scope.kind === 'account' ? { account: scope.home.id, follows_server: scope.home.clock.follows } : {}),
  };
}

/** A time of a clock move as ms, refused (400 naming `field`) when not a time or where the clock cannot stand. */
function parseTime(value: string, field: string): number {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw invalid(field, 'format', `${value} is not an ISO 8601 time`);
  const problem = clockTimeProblem(ms);
  if (problem) throw invalid(field, 'range', problem);
  return ms;
}

export function stateRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const registry = deps.registry;
  const scope = (c: Context) => scopeOf(c, registry, deps.controlKey);

  app.post('/reset', (c) => {
    // One account (`?account=ID`, or the account whose admin key the request carries) or all.
    const s = scope(c);
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

  app.post('/seed', async (c) => {
    serverOnly(scope(c), 'POST /__tusk/seed');
    const { seed } = await controlBody(c, deps.document, 'reseed');
    registry.reseed(seed);
    deps.clockMoved();
    return c.json(resetResult(registry));
  });

  app.get('/state', (c) => {
    const s = scope(c);
    return c.json(s.kind === 'account' ? s.home.dump() : registry.toJSON());
  });

  app.put('/state', async (c) => {
    const s = scope(c);
    const value = await jsonOf(c, true, CONTROL_BODY_BYTES.state);
    try {
      if (s.kind === 'account') loadAccountState(registry, s.home.id, value, deps.app.schemas, deps.document);
      else loadState(registry, value, deps.app.schemas, deps.document);
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

  app.get('/clock', (c) => c.json(clockView(registry, scope(c))));

  app.post('/clock', async (c) => {
    const s = scope(c);
    const move = await controlBody(c, deps.document, 'moveClock');
    const clock = clockIn(registry, s);
    if (move.follow_server !== undefined) {
      if (s.kind !== 'account')
        throw invalid(
          'follow_server',
          'scope',
          "only an account follows the server's clock: scope the request to an account (?account=ID or its admin key)",
        );
      if (move.follow_server) s.home.clock.follow();
    } else if (move.advance !== undefined) {
      const ms = parseDuration(move.advance);
      if (ms === undefined)
        throw invalid(
          'advance',
          'duration',
          `${JSON.stringify(move.advance)} is not a duration (e.g. 10m, 1.5h, 30d, 250ms, or a number of ms)`,
        );
      const problem = clockTimeProblem(clock.now() + ms);
      if (problem) throw invalid('advance', 'range', problem);
      clock.advance(ms);
    } else if (move.set !== undefined) {
      clock.set(parseTime(move.set, 'set'));
    } else if (move.pin !== undefined) {
      clock.pin(move.pin === null ? undefined : parseTime(move.pin, 'pin'));
    }
    deps.clockMoved();
    return c.json(clockView(registry, s));
  });

  app.get('/outbox', (c) => {
    const status = c.req.query('status');
    const kind = c.req.query('kind');
    const statuses = ['pending', 'sending', 'delivered', 'failed', 'recorded'];
    if (status !== undefined && !statuses.includes(status))
      throw invalid('status', 'enum', `must be one of ${statuses.join(', ')}`);
    if (kind !== undefined && kind !== 'callback' && kind !== 'notification')
      throw invalid('kind', 'enum', 'must be callback or notification');
    const s = scope(c);
    const entries = (s.kind === 'account' ? s.home.outbox() : registry.outbox.list())
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
        ...(e.account !== undefined ? { account: e.account } : {}),
      }));
    return c.json({ entries });
  });

  app.get('/requests', (c) => {
    const s = scope(c);
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

  app.delete('/requests', (c) => {
    const s = scope(c);
    if (s.kind === 'account') s.home.clearRequests();
    else registry.journal.clear();
    return c.body(null, 204);
  });

  app.post('/accounts', async (c) => {
    serverOnly(scope(c), 'POST /__tusk/accounts');
    const options = await controlBody(c, deps.document, 'createAccount');
    const { fixture, keys } = freshAccount(options ?? {});
    try {
      registry.addAccount(fixture);
    } catch (err) {
      throw badRequest(`the account cannot be created: ${(err as Error).message}`);
    }
    return c.json(
      { account_id: fixture.id, name: fixture.name, team_email: fixture.teamEmail, admin_key: keys.admin, keys },
      201,
    );
  });

  app.get('/openapi.json', (c) => c.json(deps.document.document()));

  return app;
}
