// The virtual clocks (outside the contract): the server's, or one account's when the request is
// scoped to it (scope.ts: ?account=ID or its admin key). An account's clock is the server's until the
// account moves its own (src/domain/clock.ts, AccountClock).
//   GET  /__tusk/clock   {now, pinned, offset_ms} (and, for an account, account and follows_server)
//   POST /__tusk/clock   one of {advance: "10m"}, {set: TIME}, {pin: TIME|null}, {follow_server: true}
import { Hono } from 'hono';
import { invalid } from '../core/errors.js';
import { parseDuration } from '../core/duration.js';
import { AccountClock, clockTimeProblem, type VirtualClock } from '../domain/clock.js';
import { isoTime } from '../domain/dates.js';
import type { Registry } from '../accounts/registry.js';
import type { ControlDeps } from './deps.js';
import { controlBody } from './body.js';
import { scopeOf, type Scope } from './scope.js';

/** The clock a scope reads and moves: the server's, or the account's. */
function clockIn(registry: Registry, scope: Scope): VirtualClock | AccountClock {
  return scope.kind === 'account' ? scope.home.clock : registry.clock;
}

function clockView(registry: Registry, scope: Scope) {
  const clock = clockIn(registry, scope);
  return {
    now: isoTime(clock.now()),
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

export function clockRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const { registry } = deps;
  app.get('/', (c) => c.json(clockView(registry, scopeOf(c, registry, deps.controlKey))));
  app.post('/', async (c) => {
    const s = scopeOf(c, registry, deps.controlKey);
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
  return app;
}
