#!/usr/bin/env node
// `npm run chaos`: Tusk tried as a hostile tenant and as a failing machine would, against a real
// `tusk serve` (built, with its embedded Postgres). One line per scenario: PASS or FAIL, and what
// happened. The scenarios live beside this file: scripts/chaos/databases.js (private databases,
// plan limits, honest callbacks, a killed engine) and scripts/chaos/control-inputs.js (control
// inputs that must not break the server or reach another account); the last two here start and
// stop servers at size. Every server started is stopped on every path. Exit code 1 when one fails.
//
//   node scripts/chaos.js [--instances 100] [--only TEXT]
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT, startServer } from './load-driver.js';

const { values: flags } = parseArgs({
  options: { instances: { type: 'string', default: '100' }, only: { type: 'string' } },
});
const AT_SIZE = Number(flags.instances);
const SERVE = ['--databases', 'embedded', '--provision-delay', '0', '--rate-limit', '1000000/1'];
const servers = new Set();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function start(args = []) {
  const server = await startServer([...SERVE, ...args], { adminKey: 'chaos-admin-key', timeoutMs: 120_000 });
  servers.add(server);
  server.child.once('exit', () => servers.delete(server));
  return server;
}

/** Stops a server with `signal`; resolves with the ms until it exited. */
async function stop(server, signal = 'SIGTERM') {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return 0;
  const exited = new Promise((r) => server.child.once('exit', r));
  const t0 = performance.now();
  server.child.kill(signal);
  await exited;
  return performance.now() - t0;
}

const stopAll = async () => {
  for (const s of [...servers]) await stop(s, 'SIGKILL');
};
process.on('SIGINT', () => void stopAll().then(() => process.exit(130)));
process.on('SIGTERM', () => void stopAll().then(() => process.exit(143)));

async function firstAnswer(server) {
  const t0 = performance.now();
  for (;;) {
    try {
      if (
        (
          await fetch(`${server.customerUrl}/api/plans`, {
            headers: { authorization: `Basic ${Buffer.from(':chaos-admin-key').toString('base64')}` },
          })
        ).status === 200
      )
        return performance.now() - t0;
    } catch {
      /* not yet */
    }
    await sleep(5);
  }
}

async function fill(server, n) {
  const auth = {
    authorization: `Basic ${Buffer.from(':chaos-admin-key').toString('base64')}`,
    'content-type': 'application/json',
  };
  const ids = [];
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${server.customerUrl}/api/instances`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ name: `size-${i}`, plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
    });
    ids.push((await res.json()).id);
  }
  for (const id of ids) {
    for (;;) {
      const res = await fetch(`${server.customerUrl}/api/instances/${id}`, { headers: auth });
      if ((await res.json()).ready) break;
      await sleep(20);
    }
  }
}

const atSize = [
  {
    name: `a stop of a server with ${AT_SIZE} ready instances`,
    async run() {
      const server = await start();
      await fill(server, AT_SIZE);
      const ms = await stop(server);
      if (ms > 10_000) throw new Error(`it took ${Math.round(ms)} ms`);
      return `stopped in ${Math.round(ms)} ms`;
    },
  },
  {
    name: `a start right after a SIGKILL of a server with ${AT_SIZE} ready instances`,
    async run() {
      const killed = await start();
      await fill(killed, AT_SIZE);
      await stop(killed, 'SIGKILL');
      const t0 = performance.now();
      const next = await start();
      const ms = performance.now() - t0;
      const first = await firstAnswer(next);
      await stop(next);
      if (ms + first > 5_000) throw new Error(`the first answer came after ${Math.round(ms + first)} ms`);
      return `ready and answering ${Math.round(ms + first)} ms after the spawn; the killed run's data is removed in the background`;
    },
  },
];

const modules = [
  join(ROOT, 'scripts', 'chaos', 'databases.js'),
  join(ROOT, 'scripts', 'chaos', 'control-inputs.js'),
].filter((f) => existsSync(f));
let failed = 0;
let ran = 0;
const report = (ok, name, detail) => {
  ran++;
  if (!ok) failed++;
  console.log(`${ok ? 'PASS' : 'FAIL'} ${name}: ${detail}`);
};
const selected = (s) => !flags.only || s.name.includes(flags.only);

try {
  const shared = await start();
  try {
    for (const file of modules) {
      const { scenarios } = await import(file);
      for (const s of scenarios.filter(selected)) {
        try {
          report(true, s.name, await s.run(shared));
        } catch (err) {
          report(false, s.name, err.message);
        }
      }
    }
  } finally {
    await stop(shared);
  }
  for (const s of atSize.filter(selected)) {
    try {
      report(true, s.name, await s.run());
    } catch (err) {
      report(false, s.name, err.message);
    }
  }
} finally {
  await stopAll();
}
console.log(`chaos: ${ran - failed} of ${ran} scenarios held`);
process.exit(failed ? 1 : 0);
