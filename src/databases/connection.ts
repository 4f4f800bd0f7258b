// The engine's connections as the admin of its server: a small pool for statements, a client of its
// own for another database, and pg's quoting. `pg` is loaded here, on the first start: a server with
// `--databases off` never loads it.
import type pg from 'pg';

export class AdminConnection {
  private constructor(
    private readonly client: typeof pg,
    private readonly pool: pg.Pool,
    /** The server's version (`17.10`). */
    readonly version: string,
  ) {}

  /** Connects (a pool of 4) and reads the server's version. */
  static async open(connection: pg.PoolConfig): Promise<AdminConnection> {
    const client = (await import('pg')).default;
    const pool = new client.Pool({ ...connection, max: 4, connectionTimeoutMillis: 5_000 });
    // A connection of the pool that breaks is removed by the pool; the probe tells whether the server is gone.
    pool.on('error', () => undefined);
    let version: { v: string; who: string; may: boolean };
    try {
      const { rows } = await pool.query<{ v: string; who: string; may: boolean }>(
        "select current_setting('server_version') as v, current_user as who, rolsuper or (rolcreaterole and rolcreatedb) as may from pg_roles where rolname = current_user",
      );
      version = rows[0]!;
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw err;
    }
    // Every instance has a role and a database of its own: the login must be allowed to make both.
    if (!version.may) {
      await pool.end().catch(() => undefined);
      throw new Error(
        `the role ${version.who} may not create roles and databases, which every instance needs: as a superuser, run ALTER ROLE ${client.escapeIdentifier(version.who)} CREATEROLE CREATEDB (or give --databases off, or another login)`,
      );
    }
    return new AdminConnection(client, pool, version.v);
  }

  query(text: string): Promise<pg.QueryResult> {
    return this.pool.query(text);
  }

  /** A client of the admin on another database of the server (closed by the caller). */
  async connect(database: string): Promise<pg.Client> {
    const base = this.pool.options as pg.PoolConfig;
    let config: pg.ClientConfig;
    if (base.connectionString) {
      const url = new URL(base.connectionString);
      url.pathname = `/${database}`;
      config = { connectionString: url.toString() };
    } else config = { host: base.host, port: base.port, user: base.user, password: base.password as string, database };
    const client = new this.client.Client(config);
    client.on('error', () => undefined);
    await client.connect();
    return client;
  }

  /** An identifier quoted for SQL (pg's own quoting). */
  ident(name: string): string {
    return this.client.escapeIdentifier(name);
  }

  /** A string literal for SQL (pg's own quoting). */
  literal(text: string): string {
    return this.client.escapeLiteral(text);
  }

  end(): Promise<void> {
    return this.pool.end().catch(() => undefined);
  }
}
