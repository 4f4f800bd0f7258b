// The request journal: the last N requests (method, path, status, time), bounded in memory.
//
// Each account reads its own requests through its home (accounts/home.ts); the journal is the
// server's. Stored by column (typed arrays for the numbers, the same string for the same path)
// rather than as one object per request: an entry lives for N requests, long enough for V8 to
// move it to the old generation, where an object per request would fill the old generation at
// every request's pace and make major collections part of every request's cost.
import { Memo } from '../core/memo.js';

export interface JournalEntry {
  time: string;
  api: string;
  method: string;
  path: string;
  status: number;
  ms: number;
  /** The account the request's key opened (absent: none, e.g. a 401). */
  account?: string;
}

/** What a request leaves in the journal: its time as epoch milliseconds, formatted only when read. */
export interface JournalRecord extends Omit<JournalEntry, 'time'> {
  at: number;
}

/** The account column of an entry cleared by clear(account): skipped by every read. */
const CLEARED = '\u0000cleared';

export class RequestJournal {
  private readonly at: Float64Array;
  private readonly ms: Float64Array;
  private readonly status: Uint16Array;
  private readonly api: string[];
  private readonly method: string[];
  private readonly path: string[];
  /** The account id ('' for none, CLEARED for an entry its account cleared). */
  private readonly account: string[];
  /** One string per distinct path, so that a path sent again is not a new string kept. */
  private readonly paths = new Memo<string>();
  private next = 0;
  private count = 0;

  constructor(readonly capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 1)
      throw new RangeError('the journal capacity must be a positive integer');
    this.at = new Float64Array(capacity);
    this.ms = new Float64Array(capacity);
    this.status = new Uint16Array(capacity);
    this.api = new Array<string>(capacity).fill('');
    this.method = new Array<string>(capacity).fill('');
    this.path = new Array<string>(capacity).fill('');
    this.account = new Array<string>(capacity).fill('');
  }

  record(entry: JournalRecord): void {
    const i = this.next;
    this.at[i] = entry.at;
    this.ms[i] = entry.ms;
    this.status[i] = entry.status;
    this.api[i] = entry.api;
    this.method[i] = entry.method;
    this.path[i] = this.paths.get(entry.path, same);
    this.account[i] = entry.account ?? '';
    this.next = (i + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  /** The last `limit` entries, or the last `limit` of one account's requests, newest last. */
  last(limit = this.capacity, account?: string): JournalEntry[] {
    const picked: number[] = [];
    for (let k = 1; k <= this.count && picked.length < limit; k++) {
      const i = (this.next - k + this.capacity) % this.capacity;
      const a = this.account[i]!;
      if (a === CLEARED || (account !== undefined && a !== account)) continue;
      picked.push(i);
    }
    return picked.reverse().map((i) => {
      const a = this.account[i]!;
      return {
        time: new Date(this.at[i]!).toISOString(),
        api: this.api[i]!,
        method: this.method[i]!,
        path: this.path[i]!,
        status: this.status[i]!,
        ms: this.ms[i]!,
        ...(a ? { account: a } : {}),
      };
    });
  }

  get size(): number {
    return this.count;
  }

  /** Empties the journal, or forgets one account's requests only. */
  clear(account?: string): void {
    if (account !== undefined) {
      for (let i = 0; i < this.capacity; i++) if (this.account[i] === account) this.account[i] = CLEARED;
      return;
    }
    this.account.fill('');
    this.api.fill('');
    this.method.fill('');
    this.path.fill('');
    this.paths.clear();
    this.next = 0;
    this.count = 0;
  }
}

const same = (s: string): string => s;
