// One bounded memory for values computed from strings that clients send over and over (an
// Authorization header, a key, a method and path). Memory stays bounded whatever clients send: at
// most `size` entries (then everything is forgotten at once, which costs one recomputation per key
// still in use), and an argument longer than `maxKeyLength` is never remembered.
export interface MemoOptions {
  /** Entries remembered at most (default 2,048). */
  size?: number;
  /** Arguments longer than this are computed every time (default 256 characters). */
  maxKeyLength?: number;
}

export class Memo<V> {
  private readonly entries = new Map<string, V>();
  private readonly size: number;
  private readonly maxKeyLength: number;

  constructor(options: MemoOptions = {}) {
    this.size = options.size ?? 2048;
    this.maxKeyLength = options.maxKeyLength ?? 256;
  }

  /** The value remembered for `key`, else `make(key)` (remembered when `key` is short enough). */
  get(key: string, make: (key: string) => V): V {
    if (key.length > this.maxKeyLength) return make(key);
    let value = this.entries.get(key);
    if (value === undefined) {
      value = make(key);
      if (this.entries.size >= this.size) this.entries.clear();
      this.entries.set(key, value);
    }
    return value;
  }

  clear(): void {
    this.entries.clear();
  }
}
