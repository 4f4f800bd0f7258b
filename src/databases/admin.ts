// The SQL that administers the instances' databases on the engine's server: roles with their
// passwords and connection limits, databases made private to their role, copies (snapshots, forks,
// restores), sizes and clean-up. Every identifier and literal is quoted by `pg` itself.
//
// Privacy: Postgres lets PUBLIC (every role) connect to a new database and make temporary tables in
// it. Every database made here has both revoked from PUBLIC and granted to its owner role only,
// snapshots have no role at all, and on the embedded server the maintenance databases (`postgres`,
// `template1`) are closed to PUBLIC too: an instance's credentials open its own database and no other.
import type { PostgresEngine } from './engine.js';

export class DatabaseAdmin {
  constructor(private readonly engine: PostgresEngine) {}

  private sql(text: string) {
    return this.engine.sql(text);
  }

  private id(name: string): string {
    return this.engine.ident(name);
  }

  private lit(text: string): string {
    return this.engine.literal(text);
  }

  /**
   * Closes what Tusk owns and PUBLIC may enter: on the embedded server, its maintenance databases.
   * On an external server those are its admin's; returns the databases an instance role could still
   * connect to there (to say so), found with `role`'s privileges.
   */
  async guardServer(role?: string): Promise<string[]> {
    if (this.engine.spec.kind === 'embedded') {
      await this.sql('revoke connect, temporary on database postgres, template1 from public');
      return [];
    }
    if (!role) return [];
    const { rows } = await this.sql(
      `select datname from pg_database where datallowconn and has_database_privilege(${this.lit(role)}, oid, 'CONNECT') and datname not like ${this.like(this.engine.prefix)} order by datname`,
    );
    return (rows as { datname: string }[]).map((r) => r.datname);
  }

  private like(start: string): string {
    return this.lit(`${start.replace(/[\\_%]/g, '\\$&')}%`);
  }

  /** PUBLIC may neither connect to `database` nor make temporary tables in it; its owner role may (none for a snapshot). */
  async makePrivate(database: string, owner?: string): Promise<void> {
    await this.sql(`revoke all on database ${this.id(database)} from public`);
    if (owner) await this.sql(`grant connect, temporary on database ${this.id(database)} to ${this.id(owner)}`);
  }

  /**
   * A login role with a password and a connection limit (-1: none), and a private database it owns:
   * empty, or a copy of `template`. A database that exists already is kept (returns true): its role
   * gets the password and the limit, and it is made private (a directory kept from an earlier version).
   */
  async createDatabase(
    role: string,
    password: string,
    database: string,
    options: { template?: string; connectionLimit?: number } = {},
  ): Promise<boolean> {
    const { template } = options;
    const limit = options.connectionLimit ?? -1;
    const exists = await this.sql(`select 1 from pg_roles where rolname = ${this.lit(role)}`);
    const attributes = `login password ${this.lit(password)} connection limit ${limit}`;
    if (exists.rowCount) await this.sql(`alter role ${this.id(role)} with ${attributes}`);
    else await this.sql(`create role ${this.id(role)} with ${attributes}`);
    const db = await this.sql(`select 1 from pg_database where datname = ${this.lit(database)}`);
    if (db.rowCount) {
      await this.makePrivate(database, role);
      return true;
    }
    await this.createOwned(database, role, template);
    return false;
  }

  /** A private database owned by `role`: empty, or a copy of `template` whose objects `role` then owns. */
  private async createOwned(database: string, role: string, template?: string): Promise<void> {
    if (template) await this.terminate(template);
    await this.sql(
      `create database ${this.id(database)} owner ${this.id(role)}${template ? ` template ${this.id(template)}` : ''}`,
    );
    await this.makePrivate(database, role);
    // A copy keeps the objects' owners of its template: the instance's role owns its database's schema.
    if (template) await this.reassign(database, role);
  }

  /** The names of the databases that start with `start`. */
  async databasesLike(start: string): Promise<Set<string>> {
    const { rows } = await this.sql(`select datname from pg_database where datname like ${this.like(start)}`);
    return new Set((rows as { datname: string }[]).map((r) => r.datname));
  }

