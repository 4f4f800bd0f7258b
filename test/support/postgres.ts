// A real Postgres server for the tests of a team's Tusk: the embedded server Tusk ships
// (src/databases/embedded.ts, so that it runs as root too, as in CI), on a free port, with a
// database of its own for each test that asks (`database()`), stopped (and its data removed) by stop().
import pg from 'pg';
import { EmbeddedServer } from '../../src/databases/embedded.js';
import { freePort } from '../../src/core/net.js';

export interface TestPostgres {
  /** postgres://postgres:PW@127.0.0.1:PORT/NAME: a database made for the caller. */
  database(name: string): Promise<string>;
  /** The superuser's URL of database `name` (default postgres). */
  url(name?: string): string;
  stop(): Promise<void>;
}

export async function startPostgres(): Promise<TestPostgres> {
  const server = new EmbeddedServer(await freePort());
  await server.boot();
  const url = (name = 'postgres') => `postgres://postgres:${server.password}@127.0.0.1:${server.port}/${name}`;
  return {
    url,
    async database(name) {
      const client = new pg.Client({ connectionString: url() });
      await client.connect();
      try {
        await client.query(`drop database if exists "${name}" with (force)`);
        await client.query(`create database "${name}"`);
      } finally {
        await client.end();
      }
      return url(name);
    },
    async stop() {
      await server.stop();
      server.dispose();
    },
  };
}
