// VirtualClock: real time plus an offset, advanced, set or pinned (src/store/clock.ts). The real
// time is a stub the tests move by hand.
import { beforeEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/store/clock.js';

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
    for (const at of [Number.NaN, Number.POSITIVE_INFINITY]) expect(() => clock.set(at), String(at)).toThrow(new RangeError('the clock needs a finite time'));
    expect(clock.now()).toBe(T0);
  });
});
