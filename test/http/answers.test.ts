// Which success status an operation answers with (src/http/answers.ts, openapi/CONVENTIONS.md
// "Success codes"): the Tusk-Answers header's modes, and per mode the status and the documented
// example a bodiless answer carries, on the instance document's alarm operations.
import { describe, expect, it } from 'vitest';
import { answerModeOf, successStatusOf, type AnswerMode } from '../../src/http/answers.js';
import { ApiError } from '../../src/core/errors.js';
import { loadDocument } from '../../src/openapi/documents.js';
import { readOperations } from '../../src/openapi/operations.js';

const doc = await loadDocument('instance');
const operation = (id: string) => readOperations('instance', doc).find((o) => o.operationId === id)!;
/** The mode a request's Tusk-Answers header chose (or none). */
const request = (mode?: AnswerMode) => mode;

describe('the Tusk-Answers header', () => {
  it('is no choice when absent, and names a mode in any case and with spaces around', () => {
    expect(answerModeOf(undefined)).toBeUndefined();
    expect(answerModeOf(' Production ')).toBe('production');
    expect(answerModeOf('VARY')).toBe('vary');
  });

  it('is a 400 naming the header and the modes when it names none', () => {
    const refused = (() => {
      try {
        answerModeOf('fast');
      } catch (err) {
        return err;
      }
    })() as ApiError;
    expect(refused).toBeInstanceOf(ApiError);
    expect(refused.status).toBe(400);
    expect(refused.message).toBe(
      'Tusk-Answers: must be one of default, production, vary (header outside the contract)',
    );
    expect(refused.detail).toEqual({ field: 'Tusk-Answers', rule: 'enum' });
  });
});

describe('the success status of an operation', () => {
  it('is not chosen for an operation with one documented success code', () => {
    expect(successStatusOf(doc, operation('listAlarms'), { mode: () => 'vary' })).toBeUndefined();
  });

  it("is the implementation's own by default, x-production-status in production, and the header's mode wins over the server's", () => {
    const codes = successStatusOf(doc, operation('createAlarm'), { mode: () => 'default' })!;
    expect(codes.status(request(), 200)).toBe(200);
    expect(codes.status(request('production'), 200)).toBe(201);
    const production = successStatusOf(doc, operation('deleteAlarm'), { mode: () => 'production' })!;
    expect(production.status(request(), 204)).toBe(204);
    expect(production.status(request('default'), 204)).toBe(204);
  });

  it('takes each documented success code in turn under vary, from the natural one, in ascending order', () => {
    const create = successStatusOf(doc, operation('createAlarm'), { mode: () => 'vary' })!;
    expect([1, 2, 3, 4].map(() => create.status(request(), 200))).toEqual([200, 201, 204, 200]);
    const remove = successStatusOf(doc, operation('deleteAlarm'), { mode: () => 'vary' })!;
    expect([1, 2, 3].map(() => remove.status(request(), 204))).toEqual([204, 200, 204]);
  });

  it('carries the documented JSON example of a status with a body, and none for a 204', () => {
    const codes = successStatusOf(doc, operation('createAlarm'), { mode: () => 'vary' })!;
    const documented = (
      doc.paths['/api/alarms']!.post as { responses: Record<string, { content: Record<string, { example: unknown }> }> }
    ).responses;
    expect(JSON.parse(codes.example(201)!)).toEqual(documented['201']!.content['application/json']!.example);
    expect(JSON.parse(codes.example(200)!)).toEqual(documented['200']!.content['application/json']!.example);
    expect(codes.example(204)).toBeUndefined();
  });
});
