// Builds one interface's Hono app from its document: every operation of the document is routed
// through the request pipeline to a handler of a resource sub-app, and app.onError / app.notFound
// are the one place errors become the documented JSON Error body (never Hono's plain text).
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import { readOperations, type OperationInfo } from '../openapi/operations.js';
import type { SchemaSet } from '../openapi/ajv.js';
import { OperationValidator } from '../openapi/requests.js';
import { ApiError } from '../core/errors.js';
import {
  authenticate,
  authorize,
  composeSteps,
  operationSteps,
  parseBody,
  rateLimit,
  validateRequest,
  type AuthenticateOptions,
  type AuthorizeOptions,
  type PipelineEnv,
} from './pipeline.js';
import type { Limiter } from './rate-limit.js';
import type { Clock } from '../domain/clock.js';
import { faultStep } from './fault-step.js';
import type { Faults } from '../domain/fault-rules.js';
import { preferStep } from './prefer.js';
import type { AnswerOptions } from './answers.js';
import { MemoRouter } from './router.js';
import { methodGuard } from './method-guard.js';
import { moveFused, observeResponses, type ResponseInfo } from './fast-path.js';
import { finishing, type Finish } from './finish.js';

/** route(id): the pipeline of one operation; route.finish(id): what makes its answer (finish.ts). */
export interface Route {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one route() serves both interfaces' envs
  (operationId: string): MiddlewareHandler<any>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as route()
  finish(operationId: string): Finish<any>;
}

export interface ApiAppOptions<P> {
  api: InterfaceName;
  doc: OpenApiDocument;
  schemas: SchemaSet;
  authenticate: AuthenticateOptions<P>;
  authorize?: AuthorizeOptions<P>;
  limiter: () => Limiter;
  /** Mounts the resource sub-apps; `route(id)` gives the pipeline of one operation. */
  mount: (app: Hono<PipelineEnv<P>>, route: Route, validators: ReadonlyMap<string, OperationValidator>) => void;
  /** Called once per finished request (request log, journal). */
  onResponse?: (r: ResponseInfo, ms: number) => void;
  /**
   * Routes outside the contract (API reference at /docs, the documents at /openapi.json, the
   * control plane under /__tusk/), registered before the resources. They are not authenticated by
   * the pipeline and errors they throw still go through the one error handler.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- extensions serve both interfaces
  extensions?: ((app: Hono<any>, api: InterfaceName) => void)[];
  /** Outside the contract: fault injection (first step of every operation) and the Prefer header (last). */
  simulation?: {
    faults?: () => Faults | undefined;
    accountFaults?: (c: Context) => Faults | undefined;
    prefer?: boolean;
  };
  /**
   * The clock of the principal's account: rate-limit windows follow the account's time, and the
   * answers tell it (finish.ts); absent: the limiter's own clock, and no time told.
   */
  principalClock?: (principal: P) => Clock;
  /**
   * Told of every answer of an operation's route, the not-found handler and the error handler,
   * with the request's context (its operationId, when an operation took it, and principal): API
   * coverage (src/openapi/coverage-recorder.ts).
   */
  onAnswer?: (c: Context<PipelineEnv<P>>, res: Response) => void;
  /** Which success code to answer where the documents allow several (answers.ts); default: the implementation's own. */
  answers?: AnswerOptions;
  /** `--strict-fields`: refuse body fields the schema does not name instead of ignoring them. */
  strictFields?: () => boolean;
}

export type { ResponseInfo } from './fast-path.js';

