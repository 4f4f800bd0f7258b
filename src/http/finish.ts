// The one finishing step of both interfaces' answers, composed once per operation at start-up
// (createApiApp in app.ts builds it; the handlers of operation.ts and app.onError call it):
// - a handler's answer becomes its response: a body is sent as JSON with 200, NO_CONTENT as 204
//   without a body, a Response of its own as it is; where the document allows several success
//   codes, the answer mode chooses the status (answers.ts), and a status with a body answered
//   without one gets the documented example;
// - the body fields the request-body convention ignored are named in `Tusk-Ignored-Fields`;
// - an error becomes the JSON Error body of the documents (`errorResponse`);
// - every answer to an account whose clock is a second or more off real time, errors included,
//   tells the account's time: in `Date`, and in `Tusk-Now` (ISO 8601 with ms), which reverse proxies
//   pass on where they replace Date with their own (nginx does by default). Within a second of real
//   time neither is set: Date is then right whoever wrote it, and the common answer costs no more.
// The fast path (fast-path.ts) only fuses the route's steps; it adds nothing to an answer.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { ApiError } from '../core/errors.js';
import type { Clock } from '../domain/clock.js';
import type { OpenApiDocument } from '../openapi/documents.js';
import type { OperationInfo } from '../openapi/operations.js';
import { successStatusOf, type AnswerOptions } from './answers.js';
import { ConnectionReset } from './fault-step.js';
import type { PipelineEnv } from './pipeline.js';

/** A handler's answer for 204: no body. */
export const NO_CONTENT: unique symbol = Symbol('204 No Content');

/** The response of one operation made from its handler's answer (a body, NO_CONTENT or a Response). */
export type Finish<P> = (c: Context<PipelineEnv<P>>, answer: unknown) => Response;

export interface FinishOptions<P> {
  doc: OpenApiDocument;
  /** Which success code to answer where the documents allow several; default: the implementation's own. */
  answers?: AnswerOptions | undefined;
  /** The clock of the principal's account, whose time the answers tell; absent: none told. */
  principalClock?: ((principal: P) => Clock) | undefined;
}

export interface Finishing<P> {
  /** The finishing step of one operation's answers. */
  answer(op: OperationInfo): Finish<P>;
  /** An error as its response: the JSON Error body, with the account's time (app.onError). */
  error(c: Context<PipelineEnv<P>>, err: unknown): Response;
}

export function finishing<P>(options: FinishOptions<P>): Finishing<P> {
  const time = timeHeaders(options.principalClock);
  return {
    answer(op) {
      const success = options.answers ? successStatusOf(options.doc, op, options.answers) : undefined;
      return (c, answer) => {
        let res: Response;
        if (answer instanceof Response) res = answer;
        else {
          // A handler that forgot its return (an object literal read as a block) is a bug, not a 200 with no body.
          if (answer === undefined) throw new Error(`the handler of ${op.operationId} returned nothing`);
          const natural = answer === NO_CONTENT ? 204 : 200;
          // The Tusk-Answers header was read (and a bad value refused) before the handler ran: see validateRequest.
          const status = success ? success.status(c.get('answerMode'), natural) : natural;
          if (status === 204) res = c.body(null, 204);
          else if (answer === NO_CONTENT)
            res = c.body(success?.example(status) ?? '{}', status as 200, { 'Content-Type': 'application/json' });
          else res = c.json(answer as object, status as 200);
        }
        const ignored = c.get('ignoredFields');
        if (ignored) res.headers.set('Tusk-Ignored-Fields', ignoredFieldsHeader(ignored));
        time?.(c, res);
        return res;
      };
    },
    error(c, err) {
      const res = errorResponse(c, err);
      time?.(c, res);
      return res;
    },
  };
}

/** The header of Tusk's own that tells the account's time, with ms (Date has seconds, and proxies replace it). */
export const NOW_HEADER = 'Tusk-Now';

/** The Date and Tusk-Now headers of an answer to an account whose clock is a second or more off real time. */
function timeHeaders<P>(principalClock: ((principal: P) => Clock) | undefined) {
  if (!principalClock) return undefined;
  // The two values of the last time told: answers made within the same ms (or on a pinned clock) reuse them.
  let last = NaN;
  let date = '';
  let iso = '';
  return (c: Context<PipelineEnv<P>>, res: Response) => {
    // Undefined before authentication (a 401, an injected fault), though the variable's type says otherwise.
    const principal: P | undefined = c.get('principal');
    if (principal === undefined) return;
    const now = principalClock(principal).now();
    if (Math.abs(now - Date.now()) < 1000) return;
    if (now !== last) {
      const at = new Date(now);
      last = now;
      date = at.toUTCString();
      iso = at.toISOString();
    }
    res.headers.set('Date', date);
    res.headers.set(NOW_HEADER, iso);
  };
}

/** An error as the JSON Error body: an ApiError's own, an HTTPException's message, else a 500 (logged). */
export function errorResponse(c: Context, err: unknown): Response {
  // An injected connection reset is no answer at all: it leaves the app (see fault-step.ts).
  if (err instanceof ConnectionReset) throw err;
  if (err instanceof ApiError) {
    return c.json(err.body, err.status, err.headers);
  }
  if (err instanceof HTTPException) {
    const status = err.status;
    return c.json({ error: err.message || `HTTP ${status}` }, status);
  }
  console.error('tusk: unexpected error', err);
  return c.json({ error: 'Internal server error, try again later' }, 500);
}

/** At most this many field names in `Tusk-Ignored-Fields`; the rest are counted. */
const MAX_IGNORED_NAMES = 20;

/**
 * The value of `Tusk-Ignored-Fields`: the names, comma-separated; a name that is not printable
 * ASCII without a comma is percent-encoded (a header carries Latin-1 only), and past 20 names the
 * rest are counted (`... and 3 more`).
 */
export function ignoredFieldsHeader(names: readonly string[]): string {
  const shown = names
    .slice(0, MAX_IGNORED_NAMES)
    .map((n) => (/^[\x21-\x2b\x2d-\x7e]+$/.test(n) ? n : encodeURIComponent(n)));
  return (
    shown.join(', ') + (names.length > MAX_IGNORED_NAMES ? `, ... and ${names.length - MAX_IGNORED_NAMES} more` : '')
  );
}
