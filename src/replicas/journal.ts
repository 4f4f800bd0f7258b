// The request journal of a team's Tusk: every replica records the lines of the requests it answers
// in its own journal (domain/journal.ts) and, within 50 ms, in Postgres; a replica asked for the
// journal (GET /__tusk/requests) first writes what it holds and then reads the team's last lines, so
// that every line is the same through each replica. Emptying the journal (DELETE /__tusk/requests)
// is a change of the server (team.ts): it is done in Postgres inside that change.
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

  /** Writes the lines recorded here so far (one insert, the lines sent as one JSON array). */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    const lines = this.lines;
    this.lines = [];
    if (!lines.length) return this.flushing;
    this.flushing = this.flushing.then(() =>
      this.db
        .query({
          name: 'tusk-journal-lines',
          text: `insert into tusk.journal (account_id, line)
                 select l->>'account', l from jsonb_array_elements($1::jsonb) with ordinality as j(l, n) order by n`,
          values: [JSON.stringify(lines)],
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
    const { rows } = await this.db.query(
      'select line from (select id, line from tusk.journal order by id desc limit $1) last order by id',
      [this.journal.capacity],
    );
    this.journal.clear(undefined, false);
    for (const r of rows as { line: JournalRecord }[]) this.journal.record(r.line, false);
  }

  /** Empties in Postgres what was emptied here (inside the change of the server that did it). */
  async applyClears(db: Queryable): Promise<void> {
    const cleared = this.cleared;
    this.cleared = [];
    for (const account of cleared) {
      if (account === undefined) await db.query('delete from tusk.journal');
      else await db.query('delete from tusk.journal where account_id = $1', [account]);
    }
  }

  async close(): Promise<void> {
    await this.flush();
  }
}
