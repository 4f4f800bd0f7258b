// The request journal: the last N requests (method, path, status, time), bounded in memory.
export interface JournalEntry {
  time: string;
  api: string;
  method: string;
  path: string;
  status: number;
  ms: number;
}

export class RequestJournal {
  private readonly ring: (JournalEntry | undefined)[];
  private next = 0;
  private count = 0;

  constructor(readonly capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('the journal capacity must be a positive integer');
    this.ring = new Array<JournalEntry | undefined>(capacity);
  }

  record(entry: JournalEntry): void {
    this.ring[this.next] = entry;
    this.next = (this.next + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The last `limit` entries, newest last. */
  last(limit = this.capacity): JournalEntry[] {
    const n = Math.min(limit, this.count);
    const out: JournalEntry[] = [];
    for (let i = n; i > 0; i--) out.push(this.ring[(this.next - i + this.capacity) % this.capacity]!);
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
