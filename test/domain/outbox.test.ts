// Outbox: callbacks and notifications POSTed when due, with a timeout, bounded attempts and
// deliveries in flight, and a bounded history (src/domain/outbox.ts). The sender is a fake fetch
// that the tests answer.
import { describe, expect, it } from 'vitest';
import { VirtualClock } from '../../src/domain/clock.js';
import { Outbox, type OutboxEntry, type OutboxOptions } from '../../src/domain/outbox.js';
import { NOW } from '../resources/instance-setup.js';

type Answer = { status: number; body: { cancel(): Promise<void> } | null };

interface Call {
  url: string;
  init: RequestInit;
  answer(a: Answer): void;
  fail(err: unknown): void;
}

/** An outbox on a pinned clock whose sender records each call and waits for the test to answer it. */
function harness(options: Partial<OutboxOptions> = {}) {
  const clock = new VirtualClock();
  clock.pin(NOW);
  const calls: Call[] = [];
  const fetch = ((url: string, init: RequestInit) =>
    new Promise<Answer>((resolve, reject) => {
      calls.push({ url, init, answer: resolve, fail: reject });
    })) as unknown as typeof globalThis.fetch;
  const outbox = new Outbox({ clock, fetch, ...options });
  return { clock, outbox, calls };
}

/** A body the way fetch gives one (cancel() drops the rest). */
const body = () => ({ cancel: async () => undefined });
/** Answers a call later, on a timer: only settle() waits for it. */
const later = (call: Call, a: Answer) => setTimeout(() => call.answer(a), 5);
const entry = (n: number) => ({ event: 'backup', target: `https://hooks.example.com/${n}`, body: { n } });
const statuses = (outbox: Outbox) => outbox.list().map((e) => [e.id, e.status]);

describe('entries', () => {
  it('start with none; schedule() queues a callback due now, record() keeps a notification without sending it', () => {
    const { outbox, calls } = harness();
    expect(outbox.list()).toEqual([]);
    expect(outbox.schedule(entry(1))).toStrictEqual({
      id: 1,
      kind: 'callback',
      ...entry(1),
      dueAt: NOW,
      attempts: 0,
      status: 'pending',
    });
    expect(outbox.record({ event: 'alarm.cpu', target: 'oncall@example.com', body: { x: 1 } })).toStrictEqual({
      id: 2,
      kind: 'notification',
      event: 'alarm.cpu',
      target: 'oncall@example.com',
      body: { x: 1 },
      dueAt: NOW,
      attempts: 0,
      status: 'recorded',
    });
    expect(outbox.record({ kind: 'callback', ...entry(3), at: NOW - 1000 })).toMatchObject({
      id: 3,
      kind: 'callback',
      dueAt: NOW - 1000,
      status: 'recorded',
    });
    outbox.tick();
    expect(calls.map((c) => c.url)).toEqual(['https://hooks.example.com/1']);
  });

  it('clear() forgets every entry; the ids go on', () => {
    const { outbox } = harness();
    outbox.schedule(entry(1));
    outbox.record(entry(2));
    outbox.clear();
    expect(outbox.list()).toEqual([]);
    expect(outbox.schedule(entry(3)).id).toBe(3);
  });

  it('restore() takes over a dump: an entry that was being sent is pending again, the ids go on', () => {
    const { outbox } = harness();
    const dumped: OutboxEntry[] = [
      { id: 5, kind: 'callback', ...entry(5), dueAt: NOW, attempts: 1, status: 'sending' },
      { id: 6, kind: 'callback', ...entry(6), dueAt: NOW, attempts: 1, status: 'delivered', result: 'HTTP 204' },
    ];
    outbox.load({ last_id: 6, entries: dumped });
    expect(outbox.list()).toStrictEqual([{ ...dumped[0], status: 'pending' }, dumped[1]]);
    expect(outbox.toJSON()).toStrictEqual({ last_id: 6, entries: [{ ...dumped[0], status: 'pending' }, dumped[1]] });
    expect(outbox.schedule(entry(7)).id).toBe(7);
  });

  it('restore() takes over a dump of 300,000 entries (no spread of the ids onto the stack), keeping the newest', () => {
    const { outbox } = harness();
    const many: OutboxEntry[] = Array.from({ length: 300_000 }, (_, i) => ({
      id: i + 1,
      kind: 'callback',
      ...entry(i),
      dueAt: NOW,
      attempts: 1,
      status: 'delivered',
    }));
    outbox.load({ last_id: 0, entries: many });
    expect(outbox.list()).toHaveLength(1000);
    expect(outbox.list()[999]!.id).toBe(300_000);
    expect(outbox.schedule(entry(0)).id).toBe(300_001);
  });
});

