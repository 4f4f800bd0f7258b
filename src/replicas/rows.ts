// The team's SQL, one function per question the replicas ask Postgres (schema.ts has the tables):
// an account's version (with its row when this replica's copy is older; or many accounts' at once),
// every account's version, the account a key opens, and the writes: an account's row and keys, the
// server's part, the journal's lines, the rate limit's hits. Every statement is parameterised; the
// two a read asks (readAccounts, hits) are prepared once per connection (named).
import { hash } from 'node:crypto';
import type pg from 'pg';
import type { AccountDump } from '../domain/state.js';
import type { FaultRule } from '../domain/fault-rules.js';
import type { ClockJSON } from '../domain/clock.js';
import type { AccountFixture } from '../../fixtures/index.js';

/** The digest the team indexes a key by (SHA-256, base64), as the key index of one process does. */
export const keyDigest = (key: string): string => hash('sha256', key, 'base64');

/** Anything that runs a query: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

/** One account as the team keeps it. */
export interface AccountRow {
  id: string;
  version: number;
  dump: AccountDump;
  faults: { seed: number; rules: FaultRule[] } | null;
  fixture: AccountFixture | null;
}

/** The server's part: what is not an account's. */
export interface ServerPart {
  seed: number;
  clock: ClockJSON;
  faults: { seed: number; rules: FaultRule[] };
  outbox_last_id: number;
}

/** The generation (it changes with the set of accounts or the server's part) and the server's part. */
export async function readServer(db: Queryable): Promise<{ generation: number; server: ServerPart | undefined }> {
  const { rows } = await db.query(`select k, v from tusk.meta where k in ('generation', 'server')`);
  const by = new Map(rows.map((r: { k: string; v: unknown }) => [r.k, r.v]));
  return { generation: Number(by.get('generation') ?? 0), server: by.get('server') as ServerPart | undefined };
}

export async function writeServer(db: Queryable, generation: number, server: ServerPart): Promise<void> {
  await db.query(
    `insert into tusk.meta (k, v) values ('generation', $1), ('server', $2)
     on conflict (k) do update set v = excluded.v`,
    [JSON.stringify(generation), JSON.stringify(server)],
  );
}

/**
 * The version of account `id` and the generation, with the account's row when its version is not
 * `known` (the replica's copy is older); `lock`: the row is locked until the transaction ends.
 */
export async function readAccount(
  db: Queryable,
  id: string,
  known: number,
  lock = false,
): Promise<{ generation: number; version: number | undefined; row: AccountRow | undefined }> {
  const { rows } = await db.query(
    `select (select v from tusk.meta where k = 'generation') as generation, a.id, a.version,
            case when a.version <> $2 then a.dump end as dump,
            case when a.version <> $2 then a.faults end as faults,
            case when a.version <> $2 then a.fixture end as fixture
       from tusk.accounts a where a.id = $1${lock ? ' for update' : ''}`,
    [id, known],
  );
  const r = rows[0] as ({ generation: unknown; id: string; version: string } & Partial<AccountRow>) | undefined;
  if (!r) return { generation: (await readServer(db)).generation, version: undefined, row: undefined };
  const version = Number(r.version);
  const row = r.dump
    ? { id: r.id, version, dump: r.dump, faults: r.faults ?? null, fixture: r.fixture ?? null }
    : undefined;
  return { generation: Number(r.generation ?? 0), version, row };
}

/**
 * The generation, and the row of each account of `ids` whose version is not the one in `known` (the
 * replica's copy is older): the version checks of many reads in one statement (batch.ts). An
 * account the database does not hold has no row (the generation tells that the set changed).
 */
