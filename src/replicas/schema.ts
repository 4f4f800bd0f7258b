// The tables a team's Tusk keeps its state in (`tusk serve --state postgres://...`), in a schema of
// its own (`tusk`) of the database the URL names, made and migrated by the first replica that
// starts (under an advisory lock, so that replicas starting together migrate once):
//   meta      the server's parts: the seed, its clock, fault rules and outbox sequence, and the
//             generation, which changes whenever the set of accounts or the server's parts change
//   accounts  one row per account: its dump (the control document's AccountState: records, clock,
//             outbox entries), its version (one more per change), its own fault rules, and the
//             fixture of an account created through the control plane (what a reset builds again)
//   keys      every API key's SHA-256, and the account it opens (one lookup, as in one process)
//   journal_chunks  the request journal's lines, a row per write of a replica's lines (each 50 ms):
//             the lines as one JSON array in the order answered, and the accounts they name
//   hits      the rate limit's count per key and window, across the team
// TEAM_SCHEMA_VERSION counts the migrations; a database of a newer version is refused.
import type pg from 'pg';

export const TEAM_SCHEMA_VERSION = 2;

/** The advisory lock keys of the team (two ints: the namespace, then the lock). */
export const LOCKS = { namespace: 0x7475736b, migrate: 1, server: 2, leader: 3 } as const;

const MIGRATIONS: readonly string[] = [
  `create schema if not exists tusk;
   create table tusk.meta (k text primary key, v jsonb not null);
   create table tusk.accounts (
     id text primary key,
     version bigint not null,
     dump jsonb not null,
     faults jsonb,
     fixture jsonb
   );
   create table tusk.keys (digest text primary key, account_id text not null);
   create index keys_by_account on tusk.keys (account_id);
   create table tusk.journal (id bigserial primary key, account_id text, line jsonb not null);
   create index journal_by_account on tusk.journal (account_id, id);
   create unlogged table tusk.hits (
     credential text not null,
     win bigint not null,
     n integer not null,
     at timestamptz not null default now(),
     primary key (credential, win)
   );
   create sequence tusk.outbox_blocks;`,
  `create table tusk.journal_chunks (
     id bigserial primary key,
     accounts text[] not null,
     n integer not null,
     lines json not null
   );
   insert into tusk.journal_chunks (accounts, n, lines)
     select case when account_id is null then '{}' else array[account_id] end, 1, json_build_array(line)
       from tusk.journal order by id;
   drop table tusk.journal;`,
];

/** What migrate() found and left: the schema's version before (0: none) and now. */
export interface Migration {
  found: number;
  now: number;
}

/** Makes or migrates the schema (up to version `upTo`: a test's older schema); refuses a database a newer Tusk migrated. */
export async function migrate(pool: pg.Pool, upTo = TEAM_SCHEMA_VERSION): Promise<Migration> {
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock($1, $2)', [LOCKS.namespace, LOCKS.migrate]);
    const exists = await client.query(`select to_regclass('tusk.meta') is not null as ok`);
    let found = 0;
    if (exists.rows[0].ok) {
      const { rows } = await client.query(`select v from tusk.meta where k = 'schema_version'`);
      found = rows.length ? Number(rows[0].v) : 0;
    }
    if (found > TEAM_SCHEMA_VERSION)
      throw new Error(
        `the state database holds Tusk's schema version ${found}, newer than this Tusk's ${TEAM_SCHEMA_VERSION}: start the newer Tusk, or give another database`,
      );
    for (let v = found; v < upTo; v++) {
      await client.query('begin');
      await client.query(MIGRATIONS[v]!);
      await client.query(
        `insert into tusk.meta (k, v) values ('schema_version', $1) on conflict (k) do update set v = excluded.v`,
        [JSON.stringify(v + 1)],
      );
      await client.query('commit');
    }
    return { found, now: Math.max(found, upTo) };
  } catch (err) {
    await client.query('rollback').catch(() => undefined);
    throw err;
  } finally {
    await client.query('select pg_advisory_unlock($1, $2)', [LOCKS.namespace, LOCKS.migrate]).catch(() => undefined);
    client.release();
  }
}
