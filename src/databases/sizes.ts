// The real sizes of the instances' databases, read every few seconds in one query and handed to
// their instances (the monitor's disk_used_gb). A round that fails is skipped: the next one tries
// again.
import type { PostgresEngine } from './engine.js';

/** How often the databases' sizes are read. */
const SIZE_EVERY_MS = 2_000;

export class SizeWatch {
  private readonly listeners = new Map<string, (bytes: number) => void>();
  private timer?: NodeJS.Timeout;
  private measuring = false;

  constructor(
    private readonly engine: PostgresEngine,
    /** Reads every database's size (the admin's one query). */
    private readonly read: () => Promise<Map<string, number>>,
    /** Whether a database is made (the sizes of the others are not told). */
    private readonly isMade: (database: string) => boolean,
  ) {}

  /** `onSize` learns the size of `database` from now on; the rounds start with the first listener. */
  listen(database: string, onSize: (bytes: number) => void): void {
    this.listeners.set(database, onSize);
    if (this.timer) return;
    this.timer = setInterval(() => void this.measure(), SIZE_EVERY_MS);
    this.timer.unref();
  }

  forget(database: string): void {
    this.listeners.delete(database);
  }

  clear(): void {
    this.listeners.clear();
  }

  /** One query for every live database's size. */
  async measure(): Promise<void> {
    if (this.measuring || this.engine.state !== 'ready' || this.listeners.size === 0) return;
    this.measuring = true;
    try {
      const sizes = await this.read();
      for (const [database, bytes] of sizes) if (this.isMade(database)) this.listeners.get(database)?.(bytes);
    } catch {
      /* the engine is busy or down: the next round */
    } finally {
      this.measuring = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
