// The router of both apps: Hono's TrieRouter (its RegExpRouter refuses a literal path beside a
// template, /api/alarms/recipients beside /api/alarms/{id}), with the match of each method and path
// remembered. Clients send the same few paths over and over, so most requests skip the trie walk.
// A match result depends only on the method and the path, and Hono reads it without changing it.
import type { Result, Router } from 'hono/router';
import { TrieRouter } from 'hono/router/trie-router';
import { Memo, type MemoOptions } from '../core/memo.js';

export class MemoRouter<T> implements Router<T> {
  readonly name = 'MemoRouter(TrieRouter)';
  private readonly trie = new TrieRouter<T>();
  private readonly memo: Memo<Result<T>>;

  /** @param options how many matches are kept (2,048) and the longest method and path kept (256) */
  constructor(options: MemoOptions = {}) {
    this.memo = new Memo(options);
  }

  add(method: string, path: string, handler: T): void {
    this.memo.clear();
    this.trie.add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    return this.memo.get(`${method} ${path}`, () => this.trie.match(method, path));
  }
}