export async function readAccounts(
  db: Queryable,
  ids: readonly string[],
  known: readonly number[],
): Promise<{ generation: number; rows: AccountRow[] }> {
  const { rows } = await db.query({
    name: 'tusk-read-accounts',
    text: `select (select v from tusk.meta where k = 'generation') as generation, a.id, a.version,
                  case when a.version <> k.known then a.dump end as dump,
                  case when a.version <> k.known then a.faults end as faults,
                  case when a.version <> k.known then a.fixture end as fixture
             from unnest($1::text[], $2::bigint[]) as k(id, known) left join tusk.accounts a on a.id = k.id`,
    values: [ids, known],
  });
  const got = rows as ({ generation: unknown; id: string | null; version: string | null } & Partial<AccountRow>)[];
  return {
    generation: Number(got[0]?.generation ?? 0),
    rows: got
      .filter((r) => r.id !== null && r.dump)
      .map((r) => ({
        id: r.id!,
        version: Number(r.version),
        dump: r.dump!,
        faults: r.faults ?? null,
        fixture: r.fixture ?? null,
      })),
  };
}

/** Every account's version. */
export async function accountVersions(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query('select id, version from tusk.accounts');
  return new Map(rows.map((r: { id: string; version: string }) => [r.id, Number(r.version)]));
}

/** Every account's row. */
export async function allAccounts(db: Queryable): Promise<AccountRow[]> {
  const { rows } = await db.query('select id, version, dump, faults, fixture from tusk.accounts order by id');
  return rows.map((r: AccountRow & { version: string }) => ({ ...r, version: Number(r.version) }));
}

/** The account whose key has this digest, if any. */
export async function accountOfKey(db: Queryable, digest: string): Promise<string | undefined> {
  const { rows } = await db.query('select account_id from tusk.keys where digest = $1', [digest]);
  return rows[0]?.account_id as string | undefined;
}

/** Writes account `row` (its version as given) and, when they changed, its keys' digests. */
export async function writeAccount(db: Queryable, row: AccountRow, digests?: readonly string[]): Promise<void> {
  await db.query(
    `insert into tusk.accounts (id, version, dump, faults, fixture) values ($1, $2, $3, $4, $5)
     on conflict (id) do update set version = excluded.version, dump = excluded.dump,
       faults = excluded.faults, fixture = excluded.fixture`,
    [row.id, row.version, JSON.stringify(row.dump), JSON.stringify(row.faults), JSON.stringify(row.fixture)],
  );
  if (!digests) return;
  await db.query('delete from tusk.keys where account_id = $1', [row.id]);
  await db.query('insert into tusk.keys (digest, account_id) select unnest($2::text[]), $1', [row.id, [...digests]]);
}

export async function deleteAccount(db: Queryable, id: string): Promise<void> {
  await db.query('delete from tusk.keys where account_id = $1', [id]);
  await db.query('delete from tusk.accounts where id = $1', [id]);
}

/**
 * Counts `counts[i]` more hits of `credentials[i]` in window `wins[i]` (each pair once); returns the
 * hits counted in each pair's window since it began, in the same order. The pairs are written in one
 * order (sorted), whichever replica writes them, so that two replicas' counts never wait on each
 * other's rows in a circle.
 */
export async function hits(
  db: Queryable,
  credentials: readonly string[],
  wins: readonly number[],
  counts: readonly number[],
): Promise<number[]> {
  const order = credentials
    .map((_, i) => i)
    .sort((a, b) =>
      credentials[a]! < credentials[b]! ? -1 : credentials[a]! > credentials[b]! ? 1 : wins[a]! - wins[b]!,
    );
  const { rows } = await db.query({
    name: 'tusk-hits',
    text: `insert into tusk.hits (credential, win, n) select * from unnest($1::text[], $2::bigint[], $3::integer[])
           on conflict (credential, win) do update set n = tusk.hits.n + excluded.n returning credential, win, n`,
    values: [order.map((i) => credentials[i]), order.map((i) => wins[i]), order.map((i) => counts[i])],
  });
  const n = new Map(
    (rows as { credential: string; win: string; n: number }[]).map((r) => [`${r.win} ${r.credential}`, Number(r.n)]),
  );
  return credentials.map((c, i) => n.get(`${wins[i]} ${c}`)!);
}

/** A block of `size` outbox ids no other replica is given: [first, first + size). */
export async function outboxBlock(db: Queryable, size: number): Promise<number> {
  const { rows } = await db.query(`select nextval('tusk.outbox_blocks') as b`);
  return Number(rows[0].b) * size + 1;
}
