// cloneJson against structuredClone, the copy it replaces in the stores: the same value for JSON
// data of every shape, and a copy that shares nothing with the original.
import { describe, expect, it } from 'vitest';
import { cloneJson } from '../../src/core/clone.js';

const samples: unknown[] = [
  null,
  0,
  -1.5,
  'text',
  true,
  [],
  {},
  { token: 'tcp-token', port: 6514, tls: true, tags: ['a', 'b'], nested: { deep: [{ x: null }, [1, [2]]] } },
  [{ a: 1 }, 'b', [null, false]],
  JSON.parse('{"__proto__": {"polluted": true}, "ok": 1}'),
];

describe('cloneJson', () => {
  it.each(samples.map((s) => [JSON.stringify(s), s]))('gives what structuredClone gives for %s', (_, value) => {
    const copy = cloneJson(value);
    expect(copy).toStrictEqual(structuredClone(value));
    expect(JSON.stringify(copy)).toBe(JSON.stringify(value));
  });

  it('shares no object or array with the original', () => {
    const original = { list: [{ x: 1 }], map: { inner: { y: [2] } } };
    const copy = cloneJson(original);
    copy.list[0]!.x = 9;
    copy.map.inner.y.push(3);
    expect(original).toEqual({ list: [{ x: 1 }], map: { inner: { y: [2] } } });
  });

  it('keeps an own __proto__ key as a key, without changing the prototype', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    const copy = cloneJson(value);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect(Object.keys(copy)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // An ordinary own property, as JSON.parse made it: it can be changed, listed and removed.
    expect(Object.getOwnPropertyDescriptor(copy, '__proto__')).toStrictEqual({
      value: { polluted: true },
      enumerable: true,
      writable: true,
      configurable: true,
    });
  });
});