  private async reassign(database: string, role: string): Promise<void> {
    const client = await this.engine.connect(database);
    const r = this.lit(role);
    try {
      // A fork copies another role's objects: the new instance's role gets its schemas, tables,
      // views and sequences (sequences of a table's columns move with the table).
      await client.query(`alter schema public owner to ${this.id(role)}`);
      await client.query(`do $$ declare r record; begin
        for r in select n.nspname as name from pg_namespace n where n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema' and pg_get_userbyid(n.nspowner) <> ${r} and n.nspowner <> 10 loop
          execute format('alter schema %I owner to %I', r.name, ${r});
        end loop;
        for r in select c.oid::regclass as name, c.relkind from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname not like 'pg\\_%' and n.nspname <> 'information_schema' and c.relkind in ('r', 'p', 'v', 'm', 'f', 'S')
              and pg_get_userbyid(c.relowner) <> ${r}
              and not (c.relkind = 'S' and exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype in ('a', 'i'))) loop
          execute format('alter %s %s owner to %I', case r.relkind when 'v' then 'view' when 'm' then 'materialized view' when 'f' then 'foreign table' when 'S' then 'sequence' else 'table' end, r.name, ${r});
        end loop;
      end $$`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Replaces a database by an empty one, or by a copy of `template`, owned by `owner` (its sessions are ended). */
  async recreate(database: string, owner: string, template?: string): Promise<void> {
    await this.dropDatabase(database);
    await this.createOwned(database, owner, template);
  }

  async setPassword(role: string, password: string): Promise<void> {
    await this.sql(`alter role ${this.id(role)} with password ${this.lit(password)}`);
  }

  /** The most sessions `role` may have at once (-1: no limit of its own); sessions already open stay. */
  async setConnectionLimit(role: string, limit: number): Promise<void> {
    await this.sql(`alter role ${this.id(role)} with connection limit ${Math.trunc(limit)}`);
  }

  /** A snapshot of `database` named `copy`, owned by the admin and open to no instance role (its sessions are ended first: a template takes none). */
  async snapshot(database: string, copy: string): Promise<void> {
    await this.terminate(database);
    await this.sql(`drop database if exists ${this.id(copy)}`);
    await this.sql(`create database ${this.id(copy)} template ${this.id(database)}`);
    await this.makePrivate(copy);
  }

  /** Ends every session of a database (not our own admin sessions on other databases). */
  async terminate(database: string): Promise<void> {
    await this.sql(
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = ${this.lit(database)} and pid <> pg_backend_pid()`,
    );
  }

  /** Drops a database, ending its sessions. */
  async dropDatabase(database: string): Promise<void> {
    await this.sql(`drop database if exists ${this.id(database)} with (force)`);
  }

  async dropRole(role: string): Promise<void> {
    await this.sql(`drop role if exists ${this.id(role)}`);
  }

  /** The size of a database in bytes (pg_database_size). */
  async size(database: string): Promise<number> {
    const { rows } = await this.sql(`select pg_database_size(${this.lit(database)})::bigint as size`);
    return Number((rows[0] as { size: string }).size);
  }

  /** The size in bytes of every database of this process, by name. */
  async sizes(): Promise<Map<string, number>> {
    const { rows } = await this.sql(
      `select datname, pg_database_size(oid)::bigint as size from pg_database where datname like ${this.like(this.engine.prefix)}`,
    );
    return new Map((rows as { datname: string; size: string }[]).map((r) => [r.datname, Number(r.size)]));
  }

  /** Drops every database and role of this process but those kept. */
  async dropEverything(
    keep: { keepDatabase?: (name: string) => boolean; keepRoles?: Set<string> } = {},
  ): Promise<void> {
    const like = this.like(this.engine.prefix);
    const dbs = await this.sql(`select datname from pg_database where datname like ${like}`);
    for (const row of dbs.rows as { datname: string }[])
      if (!keep.keepDatabase?.(row.datname)) await this.dropDatabase(row.datname);
    const roles = await this.sql(`select rolname from pg_roles where rolname like ${like}`);
    for (const row of roles.rows as { rolname: string }[])
      if (!keep.keepRoles?.has(row.rolname)) await this.dropRole(row.rolname);
  }
}
