// The engine's work for the instances as steps run one after another, in the order asked, once the
// engine is ready: a step that fails because the server went away waits for it to be back (not
// counted as an attempt); other failures are retried, then logged. A step never throws to its
// caller and never crashes the process; once the queue closes, the steps not yet run are dropped.
import { isUnreachable, type EngineLog, type PostgresEngine } from './engine.js';

const RETRIES = 3;

export class StepQueue {
  private queue: Promise<void> = Promise.resolve();
  private closed = false;
  /** Resolves when close() begins: a step waiting for the engine gives up then. */
  private readonly closing: Promise<void>;
  private startClosing!: () => void;
  /** Steps that failed for good, for the log and the tests. */
  readonly failures: string[] = [];

  constructor(
    private readonly engine: PostgresEngine,
    private readonly log: EngineLog,
  ) {
    this.closing = new Promise((resolve) => (this.startClosing = resolve));
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Runs `step` after every step asked before it; resolves once it has run (or given up). */
  add(what: string, step: () => Promise<void>, retries = RETRIES): Promise<void> {
    const run = async () => {
      for (let attempt = 1; !this.closed;) {
        try {
          await Promise.race([this.engine.whenReady(), this.closing]);
        } catch (err) {
          if (!this.closed) this.fail(what, err);
          return;
        }
        if (this.closed) return;
        try {
          await step();
          return;
        } catch (err) {
          if (this.closed) return;
          if (isUnreachable(err)) await this.engine.check();
          if (this.engine.state !== 'ready') continue; // lost meanwhile: run again once it is back
          if (attempt++ >= retries) {
            this.fail(what, err);
            return;
          }
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
      }
    };
    this.queue = this.queue.then(run);
    return this.queue;
  }

  private fail(what: string, err: unknown): void {
    const line = `tusk: databases: ${what} failed: ${(err as Error).message}`;
    this.failures.push(line);
    // An engine that could not start said why, once: its steps add nothing but repeats.
    if (this.engine.state !== 'failed') this.log('error', line);
  }

  /** Resolves once every step asked so far has run. */
  idle(): Promise<void> {
    return this.queue;
  }

  /** Drops the steps not yet run; the one running may finish for up to `graceMs`. */
  async close(graceMs: number): Promise<void> {
    this.closed = true;
    this.startClosing();
    await Promise.race([this.queue, new Promise((r) => setTimeout(r, graceMs).unref())]);
  }
}
