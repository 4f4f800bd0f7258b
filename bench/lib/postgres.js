// One Postgres server for the team part of the bench: the embedded server Tusk ships
// (src/databases/embedded.ts, started as test/support/postgres.ts starts it, so that it runs as the
// `postgres` user when the bench runs as root), on a free port, with a database made for the run;
// the CPU time of its processes (the postmaster and its backends), and stop(), which removes its data.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { cpuMs } from './processes.js';
// Built by npm run build (npm run bench builds first).
import { EmbeddedServer } from '../../dist/src/databases/embedded.js';
import { freePort } from '../../dist/src/core/net.js';

/** The parent pid of a process (undefined when it is gone). */
function parentOf(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** Starts the server; resolves { url(name), database(name), cpuMs(), stop() }. */
export async function startPostgres() {
  const server = new EmbeddedServer(await freePort());
  try {
    await server.boot();
  } catch (err) {
    await server.stop().catch(() => undefined);
    server.dispose();
    throw err;
  }
  const url = (name = 'postgres') => `postgres://postgres:${server.password}@127.0.0.1:${server.port}/${name}`;
  const postmaster = () => Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
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
    /** User + system CPU time of the postmaster and the backends now running, in ms (Linux /proc). */
    cpuMs() {
      const root = postmaster();
      let total = cpuMs(root) ?? 0;
      for (const name of readdirSync('/proc'))
        if (/^\d+$/.test(name) && parentOf(Number(name)) === root) total += cpuMs(Number(name)) ?? 0;
      return total;
    },
    async stop() {
      try {
        await server.stop();
      } finally {
        server.dispose();
      }
    },
  };
}
