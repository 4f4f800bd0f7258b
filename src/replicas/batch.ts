// One question to Postgres for many requests (checks.ts: the version checks of reads; rate-limit.ts:
// the rate limit's hits). A request's question waits for the next query, which is sent when none is
// in flight: at once when the replica is idle, else as soon as the query in flight has answered,
// for every question that came meanwhile. A question is never answered by a query sent before it
// was asked, so each answer is as fresh as a query of its own would be: Postgres takes a
// statement's snapshot when it runs it, after it was sent, after the question came (a write
// acknowledged before a read came is seen by that read). Under load one query answers many
// requests; a replica that is idle sends one per request, as before.

/** Answers `questions` in one go: the answer of each, in the same order. */
export type Ask<Q, A> = (questions: readonly Q[]) => Promise<readonly A[]>;

interface Waiting<Q, A> {
  question: Q;
  resolve: (answer: A) => void;
  reject: (err: unknown) => void;
}

export class Batch<Q, A> {
  private waiting: Waiting<Q, A>[] = [];
  private flying = false;

  constructor(private readonly ask: Ask<Q, A>) {}

  /** The answer to `question`, from the next query sent. */
  answer(question: Q): Promise<A> {
    return new Promise<A>((resolve, reject) => {
      this.waiting.push({ question, resolve, reject });
      if (!this.flying) void this.fly();
    });
  }

  /** Sends a query for what waits, and again while something came meanwhile; one in flight at a time. */
  private async fly(): Promise<void> {
    this.flying = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        const answers = await this.ask(batch.map((w) => w.question));
        for (let i = 0; i < batch.length; i++) batch[i]!.resolve(answers[i]!);
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    this.flying = false;
  }
}
