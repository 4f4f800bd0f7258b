// VirtualClock: real time plus an offset, advanced, set or pinned (src/domain/clock.ts). The real
// time is a stub the tests move by hand.
import { beforeEach, describe, expect, it } from 'vitest';
import { AccountClock, ClockRangeError, VirtualClock, clockStateProblems } from '../../src/domain/clock.js';
import { CLOCK_RANGE } from '../../src/core/limits.js';

const T0 = Date.UTC(2026, 10, 21, 13, 30, 0);

let real: number;
let clock: VirtualClock;
beforeEach(() => {
  real = T0;
  clock = new VirtualClock(() => real);
});

describe('VirtualClock: advance', () => {
  it('moves a running clock ahead of real time by the offset, and a pinned one to the later time', () => {
    clock.advance(60_000);
    expect(clock.now()).toBe(T0 + 60_000);
    real += 1_000;
    expect(clock.now()).toBe(T0 + 61_000);
    clock.pin(T0);
    clock.advance(5_000);
    expect(clock.now()).toBe(T0 + 5_000);
    expect(clock.isPinned).toBe(true);
  });

  it('accepts 0 and refuses negative and non-finite moves, leaving the clock as it was', () => {
    clock.advance(0);
    expect(clock.offsetMs).toBe(0);
    for (const ms of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => clock.advance(ms), String(ms)).toThrow(new RangeError('the clock only moves forward'));
    }
    expect(clock.now()).toBe(T0);
  });
});