describe('delivery', () => {
  it('POSTs the body as JSON with a timeout, without following redirects; a 2xx without a body delivers', async () => {
    const { outbox, calls } = harness();
    const e = outbox.schedule(entry(1));
    outbox.tick();
    expect(e).toMatchObject({ status: 'sending', attempts: 1 });
    const [call] = calls;
    expect(call!.url).toBe('https://hooks.example.com/1');
    expect(call!.init).toMatchObject({
      method: 'POST',
      body: '{"n":1}',
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
    });
    expect(call!.init.signal).toBeInstanceOf(AbortSignal);
    later(call!, { status: 204, body: null }); // fetch gives a 204 no body
    await outbox.settle();
    expect(e).toMatchObject({ status: 'delivered', attempts: 1, result: 'HTTP 204' });
  });

  it('sends what is due at or before now, nothing later', () => {
    const { outbox, calls } = harness();
    outbox.schedule({ ...entry(1), dueAt: NOW + 1 });
    outbox.schedule(entry(2));
    outbox.tick();
    expect(calls.map((c) => c.url)).toEqual(['https://hooks.example.com/2']);
    expect(statuses(outbox)).toEqual([
      [1, 'pending'],
      [2, 'sending'],
    ]);
  });

  it('only a 2xx answer delivers; any other is retried after retryDelayMs times the attempt number', async () => {
    const { outbox, calls } = harness();
    const codes = [199, 200, 299, 300, 302, 500];
    const entries = codes.map((_, n) => outbox.schedule(entry(n)));
    outbox.tick();
    calls.forEach((c, n) => c.answer({ status: codes[n]!, body: body() }));
    await outbox.settle();
    expect(entries.map((e) => [e.result, e.status, e.dueAt])).toEqual([
      ['HTTP 199', 'pending', NOW + 1000],
      ['HTTP 200', 'delivered', NOW],
      ['HTTP 299', 'delivered', NOW],
      ['HTTP 300', 'pending', NOW + 1000],
      ['HTTP 302', 'pending', NOW + 1000],
      ['HTTP 500', 'pending', NOW + 1000],
    ]);
  });

  it('fails an entry after maxAttempts attempts, noting the last error: a timeout by its length, else the cause', async () => {
    const { clock, outbox, calls } = harness({ timeoutMs: 20, maxAttempts: 2, retryDelayMs: 500 });
    const e = outbox.schedule(entry(1));
    outbox.tick();
    // The fake sender honours the signal as fetch does: the attempt times out.
    calls[0]!.init.signal!.addEventListener('abort', () => calls[0]!.fail(calls[0]!.init.signal!.reason));
    await outbox.settle();
    expect(e).toMatchObject({ status: 'pending', attempts: 1, result: 'timeout after 20 ms', dueAt: NOW + 500 });
    clock.advance(499);
    outbox.tick();
    expect(calls).toHaveLength(1);
    clock.advance(1);
    outbox.tick();
    calls[1]!.fail(Object.assign(new Error('fetch failed'), { cause: 'connect ECONNREFUSED 127.0.0.1:9' }));
    await outbox.settle();
    expect(e).toMatchObject({ status: 'failed', attempts: 2, result: 'connect ECONNREFUSED 127.0.0.1:9' });
    clock.advance(60_000);
    outbox.tick();
    expect(calls).toHaveLength(2);
  });

  it('keeps at most `concurrency` deliveries in flight', async () => {
    const { outbox, calls } = harness({ concurrency: 2 });
    for (const n of [1, 2, 3]) outbox.schedule(entry(n));
    outbox.tick();
    expect(statuses(outbox)).toEqual([
      [1, 'sending'],
      [2, 'sending'],
      [3, 'pending'],
    ]);
    outbox.tick();
    expect(calls).toHaveLength(2);
    for (const c of calls) c.answer({ status: 200, body: body() });
    await outbox.settle();
    outbox.tick();
    expect(calls.map((c) => c.url)).toEqual([1, 2, 3].map((n) => `https://hooks.example.com/${n}`));
  });
});

