// Memo (src/core/memo.ts): a bounded memory of values computed from strings clients send.
import { describe, expect, it } from 'vitest';
import { Memo } from '../../src/core/memo.js';

describe('Memo', () => {
  it('remembers a key as long as the limit, and never one a character longer', () => {
    const memo = new Memo<string>({ maxKeyLength: 3 });
    const made: string[] = [];
    const make = (key: string) => {
      made.push(key);
      return `${key}#${made.length}`;
    };
    expect(memo.get('abc', make)).toBe('abc#1');
    expect(memo.get('abc', make)).toBe('abc#1');
    expect(memo.get('abcd', make)).toBe('abcd#2');
    expect(memo.get('abcd', make)).toBe('abcd#3');
    expect(made).toStrictEqual(['abc', 'abcd', 'abcd']);
  });

  it('keeps at most `size` entries, then forgets them all at once', () => {
    const memo = new Memo<number>({ size: 2 });
    let calls = 0;
    const make = () => ++calls;
    expect([memo.get('a', make), memo.get('b', make), memo.get('a', make), memo.get('b', make)]).toStrictEqual([
      1, 2, 1, 2,
    ]);
    expect(memo.get('c', make)).toBe(3); // full: a and b are forgotten
    expect(memo.get('c', make)).toBe(3);
    expect(memo.get('a', make)).toBe(4);
    memo.clear();
    expect(memo.get('a', make)).toBe(5);
  });

  it('remembers 2,048 keys of up to 256 characters by default', () => {
    const memo = new Memo<number>();
    let calls = 0;
    const make = () => ++calls;
    const long = 'k'.repeat(256);
    expect(memo.get(long, make)).toBe(1);
    expect(memo.get(long, make)).toBe(1);
    expect(memo.get(long + 'k', make)).toBe(2);
    expect(memo.get(long + 'k', make)).toBe(3);
    for (let i = 0; i < 2047; i++) memo.get(`key${i}`, make);
    const before = calls;
    expect(memo.get(long, make)).toBe(1); // 2,048 entries: still there
    memo.get('one more', make); // the 2,049th: everything is forgotten first
    expect(memo.get(long, make)).toBe(before + 2);
  });
});
