// One Postgres server for the team part of the bench: the embedded server Tusk ships
// (src/databases/embedded.ts, started as test/support/postgres.ts starts it, so that it runs as the
// `postgres` user when the bench runs as root), on a free port, with a database made for the run;
// the CPU time of its processes (the postmaster and its backends), and stop(), which removes its data.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
// Built by npm run build (npm run bench builds first).
import { EmbeddedServer } from '../../dist/src/databases/embedded.js';
import { freePort } from '../../dist/src/core/net.js';

/** Fields of /proc/PID/stat after the command (undefined when the process is gone). */
function statOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

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
    /**
     * User + system CPU time of the server so far, in ms (Linux /proc): the postmaster's, its
     * backends' that have ended (its children's times) and those running now (a connection a pool
     * closes during a measurement keeps its share).
     */
    cpuMs() {
      const root = postmaster();
      const own = statOf(root);
      if (!own) return 0;
      let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
      for (const name of readdirSync('/proc')) {
        if (!/^\d+$/.test(name)) continue;
        const f = statOf(Number(name));
        if (f && Number(f[1]) === root) ticks += Number(f[11]) + Number(f[12]);
      }
      return (ticks * 1000) / CLOCK_TICKS;
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
