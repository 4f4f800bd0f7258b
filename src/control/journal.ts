// The request journal: the last N requests (method, path, status, time), bounded in memory.
//
// Stored by column (typed arrays for the numbers, the same string for the same path) rather than
// as one object per request: an entry lives for N requests, long enough for V8 to move it to the
// old generation, so an object per request filled the old generation at every request's pace and
// made major collections (whose cost grows with the whole heap, 10,000 instances included) part of
// every request's cost.
import { Memo } from '../core/memo.js';

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
  private readonly at: Float64Array;
  private readonly ms: Float64Array;
  private readonly status: Uint16Array;
  private readonly api: string[];
  private readonly method: string[];
  private readonly path: string[];
  /** One string per distinct path, so that a path sent again is not a new string kept. */
  private readonly paths = new Memo<string>();
  private next = 0;
  private count = 0;

  constructor(readonly capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('the journal capacity must be a positive integer');
    this.at = new Float64Array(capacity);
    this.ms = new Float64Array(capacity);
    this.status = new Uint16Array(capacity);
    this.api = new Array<string>(capacity).fill('');
    this.method = new Array<string>(capacity).fill('');
    this.path = new Array<string>(capacity).fill('');
  }

  record(entry: JournalRecord): void {
    const i = this.next;
    this.at[i] = entry.at;
    this.ms[i] = entry.ms;
    this.status[i] = entry.status;
    this.api[i] = entry.api;
    this.method[i] = entry.method;
    this.path[i] = this.paths.get(entry.path, same);
    this.next = (i + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The last `limit` entries, newest last. */
  last(limit = this.capacity): JournalEntry[] {
    const n = Math.min(limit, this.count);
    const out: JournalEntry[] = [];
    for (let k = n; k > 0; k--) {
      const i = (this.next - k + this.capacity) % this.capacity;
      out.push({ time: new Date(this.at[i]!).toISOString(), api: this.api[i]!, method: this.method[i]!, path: this.path[i]!, status: this.status[i]!, ms: this.ms[i]! });
    }
    return out;
  }

  get size(): number {
    return this.count;
  }

  clear(): void {
    this.api.fill('');
    this.method.fill('');
    this.path.fill('');
    this.paths.clear();
    this.next = 0;
    this.count = 0;
  }
}

const same = (s: string): string => s;
