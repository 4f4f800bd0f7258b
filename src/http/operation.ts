// How a resource sub-app routes one operation, naming its operationId once:
//   const op = operationsOf<Ops, InstanceEnv>(route);
//   app.get('/:id', ...op('getAlarm', (c, { params }) => {
//     return c.get('principal').instance.alarms.get(params.id);
//   }));
// gives the operation's pipeline (route(id): auth, parse, validate, rate limit) and its handler. The
// handler receives the validated input typed by that operation (from the generated types) and
// returns the operation's 200 body, typed by the document (sent as JSON), NO_CONTENT (204, no body),
// or a Response of its own (bytesAnswer: bytes the store keeps, the audit log's CSV). The operation's
// finishing step (route.finish(id), finish.ts) makes the response of that answer: its success
// status, the documented example of a bodiless status, and the headers every answer carries.
// Handlers have block bodies: a mutation of an expression-bodied arrow would take effect when the
// route is registered, where the mutation tests (Stryker's mutant switching) cannot see it, and
// survive for no fault of the tests.
import type { Context, MiddlewareHandler } from 'hono';
import type { Route } from './app.js';
import { NO_CONTENT, type Finish } from './finish.js';
import type { PipelineEnv } from './pipeline.js';
import type { Input, ResponseBody } from './types.js';

export { NO_CONTENT };

export type Answer<Ops, Id extends keyof Ops> = ResponseBody<Ops, Id> | typeof NO_CONTENT | Response;

/**
 * A 200 whose body the store keeps as bytes: the JSON of the documented body made once and kept
 * until what it shows changes (Instances.listJson in src/resources/instances/instances.ts and the like; each is tested to equal
 * JSON.stringify of its list), or the audit log's CSV.
 */
export function bytesAnswer(c: Context, body: Uint8Array, contentType = 'application/json'): Response {
  return c.body(body as Uint8Array<ArrayBuffer>, 200, { 'Content-Type': contentType });
}

/**
 * The routing of one interface's operations (`Ops`, the generated `operations`) in sub-apps of env
 * `E`. `P`, its principal, is not for callers to give: it names the env's principal as a type
 * parameter, on which the request's variables keep their types inside this function.
 */
export function operationsOf<Ops, E extends PipelineEnv<unknown>, P = PrincipalOf<E>>(route: Route) {
  return <Id extends keyof Ops & string>(
    operationId: Id,
    handler: (c: Context<PipelineEnv<P>>, input: Input<Ops, Id>) => Answer<Ops, Id>,
  ): [MiddlewareHandler<PipelineEnv<P>>, (c: Context<PipelineEnv<P>>) => Response] => {
    const pipeline = route(operationId);
    const finish: Finish<P> = route.finish(operationId);
    // The pipeline validated the input against this operation's document: it has the operation's types.
    return [pipeline, (c) => finish(c, handler(c, c.get('input') as Input<Ops, Id>))];
  };
}

/** The principal of a pipeline's env. */
type PrincipalOf<E> = E extends PipelineEnv<infer P> ? P : never;