describe('VirtualClock: pin and set', () => {
  it('stands still while pinned and runs on from the pinned time once released', () => {
    clock.pin(T0 + 3_600_000);
    real += 1_000;
    expect(clock.now()).toBe(T0 + 3_600_000);
    expect(clock.pinnedAt).toBe(T0 + 3_600_000);
    clock.pin(undefined);
    expect(clock.pinnedAt).toBeUndefined();
    expect(clock.isPinned).toBe(false);
    expect(clock.now()).toBe(T0 + 3_600_000);
    real += 500;
    expect(clock.now()).toBe(T0 + 3_600_500);
  });

  it('keeps the offset of a running clock that is released again', () => {
    clock.advance(10_000);
    clock.pin(undefined);
    expect(clock.offsetMs).toBe(10_000);
    expect(clock.now()).toBe(T0 + 10_000);
  });

  it('sets a running clock forward or back, and a pinned one stays pinned at the new time', () => {
    clock.set(T0 - 86_400_000);
    expect(clock.now()).toBe(T0 - 86_400_000);
    expect(clock.isPinned).toBe(false);
    clock.pin(T0);
    clock.set(T0 + 7_000);
    real += 1_000;
    expect(clock.now()).toBe(T0 + 7_000);
    expect(clock.pinnedAt).toBe(T0 + 7_000);
  });

  it('refuses to be set to a non-finite time', () => {
    for (const at of [Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => clock.set(at), String(at)).toThrow(new RangeError('the clock needs a finite time'));
    expect(clock.now()).toBe(T0);
  });
});

describe('VirtualClock: its range, 1970 to the end of 9998 (issue 31)', () => {
  const END = CLOCK_RANGE.max;

  it('refuses an advance, a set or a pin beyond it with a ClockRangeError, and stays where it was', () => {
    clock.advance(60_000);
    const before = clock.toJSON();
    const moves: [string, () => void][] = [
      ['advance 1e300', () => clock.advance(1e300)],
      ['advance to one ms beyond the end', () => clock.advance(END - clock.now() + 1)],
      ['set before 1970', () => clock.set(-1)],
      ['set beyond the end', () => clock.set(END + 1)],
      ['set to a fraction of a ms', () => clock.set(T0 + 0.5)],
      ['pin at -1e20', () => clock.pin(-1e20)],
      ['pin at 1e308', () => clock.pin(1e308)],
    ];
    for (const [what, move] of moves) {
      expect(move, what).toThrow(ClockRangeError);
      expect(clock.toJSON(), what).toEqual(before);
    }
    expect(() => clock.advance(1e300)).toThrow(
      /outside its range \(1970-01-01T00:00:00\.000Z to 9998-12-31T23:59:59\.999Z\)/,
    );
  });

  it('moves to either end of it', () => {
    clock.set(END);
    expect(clock.now()).toBe(END);
    clock.pin(CLOCK_RANGE.min);
    expect(clock.now()).toBe(0);
    clock.advance(END);
    expect(clock.now()).toBe(END);
  });

  it('refuses a state whose clock stands outside it, and keeps its own', () => {
    clock.advance(1_000);
    const before = clock.toJSON();
    for (const state of [
      { offset_ms: 1e308, pinned_ms: null },
      { offset_ms: -END - 1, pinned_ms: null },
      { offset_ms: 0, pinned_ms: -1e20 },
      { offset_ms: 0, pinned_ms: END + 1 },
      { offset_ms: 0.5, pinned_ms: null },
      { offset_ms: 2 * END, pinned_ms: T0 },
    ]) {
      expect(() => clock.load(state), JSON.stringify(state)).toThrow(ClockRangeError);
      expect(clock.toJSON()).toEqual(before);
    }
  });

  it('a running clock stands at the end of the range it reached, and its dump loads again whenever it is loaded', () => {
    clock.load({ offset_ms: END - T0, pinned_ms: null });
    expect(clock.now()).toBe(END);
    real += 60_000;
    expect(clock.now()).toBe(END);
    const dump = clock.toJSON();
    real += 3_600_000;
    clock.load(dump);
    expect(clock.now()).toBe(END);
    expect(() => clock.advance(1)).toThrow(ClockRangeError);
    clock.load({ offset_ms: -END, pinned_ms: null });
    expect(clock.now()).toBe(0);
    clock.set(T0);
    expect(clock.now()).toBe(T0);
  });

  it('names the field of each problem of a clock state', () => {
    expect(clockStateProblems({ offset_ms: 1e308, pinned_ms: -1 }).map((p) => p.field)).toEqual([
      'pinned_ms',
      'offset_ms',
    ]);
    expect(clockStateProblems({ offset_ms: END, pinned_ms: END })).toEqual([]);
    expect(clockStateProblems({ offset_ms: END + 1, pinned_ms: null })).toEqual([
      { field: 'offset_ms', message: expect.stringMatching(/is more than the width of the clock's range/) },
    ]);
  });

  it("an account clock that refuses a state keeps following the server's", () => {
    const account = new AccountClock(clock);
    expect(() => account.load({ offset_ms: 1e308, pinned_ms: null })).toThrow(ClockRangeError);
    expect(account.follows).toBe(true);
    for (const move of [() => account.advance(1e300), () => account.set(-1), () => account.pin(1e308)]) {
      expect(move).toThrow(ClockRangeError);
      expect(account.follows).toBe(true);
    }
    expect(account.now()).toBe(clock.now());
  });
});

describe('VirtualClock: the words of its refusals', () => {
  it('names the time it would stand at, in ISO 8601 where a date can say it and in ms beyond', () => {
    const refusal = (move: () => void) => {
      try {
        move();
      } catch (err) {
        return { name: (err as Error).name, message: (err as Error).message };
      }
      throw new Error('no refusal');
    };
    expect(refusal(() => clock.set(-1))).toEqual({
      name: 'ClockRangeError',
      message:
        'the clock would stand at 1969-12-31T23:59:59.999Z, outside its range (1970-01-01T00:00:00.000Z to 9998-12-31T23:59:59.999Z)',
    });
    expect(refusal(() => clock.pin(8.64e15))).toMatchObject({
      message: expect.stringMatching(/^the clock would stand at \+275760-09-13T00:00:00\.000Z, /),
    });
    expect(refusal(() => clock.pin(1e20))).toMatchObject({
      message: expect.stringMatching(/^the clock would stand at 100000000000000000000 ms, /),
    });
    expect(refusal(() => clock.set(T0 + 0.5))).toMatchObject({ message: `${T0 + 0.5} is not a whole number of ms` });
  });

  it('names the field and the rule of a state it refuses', () => {
    expect(clockStateProblems({ offset_ms: 0.5, pinned_ms: null })).toEqual([
      { field: 'offset_ms', message: '0.5 is not a whole number of ms' },
    ]);
    expect(() => clock.load({ offset_ms: 0.5, pinned_ms: null })).toThrow('offset_ms: 0.5 is not a whole number of ms');
    expect(() => clock.load({ offset_ms: 0, pinned_ms: -1 })).toThrow(
      /^pinned_ms: the clock would stand at 1969-12-31T23:59:59\.999Z, outside its range/,
    );
  });
});

describe('AccountClock: its offset', () => {
  it("is the server clock's while the account follows it, and its own once the account moves it", () => {
    const account = new AccountClock(clock);
    clock.advance(1_000);
    expect(account.offsetMs).toBe(1_000);
    account.advance(5_000);
    expect(account.offsetMs).toBe(6_000);
    clock.advance(1_000);
    expect(account.offsetMs).toBe(6_000);
  });
});
