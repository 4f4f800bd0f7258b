// reportErrors (src/openapi/ajv.ts): the departures of a value from its schema, as the proxy and the
// conformance checks word them: one report per field and rule, an `if` left out, the branches of
// a failed anyOf or oneOf taken as alternatives (one report for the combination), and an anyOf
// whose branches each only require a field worded "a or b: at least one of them is required".
import type { ErrorObject } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { errorField, reportErrors, ruleOf } from '../../src/openapi/ajv.js';

const error = (
  keyword: string,
  instancePath: string,
  schemaPath: string,
  params: Record<string, unknown> = {},
  message?: string,
): ErrorObject =>
  ({ keyword, instancePath, schemaPath, params, ...(message !== undefined ? { message } : {}) }) as ErrorObject;

describe('reportErrors', () => {
  it('names each field after the prefix, and the value itself by where when no field applies', () => {
    const errors = [
      error('required', '', '#/required', { missingProperty: 'name' }),
      error('type', '', '#/type', { type: 'object' }, 'must be object'),
    ];
    expect(reportErrors(errors, 'body', 'body')).toEqual([
      { field: 'body.name', rule: 'required', message: 'body name: is required' },
      { field: 'body', rule: 'type', message: 'body: must be object' },
    ]);
    expect(reportErrors(errors, 'the answer')).toEqual([
      { field: 'name', rule: 'required', message: 'name: is required' },
      { field: 'the answer', rule: 'type', message: 'the answer: must be object' },
    ]);
  });

  it('leaves out an if, and reports the same departure once', () => {
    const required = error('required', '', '#/then/required', { missingProperty: 'value' });
    expect(reportErrors([required, error('if', '', '#/if', { failingKeyword: 'then' }), required], 'body')).toEqual([
      { field: 'value', rule: 'required', message: 'value: is required' },
    ]);
  });

  it('words an anyOf whose branches each require one field as one report naming them all', () => {
    const errors = [
      error('required', '', '#/anyOf/0/required', { missingProperty: 'email' }),
      error('required', '', '#/anyOf/1/required', { missingProperty: 'phone' }),
      error('anyOf', '', '#/anyOf', {}, 'must match a schema in anyOf'),
    ];
    expect(reportErrors(errors, 'body')).toEqual([
      { field: 'body', rule: 'required', message: 'body: email or phone: at least one of them is required' },
    ]);
  });

  it('reports a failed oneOf, or an anyOf with other branches, as the combination, not its branches', () => {
    const oneOf = [
      error('type', '/x', '#/properties/x/oneOf/0/type', { type: 'string' }, 'must be string'),
      error('type', '/x', '#/properties/x/oneOf/1/type', { type: 'integer' }, 'must be integer'),
      error('oneOf', '/x', '#/properties/x/oneOf', { passingSchemas: null }, 'must match exactly one schema in oneOf'),
    ];
    expect(reportErrors(oneOf, 'body')).toEqual([
      { field: 'x', rule: 'oneOf', message: 'x: must match exactly one schema in oneOf' },
    ]);
    const anyOf = [
      error('required', '', '#/anyOf/0/required', { missingProperty: 'email' }),
      error('type', '/phone', '#/anyOf/1/properties/phone/type', { type: 'string' }, 'must be string'),
      error('anyOf', '', '#/anyOf', {}, 'must match a schema in anyOf'),
    ];
    expect(reportErrors(anyOf, 'body')).toEqual([
      { field: 'body', rule: 'anyOf', message: 'body: must match a schema in anyOf' },
    ]);
    // An anyOf of one required branch is no list of alternatives.
    const single = [
      error('required', '', '#/anyOf/0/required', { missingProperty: 'email' }),
      error('anyOf', '', '#/anyOf', {}, 'must match a schema in anyOf'),
    ];
    expect(reportErrors(single, 'body')).toEqual([
      { field: 'body', rule: 'anyOf', message: 'body: must match a schema in anyOf' },
    ]);
    // Branches that require fields of another object are no alternatives of this one.
    const nested = [
      error('required', '/a', '#/anyOf/0/required', { missingProperty: 'email' }),
      error('required', '/b', '#/anyOf/1/required', { missingProperty: 'phone' }),
      error('anyOf', '', '#/anyOf', {}, 'must match a schema in anyOf'),
    ];
    expect(reportErrors(nested, 'body')).toEqual([
      { field: 'body', rule: 'anyOf', message: 'body: must match a schema in anyOf' },
    ]);
  });

  it('words a oneOf of required branches as the oneOf: exactly one of them, not at least one', () => {
    const errors = [
      error('required', '', '#/oneOf/0/required', { missingProperty: 'email' }),
      error('required', '', '#/oneOf/1/required', { missingProperty: 'phone' }),
      error('oneOf', '', '#/oneOf', {}, 'must match exactly one schema in oneOf'),
    ];
    expect(reportErrors(errors, 'body')).toEqual([
      { field: 'body', rule: 'oneOf', message: 'body: must match exactly one schema in oneOf' },
    ]);
  });

  it('keeps the errors under a keyword that is no combination (propertyNames and the rule a name broke)', () => {
    const errors = [
      error('pattern', '', '#/propertyNames/pattern', { pattern: '^[a-z]+$' }),
      error('propertyNames', '', '#/propertyNames', { propertyName: 'X' }, 'property name must be valid'),
    ];
    expect(reportErrors(errors, 'body').map((r) => r.rule)).toEqual(['pattern', 'propertyNames']);
  });

  it('keeps an error beside a combination that is not one of its branches', () => {
    const errors = [
      error('type', '/x', '#/properties/x/oneOf/0/type', { type: 'string' }, 'must be string'),
      error('oneOf', '/x', '#/properties/x/oneOf', {}, 'must match exactly one schema in oneOf'),
      error('required', '', '#/properties/x/oneOfOther/required', { missingProperty: 'y' }),
    ];
    expect(reportErrors(errors, 'body').map((r) => r.field)).toEqual(['x', 'y']);
  });
});

describe('an unevaluated property', () => {
  it('is named as the field, and is not an accepted field here', () => {
    const e = error('unevaluatedProperties', '/a', '#/unevaluatedProperties', { unevaluatedProperty: 'colour' });
    expect(errorField(e)).toBe('a.colour');
    expect(ruleOf(e)).toBe('is not an accepted field here');
    expect(errorField(error('unevaluatedProperties', '/a', '#', { unevaluatedProperty: 7 }))).toBe('a');
    expect(errorField(error('type', '/a', '#', { unevaluatedProperty: 'colour' }))).toBe('a');
  });
});
