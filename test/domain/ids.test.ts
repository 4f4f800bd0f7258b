// IdSequence: ids of a list, never reused (src/domain/ids.ts).
import { describe, expect, it } from 'vitest';
import { IdSequence } from '../../src/domain/ids.js';

describe('IdSequence', () => {
  it('hands out ids from 1, one above the last', () => {
    const ids = new IdSequence();
    expect([ids.next(), ids.next(), ids.current]).toEqual([1, 2, 2]);
  });

  it('goes on above the highest observed id, whatever order ids are observed in', () => {
    const ids = new IdSequence();
    ids.observe(7);
    ids.observe(3);
    expect(ids.current).toBe(7);
    expect(ids.next()).toBe(8);
    ids.observe(8);
    expect(ids.next()).toBe(9);
  });
});
