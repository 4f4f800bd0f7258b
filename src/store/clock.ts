// The clock every time-driven behaviour reads: provisioning, backup readiness, maintenance progress,
// the 30-day backup window, rate-limit windows. It runs with real time plus an offset, and can be
// advanced or pinned, so tests drive time without sleeping.
export interface Clock {
  now(): number;
}

export class VirtualClock implements Clock {
  private offset = 0;
  private pinned: number | undefined;

  /** @param real the real time it runs with (Date.now; tests give their own) */
  constructor(readonly real: () => number = Date.now) {}

  now(): number {
    return this.pinned ?? this.real() + this.offset;
  }

  /** Moves time forward by ms (a pinned clock stays pinned at the later time). */
  advance(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    if (this.pinned !== undefined) this.pinned += ms;
    else this.offset += ms;
  }

  /** Stops the clock at `at` (ms since the epoch); undefined lets it run again from there. */
  pin(at: number | undefined): void {
    if (at === undefined) {
      if (this.pinned !== undefined) this.offset = this.pinned - this.real();
      this.pinned = undefined;
    } else {
      this.pinned = at;
    }
  }

  get isPinned(): boolean {
    return this.pinned !== undefined;
  }

  /** Sets the time to `at` (ms since the epoch), forward or back; a pinned clock stays pinned there. */
  set(at: number): void {
    if (!Number.isFinite(at)) throw new RangeError('the clock needs a finite time');
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

  toJSON(): { offset_ms: number; pinned_ms: number | null } {
    return { offset_ms: this.offset, pinned_ms: this.pinned ?? null };
  }

  /** Takes over a state written by toJSON(). */
  restore(state: { offset_ms: number; pinned_ms: number | null }): void {
    this.offset = state.offset_ms;
    this.pinned = state.pinned_ms ?? undefined;
  }
}

/** An account's clock as a state dump keeps it: null while it follows the server's. */
export type AccountClockState = { offset_ms: number; pinned_ms: number | null } | null;

/**
 * The clock of one account (issue 18): the server's clock until the account moves its own
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
    this.mine().advance(ms);
  }

  set(at: number): void {
    this.mine().set(at);
  }

  pin(at: number | undefined): void {
    this.mine().pin(at);
  }

  /** Back to the server's clock (the account's time becomes the server's). */
  follow(): void {
    this.own = undefined;
  }

  toJSON(): AccountClockState {
    return this.own ? this.own.toJSON() : null;
  }

  restore(state: AccountClockState | undefined): void {
    if (!state) this.own = undefined;
    else this.mine().restore(state);
  }

  /** The account's own clock, made from the server's reading when first moved. */
  private mine(): VirtualClock {
    if (!this.own) {
      const own = new VirtualClock(this.server.real);
      own.restore(this.server.toJSON());
      this.own = own;
    }
    return this.own;
  }
}
