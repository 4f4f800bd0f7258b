// The servers the bench measures, each started on free loopback ports until its first 200: Tusk
// (`tusk serve --quiet`, no databases, no rate limit to speak of; with `state`, a replica of the
// team on that Postgres: `--state postgres://...`), `prism mock` on one built
// document, and the references of bench/servers/ (a bare Hono route, a raw node:http handler);
// STARTERS by name. Also the keys the runs use and the Basic header they go in.
import { join } from 'node:path';
import { flags } from './options.js';
import { BENCH, INSTANCE_DOC, PRISM_JS, TUSK_BIN } from './paths.js';
import { firstOk, startNode } from './processes.js';
// Built by npm run build (npm run bench builds first).
import { freePort } from '../../dist/src/core/net.js';

/** The seeded instance's fixed key (fixtures/instances.ts) and the admin key used for the runs. */
export const SEEDED_INSTANCE_KEY = 'tusk-instance-1-key';
export const ADMIN_KEY = 'bench-admin-key';

export const basic = (key) => 'Basic ' + Buffer.from(`:${key}`).toString('base64');

/** Waits for a started process's first 200; stops it when none comes (or it exited), then throws. */
async function ready(proc, first) {
  try {
    return await first;
  } catch (err) {
    await proc.stop();
    throw err;
  }
}

/** Tusk; `state`: a replica of the team on that Postgres; `bin`: another tree's built bin/tusk.js (the team part's --team-before). */
export async function startTusk({ profile, state, name = 'tusk', bin = TUSK_BIN } = {}) {
  const [customerPort, instancePort] = [await freePort(), await freePort()];
  const nodeFlags = profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : [];
  const since = performance.now();
  const proc = startNode(
    [
      bin,
      'serve',
      '--quiet',
      '--databases',
      'off',
      '--customer-port',
      String(customerPort),
      '--instance-port',
      String(instancePort),
      '--rate-limit',
      '100000000/1',
      '--provision-delay',
      '0',
      '--api-key',
      ADMIN_KEY,
      ...(state ? ['--state', state] : []),
    ],
    nodeFlags,
  );
  const customer = `http://127.0.0.1:${customerPort}`;
  const instance = `http://127.0.0.1:${instancePort}`;
  const startMs = await ready(
    proc,
    firstOk(`${instance}/api/alarms`, { authorization: basic(SEEDED_INSTANCE_KEY) }, proc, since),
  );
  return { name, proc, customer, instance, startMs };
}

export async function startPrism({ doc = INSTANCE_DOC } = {}) {
  const port = await freePort();
  const since = performance.now();
  // `prism mock` as users run it (its request log at the default level, info). --prism-quiet
  // silences the log (-v error): about 1.5x Prism's default throughput.
  const proc = startNode(
    [PRISM_JS, 'mock', doc, '-p', String(port), '-h', '127.0.0.1', ...(flags['prism-quiet'] ? ['-v', 'error'] : [])],
    [],
    {
      ignoreStdout: true,
    },
  );
  const instance = `http://127.0.0.1:${port}`;
  const startMs = await ready(
    proc,
    firstOk(
      `${instance}${doc === INSTANCE_DOC ? '/api/alarms' : '/api/plans'}`,
      { authorization: basic('any-key-works') },
      proc,
      since,
      90_000,
    ),
  );
  return { name: 'prism', proc, instance, startMs };
}

async function startReference(name) {
  const port = await freePort();
  const since = performance.now();
  const proc = startNode([join(BENCH, 'servers', `${name}.js`), String(port)]);
  const instance = `http://127.0.0.1:${port}`;
  const startMs = await ready(proc, firstOk(`${instance}/api/alarms`, {}, proc, since));
  return { name, proc, instance, startMs };
}

export const STARTERS = {
  tusk: startTusk,
  prism: startPrism,
  'bare-hono': () => startReference('bare-hono'),
  'raw-http': () => startReference('raw-http'),
};
