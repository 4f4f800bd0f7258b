// The request journal: the last N requests (method, path, status, time), bounded in memory.
export interface JournalEntry {
  time: string;
  api: string;
  method: string;
  path: string;
  status: number;
  ms: number;
}

/** What a request leaves in the journal: its time as epoch milliseconds, formatted only when read. */
export interface JournalRecord extends Omit<JournalEntry, 'time'> {
  at: number;
}

export class RequestJournal {
  private readonly ring: (JournalRecord | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('the journal capacity must be a positive integer');
    this.ring = new Array<JournalRecord | undefined>(capacity);
  }

  record(entry: JournalRecord): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The last `limit` entries, newest last. */
  last(limit = this.capacity): JournalEntry[] {
    const n = Math.min(limit, this.count);
    const out: JournalEntry[] = [];
    for (let i = n; i > 0; i--) {
      const { at, api, method, path, status, ms } = this.ring[(this.next - i + this.capacity) % this.capacity]!;
      out.push({ time: new Date(at).toISOString(), api, method, path, status, ms });
    }
    return out;
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    this.ring.fill(undefined);
    this.next = 0;
    this.count = 0;
  }
}
