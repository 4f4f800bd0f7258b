// Errors that become HTTP responses. Stores and middleware throw them; app.onError (see app.ts) is
// the one place they are turned into the documented JSON Error body.
export interface ErrorBody {
  error: string;
  field?: string;
  rule?: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 405 | 413 | 429 | 500,
    message: string,
    readonly detail: { field?: string; rule?: string } = {},
    readonly headers: Record<string, string> = {},
  ) {
    // An ApiError is an answer, not a fault: no stack trace is captured (it would be the dearest
    // part of a 4xx; test suites provoke many).
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ApiError';
  }

  get body(): ErrorBody {
    return { error: this.message, ...this.detail };
  }
}

/** 400 naming the field and the rule: `field: message`. */
export const invalid = (field: string, rule: string, message: string) =>
  new ApiError(400, `${field}: ${message}`, { field, rule });
export const badRequest = (message: string) => new ApiError(400, message);
export const notFound = (what: string, id: string | number) => new ApiError(404, `Not found: no ${what} with id ${id}`);
export const unauthorized = (message = 'Unauthorized: the API key is wrong or missing') =>
  new ApiError(401, message, {}, { 'WWW-Authenticate': 'Basic realm="tusk", charset="UTF-8"' });
export const forbidden = (message: string) => new ApiError(403, message);
/** 400 for a create beyond a list's cap (src/core/limits.ts): `<list>: <message>`. */
export const limitReached = (list: string, message: string) =>
  new ApiError(400, `${list}: ${message}`, { rule: 'maxItems' });
