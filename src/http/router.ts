// The router of both apps: Hono's TrieRouter (its RegExpRouter refuses a literal path beside a
// template, /api/alarms/recipients beside /api/alarms/{id}), with the match of each method and path
// remembered. Clients send the same few paths over and over, so most requests skip the trie walk.
// A match result depends only on the method and the path, and Hono reads it without changing it.
import type { Result, Router } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';

export interface MemoRouterOptions {
  /** Matches remembered at most; then the memory starts anew. */
  size?: number;
  /** Paths longer than this are matched every time (a long path is rarely sent twice). */
  maxPathLength?: number;
}

export class MemoRouter<T> implements Router<T> {
  readonly name = 'MemoRouter(TrieRouter)';
  private readonly trie = new TrieRouter<T>();
  private readonly memo = new Map<string, Result<T>>();
  private readonly size: number;
  private readonly maxPathLength: number;

  constructor(options: MemoRouterOptions = {}) {
    this.size = options.size ?? 2048;
    this.maxPathLength = options.maxPathLength ?? 256;
  }

  add(method: string, path: string, handler: T): void {
    this.memo.clear();
    this.trie.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    if (path.length > this.maxPathLength) return this.trie.match(method, path);
    const key = method + ' ' + path;
    let result = this.memo.get(key);
    if (result === undefined) {
      result = this.trie.match(method, path);
      if (this.memo.size >= this.size) this.memo.clear();
      this.memo.set(key, result);
    }
    return result;
  }
}