export function createApiApp<P>(options: ApiAppOptions<P>): Hono<PipelineEnv<P>> {
  const ops = readOperations(options.api, options.doc);
  const validators = new Map(ops.map((o) => [o.operationId, new OperationValidator(o, options.doc, options.schemas)]));
  const auth = authenticate<P>(options.authenticate);
  const authz = options.authorize ? authorize<P>(options.authorize) : undefined;
  const { principalClock } = options;
  const limit = rateLimit<P>({ limiter: options.limiter, principalClock });
  const routed = new Set<string>();
  const opsById = new Map(ops.map((o) => [o.operationId, o]));
  // The pipeline middleware route() hands out, by the operation it serves (moveFused() below fuses it).
  const pipelines = new WeakMap<object, OperationInfo>();
  // What finishes each operation's answers, and the errors (finish.ts).
  const finish = finishing<P>({ doc: options.doc, answers: options.answers, principalClock });
  const finishes = new Map<string, Finish<P>>();
  const route: Route = Object.assign(
    (operationId: string) => {
      const validator = validators.get(operationId);
      if (!validator) throw new Error(`route(): the ${options.api} document has no operation ${operationId}`);
      if (routed.has(operationId)) throw new Error(`route(): ${operationId} is routed twice`);
      routed.add(operationId);
      const op = opsById.get(operationId)!;
      const sim = options.simulation;
      const pipeline = composeSteps(
        operationSteps<P>(operationId, {
          authenticate: auth,
          authorize: authz,
          parse: parseBody<P>({ acceptsBody: validator.acceptsBody }),
          validate: validateRequest<P>({
            validator,
            ...(options.strictFields ? { strictFields: options.strictFields } : {}),
          }),
          rateLimit: limit,
          ...(sim?.faults
            ? {
                faults: faultStep({
                  doc: options.doc,
                  op,
                  server: sim.faults,
                  ...(sim.accountFaults ? { account: sim.accountFaults } : {}),
                }),
              }
            : {}),
          ...(sim?.prefer ? { prefer: preferStep(options.doc, op) } : {}),
        }),
      );
      pipelines.set(pipeline, op);
      finishes.set(operationId, finish.answer(op));
      return pipeline;
    },
    {
      finish: (operationId: string) => {
        const made = finishes.get(operationId);
        if (!made) throw new Error(`route.finish(): ${operationId} is not routed (call route() first)`);
        return made;
      },
    },
  );

  // The method guard (405 with Allow, method-guard.ts): first in the routes it concerns, and in the not-found handler.
  const guard = methodGuard(ops);

  // Extensions and resources are mounted on a staging app, then moved to the app with each
  // operation's pipeline and handler fused into one handler (fast-path.ts says why).
  const staging = new Hono<PipelineEnv<P>>();
  for (const extend of options.extensions ?? []) extend(staging, options.api);
  options.mount(staging, route, validators);
  const app = new Hono<PipelineEnv<P>>({ router: new MemoRouter() });
  moveFused(staging, app, (pipeline) => {
    const op = pipelines.get(pipeline);
    return (
      op && {
        operationId: op.operationId,
        guard: guard.forRoute(op),
        answered: options.onAnswer,
      }
    );
  });

  // Every operation of the document is routed, at its own method and path, and nothing else is.
  const missing = ops.filter((o) => !routed.has(o.operationId)).map((o) => o.operationId);
  if (missing.length) throw new Error(`the ${options.api} app routes no handler for: ${missing.join(', ')}`);
  const registered = new Set(app.routes.map((r) => `${r.method} ${r.path}`));
  const misplaced = ops
    .filter((o) => !registered.has(`${o.method.toUpperCase()} ${o.routePath}`))
    .map((o) => `${o.operationId} (${o.method.toUpperCase()} ${o.path})`);
  if (misplaced.length)
    throw new Error(
      `the ${options.api} app routes these operations elsewhere than the document says: ${misplaced.join(', ')}`,
    );

  // The one place errors become answers; the not-found handler's 404 is made by it too.
  const answerError = (err: unknown, c: Context<PipelineEnv<P>>) => {
    const res = finish.error(c, err);
    options.onAnswer?.(c, res);
    return res;
  };
  app.notFound((c) => {
    guard.check(c);
    const path = `${c.req.method} ${c.req.path}`;
    return answerError(new ApiError(404, `Not found: ${path} is not a resource of the ${options.api} interface`), c);
  });
  app.onError(answerError);

  // The request log and journal see every answer, errors and not-found included.
  if (options.onResponse) observeResponses(app, options.onResponse);
  return app;
}
