// The version checks of a replica's reads (replica.ts, fresh()): which accounts' copies are older
// than the team's rows, and those rows. The reads that come while a check is in flight are checked
// together in the next one (batch.ts), one prepared statement over their ids (rows.ts,
// readAccounts): under load one query answers many reads, and none is answered by a query sent
// before it came.
import { Batch } from './batch.js';
import type { Copies } from './copies.js';
import { readAccounts, type AccountRow, type Queryable } from './rows.js';

/** A check's answer when the generation changed: everything is loaded again. */
export const RELOAD = Symbol('reload');

/** A check's answer for one read: the newer row, none (the copy is current), or RELOAD. */
export type Checked = AccountRow | undefined | typeof RELOAD;

export class VersionChecks {
  private readonly batch = new Batch<string, Checked>((ids) => this.check(ids));

  constructor(
    private readonly db: Queryable,
    private readonly copies: Copies,
  ) {}

  /** The answer for a read of account `id`, from the next check sent. */
  of(id: string): Promise<Checked> {
    return this.batch.answer(id);
  }

  /** The checks of the reads of accounts `ids` (repeats allowed), in one query. */
  private async check(ids: readonly string[]): Promise<Checked[]> {
    const unique = [...new Set(ids)];
    const got = await readAccounts(
      this.db,
      unique,
      unique.map((id) => this.copies.version(id)),
    );
    if (got.generation !== this.copies.generation) return ids.map(() => RELOAD);
    const rows = new Map(got.rows.map((r) => [r.id, r]));
    return ids.map((id) => rows.get(id));
  }
}
