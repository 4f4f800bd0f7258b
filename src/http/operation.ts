// How a resource sub-app routes one operation, naming its operationId once:
//   const op = operationsOf<Ops, InstanceEnv>(route);
//   app.get('/:id', ...op('getAlarm', (c, { params }) => {
//     return c.get('principal').instance.alarms.get(params.id);
//   }));
// gives the operation's pipeline (route(id): auth, parse, validate, rate limit) and its handler. The
// handler receives the validated input typed by that operation (from the generated types) and
// returns the operation's 200 body, typed by the document (sent as JSON), NO_CONTENT (204, no body),
// or a Response of its own (bytesAnswer: bytes the store keeps, the audit log's CSV). The answer is
// made here, with its success status: where the document allows several, the one the answer mode
// asks for (answers.ts: the implementation's own, production's `x-production-status`, or the next
// documented one); a status with a body answered without one gets the documented example. Handlers have
// block bodies: a mutation of an expression-bodied arrow would take effect when the route is
// registered, where the mutation tests (Stryker's mutant switching) cannot see it, and survive for
// no fault of the tests.
import type { Context, Env, MiddlewareHandler } from 'hono';
import { input, type Route } from './app.js';
import type { SuccessCodes } from './answers.js';
import type { Input, ResponseBody } from './types.js';

/** A handler's answer for 204: no body. */
export const NO_CONTENT: unique symbol = Symbol('204 No Content');

export type Answer<Ops, Id extends keyof Ops> = ResponseBody<Ops, Id> | typeof NO_CONTENT | Response;

/**
 * A 200 whose body the store keeps as bytes: the JSON of the documented body made once and kept
 * until what it shows changes (src/resources/account-views.ts and the like; each is tested to equal
 * JSON.stringify of its list), or the audit log's CSV.
 */
export function bytesAnswer(c: Context, body: Uint8Array, contentType = 'application/json'): Response {
  return c.body(body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': contentType });
}

/** The routing of one interface's operations (`Ops`, the generated `operations`) in sub-apps of env `E`. */
export function operationsOf<Ops, E extends Env>(route: Route) {
  return <Id extends keyof Ops & string>(
    operationId: Id,
    handler: (c: Context<E>, input: Input<Ops, Id>) => Answer<Ops, Id>,
  ): [MiddlewareHandler<E>, (c: Context<E>) => Response] => [
    route(operationId),
    answer(operationId, route.successCodes(operationId), (c) => handler(c, input<Ops, Id>(c))),
  ];
}

/** Makes the response of a handler's answer, with the success status its codes choose. */
function answer<E extends Env>(
  operationId: string,
  codes: SuccessCodes | undefined,
  handler: (c: Context<E>) => unknown,
): (c: Context<E>) => Response {
  return (c) => {
    const out = handler(c);
    if (out instanceof Response) return out;
    // A handler that forgot its return (an object literal read as a block) is a bug, not a 200 with no body.
    if (out === undefined) throw new Error(`the handler of ${operationId} returned nothing`);
    const natural = out === NO_CONTENT ? 204 : 200;
    const status = codes ? codes.status(c, natural) : natural;
    if (status === 204) return c.body(null, 204);
    if (out === NO_CONTENT)
      return c.body(codes?.example(status) ?? '{}', status as 200, { 'Content-Type': 'application/json' });
    return c.json(out as object, status as 200);
  };
}
