// MemoRouter: Hono's TrieRouter with the match of each method and path remembered.
import { describe, expect, it } from 'vitest';
import { TrieRouter } from 'hono/router/trie-router';
import { MemoRouter } from '../../src/http/router.js';

function routers(options?: ConstructorParameters<typeof MemoRouter>[0]) {
  const memo = new MemoRouter<string>(options);
  const trie = new TrieRouter<string>();
  for (const [method, path, handler] of [
    ['GET', '/api/alarms', 'listAlarms'],
    ['GET', '/api/alarms/recipients', 'listRecipients'],
    ['GET', '/api/alarms/:id', 'getAlarm'],
    ['PUT', '/api/alarms/:id', 'updateAlarm'],
    ['ALL', '/__tusk/*', 'control'],
  ] as const) {
    memo.add(method, path, handler);
    trie.add(method, path, handler);
  }
  return { memo, trie };
}

const handlers = (r: ReturnType<MemoRouter<string>['match']>) => r[0].map(([h]) => h);

describe('MemoRouter', () => {
  it('names itself after the router it wraps', () => {
    expect(new MemoRouter<string>().name).toBe('MemoRouter(TrieRouter)');
  });

  it('matches as the TrieRouter does, the first time and every time after', () => {
    const { memo, trie } = routers();
    for (const [method, path] of [
      ['GET', '/api/alarms'],
      ['GET', '/api/alarms/recipients'],
      ['GET', '/api/alarms/7'],
      ['PUT', '/api/alarms/7'],
      ['DELETE', '/api/alarms/7'],
      ['POST', '/__tusk/reset'],
      ['GET', '/nowhere'],
    ]) {
      const expected = trie.match(method!, path!);
      expect(memo.match(method!, path!)).toEqual(expected);
      expect(memo.match(method!, path!)).toEqual(expected);
    }
  });

  it('gives each path its own parameters', () => {
    const { memo } = routers();
    const [[[, a]]] = memo.match('GET', '/api/alarms/1') as [[[string, Record<string, string>]]];
    const [[[, b]]] = memo.match('GET', '/api/alarms/2') as [[[string, Record<string, string>]]];
    expect([a, b]).toEqual([{ id: '1' }, { id: '2' }]);
  });

  it('remembers a match: the second request of a path is not matched again', () => {
    const { memo } = routers();
    const first = memo.match('GET', '/api/alarms');
    expect(memo.match('GET', '/api/alarms')).toBe(first);
    expect(memo.match('PUT', '/api/alarms')).not.toBe(first);
  });

  it('forgets everything when full, and never remembers a path over the length limit', () => {
    const { memo } = routers({ size: 2, maxKeyLength: 24 });
    const one = memo.match('GET', '/api/alarms/1');
    memo.match('GET', '/api/alarms/2');
    expect(memo.match('GET', '/api/alarms/1')).toBe(one);
    memo.match('GET', '/api/alarms/3'); // full: starts anew
    expect(memo.match('GET', '/api/alarms/1')).not.toBe(one);
    const long = `/api/alarms/${'9'.repeat(20)}`;
    const l = memo.match('GET', long);
    expect(handlers(l)).toEqual(['getAlarm']);
    expect(memo.match('GET', long)).not.toBe(l);
  });

  it('a route added later is found: adding forgets what was remembered', () => {
    const { memo } = routers();
    expect(handlers(memo.match('GET', '/api/backup'))).toEqual([]);
    memo.add('GET', '/api/backup', 'listBackups');
    expect(handlers(memo.match('GET', '/api/backup'))).toEqual(['listBackups']);
  });
});
