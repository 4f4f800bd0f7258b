// A form body read as the object its schema describes (readForm, CONVENTIONS.md "Request bodies"):
// scalars by the schema's type, objects as JSON text, and an array field in any of three styles
// (JSON text, brackets, the key repeated), a bare value an array of one, an empty one the empty
// array; a value that does not read stays text, so that validation can name the field.
import { describe, expect, it } from 'vitest';
import { readForm, type FieldKind, type FormKinds } from '../../src/openapi/requests.js';

const kinds: FormKinds = {
  fields: new Map<string, FieldKind>([
    ['name', 'string'],
    ['count', 'integer'],
    ['flag', 'boolean'],
    ['meta', 'json'],
    ['recipients', 'json'],
    ['tags', 'json'],
  ]),
  arrayItems: new Map<string, FieldKind>([
    ['recipients', 'integer'],
    ['tags', 'string'],
  ]),
};
const read = (fields: [string, string][]) => readForm(fields, kinds);

describe('a form body', () => {
  it('reads scalars by their type, and leaves what does not read as text', () => {
    expect(
      read([
        ['name', 'x'],
        ['count', '12'],
        ['flag', 'true'],
        ['meta', '{"a":1}'],
      ]),
    ).toStrictEqual({ name: 'x', count: 12, flag: true, meta: { a: 1 } });
    expect(
      read([
        ['count', '12a'],
        ['flag', 'yes'],
        ['meta', '{bad'],
      ]),
    ).toStrictEqual({ count: '12a', flag: 'yes', meta: '{bad' });
  });

  it('reads an array field in brackets, repeated, or as JSON text (spaces before it allowed)', () => {
    expect(
      read([
        ['recipients[]', '1'],
        ['recipients[]', '2'],
      ]),
    ).toStrictEqual({ recipients: [1, 2] });
    expect(
      read([
        ['recipients', '1'],
        ['recipients', '2'],
      ]),
    ).toStrictEqual({ recipients: [1, 2] });
    expect(read([['recipients', '[1, 2]']])).toStrictEqual({ recipients: [1, 2] });
    expect(read([['recipients', '  [3]']])).toStrictEqual({ recipients: [3] });
  });

  it('reads one bare value as an array of one, and text with a bracket inside as that text', () => {
    expect(read([['recipients', '5']])).toStrictEqual({ recipients: [5] });
    expect(read([['tags', 'x[1]']])).toStrictEqual({ tags: ['x[1]'] });
    // Only a single value is read as JSON text: repeated, each is an item.
    expect(
      read([
        ['tags', '[x'],
        ['tags', 'y'],
      ]),
    ).toStrictEqual({ tags: ['[x', 'y'] });
  });

  it('reads an empty value, or only empty ones, as the empty array; an empty one among others stays', () => {
    expect(read([['recipients', '']])).toStrictEqual({ recipients: [] });
    expect(read([['recipients[]', '']])).toStrictEqual({ recipients: [] });
    expect(
      read([
        ['tags', ''],
        ['tags', ''],
      ]),
    ).toStrictEqual({ tags: [] });
    expect(
      read([
        ['tags', ''],
        ['tags', 'a'],
      ]),
    ).toStrictEqual({ tags: ['', 'a'] });
  });

  it('keeps the fields in their order, each array where it first came', () => {
    const body = read([
      ['name', 'x'],
      ['tags', 'a'],
      ['count', '1'],
      ['recipients', '1'],
      ['tags', 'b'],
      ['recipients', '2'],
    ]);
    expect(body).toStrictEqual({ name: 'x', tags: ['a', 'b'], count: 1, recipients: [1, 2] });
    expect(Object.keys(body)).toEqual(['name', 'tags', 'count', 'recipients']);
  });

  it('takes brackets only after the name of an array field: another name ending so is a field of its own', () => {
    expect(read([['recipientsab', '7']])).toStrictEqual({ recipientsab: '7' });
    expect(read([['name[]', 'x']])).toStrictEqual({ 'name[]': 'x' });
  });
});