describe('history', () => {
  const dump = (...list: OutboxEntry['status'][]): { last_id: number; entries: OutboxEntry[] } => ({
    last_id: list.length,
    entries: list.map((status, n) => ({
      id: n + 1,
      kind: 'callback',
      ...entry(n + 1),
      dueAt: NOW + 60_000,
      attempts: 0,
      status,
    })),
  });

  it('keeps maxEntries entries; beyond, the oldest goes when none is finished', () => {
    const { outbox } = harness({ maxEntries: 3 });
    for (const n of [1, 2, 3]) outbox.schedule({ ...entry(n), dueAt: NOW + 60_000 });
    expect(outbox.list().map((e) => e.id)).toEqual([1, 2, 3]);
    outbox.schedule({ ...entry(4), dueAt: NOW + 60_000 });
    expect(outbox.list().map((e) => e.id)).toEqual([2, 3, 4]);
  });

  it('after a burst of entries, lists exactly the last maxEntries, and keeps a pending one over older finished ones', () => {
    const { outbox } = harness({ maxEntries: 3 });
    outbox.schedule({ ...entry(0), dueAt: NOW + 60_000 });
    for (let n = 1; n <= 500; n++) outbox.record(entry(n));
    expect(statuses(outbox)).toEqual([
      [1, 'pending'],
      [500, 'recorded'],
      [501, 'recorded'],
    ]);
    expect(outbox.toJSON().entries.map((e) => e.id)).toEqual([1, 500, 501]);
  });

  it('drops the oldest finished entry first: delivered, failed or recorded', () => {
    for (const finished of ['delivered', 'failed', 'recorded'] as const) {
      const { outbox } = harness({ maxEntries: 3 });
      outbox.load(dump('pending', 'sending', finished, 'pending', finished));
      expect(statuses(outbox), finished).toEqual([
        [1, 'pending'],
        [2, 'pending'],
        [4, 'pending'],
      ]);
    }
  });
});

describe('retries', () => {
  it('waits retryDelayMs times the attempt number: 1 s after the first failure, 2 s after the second', async () => {
    const { clock, outbox, calls } = harness({ maxAttempts: 3, retryDelayMs: 1000 });
    const e = outbox.schedule(entry(1));
    outbox.tick();
    calls[0]!.answer({ status: 500, body: body() });
    await outbox.settle();
    expect(e).toMatchObject({ status: 'pending', attempts: 1, dueAt: NOW + 1000 });
    clock.advance(1000);
    outbox.tick();
    calls[1]!.answer({ status: 503, body: body() });
    await outbox.settle();
    expect(e).toMatchObject({ status: 'pending', attempts: 2, dueAt: NOW + 1000 + 2000 });
  });
});

