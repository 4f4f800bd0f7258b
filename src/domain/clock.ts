// The clock every time-driven behaviour reads: provisioning, backup readiness, maintenance progress,
// the 30-day backup window, rate-limit windows. It runs with real time plus an offset, and can be
// advanced or pinned, so tests drive time without sleeping. It never reads outside CLOCK_RANGE
// (src/core/limits.ts): a move, a pin or a state that would take it there throws a ClockRangeError
// and changes nothing, and a running clock that reaches an end of the range stands there (beyond
// it every date would be a RangeError, and the daily backups' catch-up an endless loop).
import { CLOCK_RANGE } from '../core/limits.js';

export interface Clock {
  now(): number;
}

/** A time the clock cannot stand at (see clockTimeProblem); the clock was left as it was. */
export class ClockRangeError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'ClockRangeError';
  }
}

const CLOCK_RANGE_TEXT = `${new Date(CLOCK_RANGE.min).toISOString()} to ${new Date(CLOCK_RANGE.max).toISOString()}`;

/** A time in words: ISO 8601 where Date can write it, else the number of ms. */
const timeInWords = (ms: number): string =>
  Math.abs(ms) <= 8.64e15 ? new Date(Math.trunc(ms)).toISOString() : `${ms} ms`;

/** Why the clock cannot stand at `at` (ms since the epoch), or undefined when it can. */
export function clockTimeProblem(at: number): string | undefined {
  if (!Number.isInteger(at)) return `${at} is not a whole number of ms`;
  if (at < CLOCK_RANGE.min || at > CLOCK_RANGE.max)
    return `the clock would stand at ${timeInWords(at)}, outside its range (${CLOCK_RANGE_TEXT})`;
  return undefined;
}

/** A clock as a state dump keeps it. */
export interface ClockJSON {
  offset_ms: number;
  pinned_ms: number | null;
}

/** The largest offset from real time: the width of the clock's range. */
export const MAX_OFFSET_MS = CLOCK_RANGE.max - CLOCK_RANGE.min;

/**
 * What is wrong with a clock `state`, by its field: a pinned time must lie within CLOCK_RANGE, and
 * an offset must be a whole number of ms of at most the width of the range either way (a running
 * clock's now, real time plus the offset, stands at the nearer end of the range when beyond it:
 * a dump written while the clock runs at an end loads again, whenever it is loaded).
 */
export function clockStateProblems(state: ClockJSON): { field: 'offset_ms' | 'pinned_ms'; message: string }[] {
  const problems: { field: 'offset_ms' | 'pinned_ms'; message: string }[] = [];
  const pinned = state.pinned_ms === null ? undefined : clockTimeProblem(state.pinned_ms);
  if (pinned) problems.push({ field: 'pinned_ms', message: pinned });
  if (!Number.isInteger(state.offset_ms))
    problems.push({ field: 'offset_ms', message: `${state.offset_ms} is not a whole number of ms` });
  else if (Math.abs(state.offset_ms) > MAX_OFFSET_MS)
    problems.push({
      field: 'offset_ms',
      message: `${state.offset_ms} is more than the width of the clock's range (${CLOCK_RANGE_TEXT}, ${MAX_OFFSET_MS} ms) either way`,
    });
  return problems;
}

/** Throws a ClockRangeError when the clock cannot stand at `at`. */
function allowed(at: number): number {
  const problem = clockTimeProblem(at);
  if (problem) throw new ClockRangeError(problem);
  return at;
}

export class VirtualClock implements Clock {
  private offset = 0;
  private pinned: number | undefined;

  /** @param real the real time it runs with (Date.now; tests give their own) */
  constructor(readonly real: () => number = Date.now) {}

  now(): number {
    if (this.pinned !== undefined) return this.pinned;
    const now = this.real() + this.offset;
    return now > CLOCK_RANGE.max ? CLOCK_RANGE.max : now < CLOCK_RANGE.min ? CLOCK_RANGE.min : now;
  }

  /** Moves time forward by ms (a pinned clock stays pinned at the later time). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    allowed(this.now() + ms);
    if (this.pinned !== undefined) this.pinned += ms;
    else this.offset += ms;
  }

  /** Stops the clock at `at` (ms since the epoch); undefined lets it run again from there. */
  pin(at: number | undefined): void {
    if (at === undefined) {
      if (this.pinned !== undefined) this.offset = this.pinned - this.real();
      this.pinned = undefined;
    } else {
      this.pinned = allowed(at);
    }
  }

  get isPinned(): boolean {
    return this.pinned !== undefined;
  }

  /** Sets the time to `at` (ms since the epoch), forward or back; a pinned clock stays pinned there. */
  set(at: number): void {
    if (!Number.isFinite(at)) throw new RangeError('the clock needs a finite time');
    allowed(at);
    if (this.pinned !== undefined) this.pinned = at;
    else this.offset = at - this.real();
  }

  /** ms the clock runs ahead of real time (while it runs). */
  get offsetMs(): number {
    return this.offset;
  }

  /** The time the clock stands still at, or undefined while it runs. */
  get pinnedAt(): number | undefined {
    return this.pinned;
  }

  toJSON(): ClockJSON {
    return { offset_ms: this.offset, pinned_ms: this.pinned ?? null };
  }

  /** Takes over a state written by toJSON(); a ClockRangeError, and no change, when clockStateProblems() finds any. */
  load(state: ClockJSON): void {
    const [problem] = clockStateProblems(state);
    if (problem) throw new ClockRangeError(`${problem.field}: ${problem.message}`);
    this.offset = state.offset_ms;
    this.pinned = state.pinned_ms ?? undefined;
  }
}

/** An account's clock as a state dump keeps it: null while it follows the server's. */
export type AccountClockState = ClockJSON | null;

/**
 * The clock of one account: the server's clock until the account moves its own
 * (advance, set, pin), from then on a clock of its own that starts where the server's stood, so
 * that one CI job moving its time never moves another's. follow() goes back to the server's clock.
 */
export class AccountClock implements Clock {
  private own: VirtualClock | undefined;

  constructor(private readonly server: VirtualClock) {}

  now(): number {
    return (this.own ?? this.server).now();
  }

  /** Whether the account follows the server's clock (has never moved its own, or went back). */
  get follows(): boolean {
    return this.own === undefined;
  }

  get isPinned(): boolean {
    return (this.own ?? this.server).isPinned;
  }

  get offsetMs(): number {
    return (this.own ?? this.server).offsetMs;
  }

  advance(ms: number): void {
    this.move((own) => own.advance(ms));
  }

  set(at: number): void {
    this.move((own) => own.set(at));
  }

  pin(at: number | undefined): void {
    this.move((own) => own.pin(at));
  }

  /** Back to the server's clock (the account's time becomes the server's). */
  follow(): void {
    this.own = undefined;
  }

  toJSON(): AccountClockState {
    return this.own ? this.own.toJSON() : null;
  }

  load(state: AccountClockState | undefined): void {
    if (!state) this.own = undefined;
    else {
      const own = new VirtualClock(this.server.real);
      own.load(state); // throws before the account's clock changes
      this.own = own;
    }
  }

  /**
   * Applies `change` to the account's own clock, made from the server's reading when first moved;
   * a change the clock refuses leaves the account as it was (following the server, if it did).
   */
  private move(change: (own: VirtualClock) => void): void {
    const own = this.own ?? new VirtualClock(this.server.real);
    if (!this.own) own.load(this.server.toJSON());
    change(own);
    this.own = own;
  }
}
