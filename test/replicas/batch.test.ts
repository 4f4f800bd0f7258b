// One query for many requests (src/replicas/batch.ts): a question is sent at once when nothing is in
// flight, the questions that come while a query is in flight go together in the next one (never in
// the one in flight), each gets its own answer, and a failed query fails its questions only.
import { describe, expect, it } from 'vitest';
import { Batch } from '../../src/replicas/batch.js';

/** A batch whose queries are answered by hand: `sent` holds each query's questions, `reply(i)` answers query i. */
function manual() {
  const sent: number[][] = [];
  const replies: { resolve: (a: string[]) => void; reject: (e: Error) => void }[] = [];
  const batch = new Batch<number, string>(
    (questions) =>
      new Promise((resolve, reject) => {
        sent.push([...questions]);
        replies.push({ resolve, reject });
      }),
  );
  const reply = (i: number) => replies[i]!.resolve(sent[i]!.map((q) => `answer ${q}`));
  const fail = (i: number) => replies[i]!.reject(new Error(`query ${i} failed`));
  return { batch, sent, reply, fail };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('Batch', () => {
  it('sends a question at once when nothing is in flight', async () => {
    const { batch, sent, reply } = manual();
    const answer = batch.answer(1);
    expect(sent).toEqual([[1]]);
    reply(0);
    expect(await answer).toBe('answer 1');
  });

  it('asks the questions that came during a flight together in the next query, never in the one in flight', async () => {
    const { batch, sent, reply } = manual();
    const first = batch.answer(1);
    const later = [batch.answer(2), batch.answer(3), batch.answer(4)];
    expect(sent).toEqual([[1]]);
    reply(0);
    expect(await first).toBe('answer 1');
    await tick();
    expect(sent).toEqual([[1], [2, 3, 4]]);
    const meanwhile = batch.answer(5);
    reply(1);
    expect(await Promise.all(later)).toEqual(['answer 2', 'answer 3', 'answer 4']);
    await tick();
    expect(sent).toEqual([[1], [2, 3, 4], [5]]);
    reply(2);
    expect(await meanwhile).toBe('answer 5');
    // Idle again: the next question is sent at once.
    void batch.answer(6);
    expect(sent).toHaveLength(4);
  });

  it('fails the questions of a failed query only, and goes on with the next', async () => {
    const { batch, sent, reply, fail } = manual();
    const first = batch.answer(1);
    const second = batch.answer(2);
    fail(0);
    await expect(first).rejects.toThrow('query 0 failed');
    await tick();
    expect(sent).toEqual([[1], [2]]);
    reply(1);
    expect(await second).toBe('answer 2');
  });

  it('fails the questions when the query throws before it is sent', async () => {
    const batch = new Batch<number, number>(() => {
      throw new Error('no connection');
    });
    await expect(batch.answer(1)).rejects.toThrow('no connection');
    await expect(batch.answer(2)).rejects.toThrow('no connection');
  });
});