describe('accounts', () => {
  /** An outbox whose account `a` has a clock of its own, `ahead` ms ahead of the server's; other accounts follow the server. */
  function withAccountClock(ahead: number, options: Partial<OutboxOptions> = {}) {
    const own = new VirtualClock();
    own.pin(NOW + ahead);
    let reads = 0;
    const counted = { now: () => (reads++, own.now()) };
    const h = harness({ clockOf: (id) => (id === 'a' ? counted : undefined), ...options });
    return { ...h, own, reads: () => reads };
  }

  it("forAccount() marks each entry with the account and dates it on the account's clock; kinds default as outside", () => {
    const { outbox } = withAccountClock(5000);
    const a = outbox.forAccount('a');
    expect(a.schedule(entry(1))).toStrictEqual({
      id: 1,
      kind: 'callback',
      ...entry(1),
      dueAt: NOW + 5000,
      attempts: 0,
      status: 'pending',
      account: 'a',
    });
    expect(a.record(entry(2))).toStrictEqual({
      id: 2,
      kind: 'notification',
      ...entry(2),
      dueAt: NOW + 5000,
      attempts: 0,
      status: 'recorded',
      account: 'a',
    });
    expect(a.record({ kind: 'callback', ...entry(3), at: NOW - 1 })).toMatchObject({
      kind: 'callback',
      dueAt: NOW - 1,
      account: 'a',
    });
    expect(a.schedule({ kind: 'notification', ...entry(4), dueAt: NOW + 1 })).toMatchObject({
      kind: 'notification',
      dueAt: NOW + 1,
    });
    expect(outbox.forAccount('b').schedule(entry(5))).toMatchObject({ dueAt: NOW, account: 'b' });
  });

  it("tick() sends an account's entry when it is due on the account's clock, not the server's, reading that clock once", () => {
    const { outbox, calls, reads } = withAccountClock(60_000);
    outbox.schedule({ ...entry(1), dueAt: NOW + 30_000 });
    outbox.forAccount('a').schedule({ ...entry(2), dueAt: NOW + 30_000 });
    outbox.forAccount('a').schedule({ ...entry(3), dueAt: NOW + 30_000 });
    outbox.forAccount('b').schedule({ ...entry(4), dueAt: NOW + 30_000 });
    const before = reads();
    outbox.tick();
    expect(calls.map((c) => c.url)).toEqual([2, 3].map((n) => `https://hooks.example.com/${n}`));
    expect(reads() - before).toBe(1);
  });

  it("a retry of an account's entry is due on the account's clock", async () => {
    const { outbox, calls } = withAccountClock(60_000, { retryDelayMs: 1000 });
    const e = outbox.forAccount('a').schedule(entry(1));
    outbox.tick();
    calls[0]!.answer({ status: 500, body: body() });
    await outbox.settle();
    expect(e).toMatchObject({ status: 'pending', dueAt: NOW + 60_000 + 1000 });
  });

  it("clear(account) forgets that account's entries only; clear() forgets all", () => {
    const { outbox } = withAccountClock(0);
    outbox.forAccount('a').record(entry(1));
    outbox.record(entry(2));
    outbox.forAccount('b').record(entry(3));
    outbox.forAccount('a').record(entry(4));
    outbox.clear('a');
    expect(outbox.list().map((e) => e.id)).toEqual([2, 3]);
    expect(outbox.list('b').map((e) => e.id)).toEqual([3]);
    outbox.forAccount('a').record(entry(5));
    outbox.clear();
    expect(outbox.list()).toEqual([]);
  });

  it("adopt() takes over an account's dumped entries under fresh ids, keeping attempts; one being sent is pending again", () => {
    const { outbox } = withAccountClock(0);
    outbox.record(entry(1));
    const dumped: OutboxEntry[] = [
      { id: 40, kind: 'callback', ...entry(40), dueAt: NOW, attempts: 2, status: 'sending', account: 'x' },
      { id: 41, kind: 'notification', ...entry(41), dueAt: NOW, attempts: 0, status: 'recorded', account: 'x' },
      {
        id: 42,
        kind: 'callback',
        ...entry(42),
        dueAt: NOW,
        attempts: 1,
        status: 'failed',
        result: 'HTTP 500',
        account: 'x',
      },
    ];
    outbox.adopt('c', dumped);
    expect(outbox.list('c')).toStrictEqual([
      { ...dumped[0], id: 2, status: 'pending', account: 'c' },
      { ...dumped[1], id: 3, account: 'c' },
      { ...dumped[2], id: 4, account: 'c' },
    ]);
    expect(dumped[0]!.status).toBe('sending');
    expect(outbox.schedule(entry(5)).id).toBe(5);
  });
});

describe('history, read', () => {
  it('toJSON() writes exactly maxEntries entries, however many were added since the last read', () => {
    const { outbox } = harness({ maxEntries: 3 });
    for (let n = 1; n <= 5; n++) outbox.record(entry(n));
    expect(outbox.toJSON().entries.map((e) => e.id)).toEqual([3, 4, 5]);
  });

  it('is cut back when read: an entry that finished meanwhile goes before an older one still pending', async () => {
    const { outbox, calls } = harness({ maxEntries: 2 });
    for (const n of [1, 2, 3]) outbox.schedule(entry(n));
    outbox.tick();
    calls.forEach((c, n) => c.answer({ status: n === 1 ? 200 : 500, body: body() }));
    await outbox.settle();
    expect(statuses(outbox)).toEqual([
      [1, 'pending'],
      [3, 'pending'],
    ]);
  });
});
