// The errors that become HTTP answers (src/core/errors.ts): status, message, body and headers.
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  badRequest,
  forbidden,
  invalid,
  limitReached,
  notFound,
  unauthorized,
} from '../../src/core/errors.js';

describe('ApiError', () => {
  it('is an Error named ApiError carrying status, body and headers', () => {
    const err = new ApiError(405, 'Method PATCH is not allowed', { field: 'f', rule: 'r' }, { Allow: 'GET' });
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('ApiError');
    expect(String(err)).toBe('ApiError: Method PATCH is not allowed');
    expect(err.status).toBe(405);
    expect(err.body).toStrictEqual({ error: 'Method PATCH is not allowed', field: 'f', rule: 'r' });
    expect(err.headers).toStrictEqual({ Allow: 'GET' });
    const plain = new ApiError(400, 'bad');
    expect([plain.body, plain.headers]).toStrictEqual([{ error: 'bad' }, {}]);
  });

  it('captures no stack frames, and leaves the stack trace limit as it was', () => {
    const limit = Error.stackTraceLimit;
    const err = new ApiError(404, 'gone');
    expect(err.stack).toBe('ApiError: gone');
    expect(Error.stackTraceLimit).toBe(limit);
  });

  it('the helpers build the documented answers', () => {
    expect(unauthorized()).toMatchObject({
      status: 401,
      message: 'Unauthorized: the API key is wrong or missing',
      headers: { 'WWW-Authenticate': 'Basic realm="tusk", charset="UTF-8"' },
    });
    expect(unauthorized('no key').message).toBe('no key');
    expect(invalid('name', 'minLength', 'too short').body).toStrictEqual({
      error: 'name: too short',
      field: 'name',
      rule: 'minLength',
    });
    expect(badRequest('nope')).toMatchObject({ status: 400, body: { error: 'nope' } });
    expect(notFound('alarm', 7)).toMatchObject({ status: 404, body: { error: 'Not found: no alarm with id 7' } });
    expect(forbidden('no')).toMatchObject({ status: 403, body: { error: 'no' } });
    expect(limitReached('alarms', 'at most 3')).toMatchObject({
      status: 400,
      body: { error: 'alarms: at most 3', rule: 'maxItems' },
    });
  });
});
