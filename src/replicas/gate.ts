// Within one replica: the account writes in flight share the gate; what replaces every home at once
// (loading the whole state again, a change of the server) has it alone, once the writes in flight
// have finished, and the writes that come meanwhile wait. A write holds the objects of its account's
// home from its authentication to its answer: replaced under it, its change would be made to a
// home no longer there, and lost.
export class Gate {
  private shared = 0;
  private closed: Promise<void> | undefined;
  private drained: (() => void) | undefined;

  /** Runs `work` beside the other shared work, after any alone() in progress. */
  async share<T>(work: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
    this.shared++;
    try {
      return await work();
    } finally {
      if (--this.shared === 0) this.drained?.();
    }
  }

  /** Runs `work` alone: once the shared work in progress has finished; new shared work waits. */
  async alone<T>(work: () => Promise<T>): Promise<T> {
    while (this.closed) await this.closed;
    let open!: () => void;
    this.closed = new Promise((resolve) => (open = resolve));
    try {
      if (this.shared > 0) await new Promise<void>((resolve) => (this.drained = resolve));
      this.drained = undefined;
      return await work();
    } finally {
      this.closed = undefined;
      open();
    }
  }
}
