// The engine's state (`off`, `starting`, `ready`, `restarting`, `failed`), who is told of each
// change, and the wait for a lost server to be back.
import type { EngineState } from './engine-spec.js';

export class EngineStates {
  protected current: EngineState = 'off';
  private readonly listeners = new Set<(state: EngineState) => void>();
  /** Resolved when the server is ready again (made when it is lost). */
  private back?: { promise: Promise<void>; resolve: () => void };

  /** The engine's state now. */
  get state(): EngineState {
    return this.current;
  }

  /** Calls `listener` on every change of state; returns what removes it. */
  onState(listener: (state: EngineState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Moves to `state` and tells the listeners; `restarting` makes what waits for the server's return, `ready` ends it. */
  protected setState(state: EngineState): void {
    if (state === this.current) return;
    this.current = state;
    if (state === 'restarting' && !this.back) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.back = { promise, resolve };
    }
    if (state === 'ready') this.release();
    for (const listener of this.listeners) listener(state);
  }

  /** Resolves once the server is back, or after `ms` at most. */
  protected untilBack(ms: number): Promise<void> {
    return Promise.race([this.back?.promise, new Promise<void>((r) => setTimeout(r, ms))]).then(() => undefined);
  }

  /** Ends every wait for the server's return (it is back, or the engine closes). */
  protected release(): void {
    this.back?.resolve();
    this.back = undefined;
  }
}
