// The one reader of the control plane's request bodies: every JSON body a control takes
// is parsed here and checked against the request body its operation declares in the control
// document (control.openapi.yaml), and comes back typed by the types generated from that document
// (src/generated/control.ts). A body that is not JSON, missing when required, or not of the
// schema is a 400 naming the field and the rule; nothing has changed by then. Rules the schema
// cannot say (a fault rule's operation exists, disk used within disk total) stay with the code
// that applies them.
import type { Context } from 'hono';
import type { ErrorObject } from 'ajv';
import { ApiError, invalid } from '../core/errors.js';
import { errorField, ruleOf } from '../openapi/ajv.js';
import { CONTROL_BODY_BYTES } from '../core/limits.js';
import { readLimitedBody } from '../http/body.js';
import type { operations } from '../generated/control.js';
import type { ControlDocument } from './document.js';

/** The operations of the control document that take a JSON body. */
type WithBody = {
  [K in keyof operations]: operations[K] extends { requestBody?: { content: { 'application/json': unknown } } }
    ? K
    : never;
}[keyof operations];

/** The body of operation `K`, as the control document declares it. */
export type ControlBody<K extends WithBody> = NonNullable<operations[K]['requestBody']>['content']['application/json'];

/** What controlBody() gives: the body, or undefined too when the document says it is optional. */
type Read<K extends WithBody> = undefined extends operations[K]['requestBody']
  ? ControlBody<K> | undefined
  : ControlBody<K>;

/**
 * Of the errors of a failed validation, the one to report: not the `oneOf`/`anyOf` summary, and not
 * a branch's type mismatch when another error at the same place says more (a `{"rules": ...}` body
 * is reported against the object branch, not as "must be array").
 */
export function reportedError(errors: ErrorObject[]): ErrorObject {
  return tellingErrors(errors)[0] ?? errors[0]!;
}

/** The errors of a failed validation that say something (see reportedError), in their order. */
export function tellingErrors(errors: ErrorObject[]): ErrorObject[] {
  const real = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf');
  const telling = real.filter(
    (e) =>
      e.keyword !== 'type' ||
      !real.some((o) => o !== e && o.keyword !== 'type' && o.instancePath.startsWith(e.instancePath)),
  );
  return telling.length ? telling : real;
}

/**
 * The request's body parsed as JSON, not yet checked (PUT /__tusk/state checks a state whole, with
 * every problem named): undefined when empty and not required. A body over `limit` bytes is a 413,
 * refused before it is read whole (a state may be large; every other control's body is small).
 */
export async function jsonOf(c: Context, required: boolean, limit = CONTROL_BODY_BYTES.control): Promise<unknown> {
  const text = Buffer.from(await readLimitedBody(c.req.raw, limit)).toString('utf8');
  if (text.trim() === '') {
    if (!required) return undefined;
    throw invalid('body', 'required', 'a JSON body is required');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw invalid('body', 'json', `malformed JSON (${(err as Error).message})`);
  }
}

/**
 * The JSON body of control operation `operationId`, checked against its declared schema.
 * An empty body is `undefined` when the operation's body is optional, else a 400 `body`/`required`.
 */
export async function controlBody<K extends WithBody>(
  c: Context,
  document: ControlDocument,
  operationId: K,
): Promise<Read<K>> {
  const { schema, required } = document.requestBody(operationId);
  const value = await jsonOf(c, required);
  if (value === undefined) return undefined as Read<K>;
  const validate = document.schema(schema);
  if (!validate(value)) {
    const err = reportedError(validate.errors!);
    const field = errorField(err) ?? 'body';
    throw new ApiError(400, `${field}: ${ruleOf(err)}`, { field, rule: err.keyword });
  }
  return value as Read<K>;
}
