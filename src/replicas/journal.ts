// The request journal of a team's Tusk: every replica records the lines of the requests it answers
// in its own journal (domain/journal.ts) and, within 50 ms, in Postgres: the lines gathered since
// the last write go as one row (tusk.journal_chunks, one JSON array in the order they were
// answered; a row per line was most of Postgres's work under load). A replica asked for the
// journal (GET /__tusk/requests) first writes what it holds and then reads the team's last lines,
// so that every line is the same through each replica. Emptying the journal (DELETE
// /__tusk/requests), or one account's part of it, is a change of the server (replica.ts): it is
// done in Postgres inside that change.
import type { RequestJournal, JournalRecord } from '../domain/journal.js';
import type { Logger } from '../core/log.js';
import type { Queryable } from './rows.js';

const FLUSH_EVERY_MS = 50;

export class SharedJournal {
  private lines: JournalRecord[] = [];
  private cleared: (string | undefined)[] = [];
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly journal: RequestJournal,
    private readonly db: Queryable,
    private readonly logger: Logger,
  ) {
    journal.watch({
      recorded: (entry) => {
        this.lines.push(entry);
        this.timer ??= setTimeout(() => void this.flush(), FLUSH_EVERY_MS);
      },
      cleared: (account) => this.cleared.push(account),
    });
  }

  /** Writes the lines recorded here so far (one row). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.lines;
    this.lines = [];
    if (!lines.length) return this.flushing;
    const accounts = [...new Set(lines.flatMap((l) => (l.account === undefined ? [] : [l.account])))];
    this.flushing = this.flushing.then(() =>
      this.db
        .query({
          name: 'tusk-journal-chunk',
          text: 'insert into tusk.journal_chunks (accounts, n, lines) values ($1, $2, $3)',
          values: [accounts, lines.length, JSON.stringify(lines)],
        })
        .then(
          () => undefined,
          (err: Error) => this.logger.warn(`tusk: team: journal lines could not be written: ${err.message}`),
        ),
    );
    return this.flushing;
  }

  /** The team's last lines, in this replica's journal (before a read of it). */
  async load(): Promise<void> {
    await this.flush();
    const { capacity } = this.journal;
    // The newest rows, as many as hold the last `capacity` lines.
    const { rows } = await this.db.query(
      `select lines from (
         select id, lines, sum(n) over (order by id desc) - n as newer
           from (select id, n, lines from tusk.journal_chunks order by id desc limit $1) last
       ) c where newer < $1 order by id`,
      [capacity],
    );
    this.journal.clear(undefined, false);
    for (const line of (rows as { lines: JournalRecord[] }[]).flatMap((r) => r.lines).slice(-capacity))
      this.journal.record(line, false);
  }

  /** Empties in Postgres what was emptied here (inside the change of the server that did it). */
  async applyClears(db: Queryable): Promise<void> {
    const cleared = this.cleared;
    this.cleared = [];
    for (const account of cleared) {
      if (account === undefined) await db.query('delete from tusk.journal_chunks');
      else await clearAccount(db, account);
    }
  }

  async close(): Promise<void> {
    await this.flush();
  }
}

/** Takes one account's lines out of every row that has some, in the order of the others; drops a row left empty. */
async function clearAccount(db: Queryable, account: string): Promise<void> {
  await db.query(
    `update tusk.journal_chunks c set lines = k.lines, n = k.n, accounts = array_remove(c.accounts, $1)
       from (select j.id,
                    coalesce(json_agg(e.l order by e.i) filter (where e.l->>'account' is distinct from $1), '[]') as lines,
                    count(*) filter (where e.l->>'account' is distinct from $1) as n
               from tusk.journal_chunks j, json_array_elements(j.lines) with ordinality as e(l, i)
              where $1 = any(j.accounts) group by j.id) k
      where c.id = k.id`,
    [account],
  );
  await db.query('delete from tusk.journal_chunks where n = 0');
}

/** Keeps the rows of the last `keep` lines at least (the leader's clean-up). */
export async function pruneJournal(db: Queryable, keep: number): Promise<void> {
  await db.query(
    `delete from tusk.journal_chunks
      where id < (select min(id) from (select id from tusk.journal_chunks order by id desc limit $1) last)`,
    [keep],
  );
}
