#!/usr/bin/env node
// `npm run crash`: `tusk serve --state FILE` killed with SIGKILL at random moments during a write
// load, round after round on the same file. After each kill the file must be JSON that the next
// start loads, and it must hold every write acknowledged before the last completed save started
// (saves are debounced and run one after the other, so that is every write acknowledged before
// the save completed before it); and it holds nothing that was never sent.
//
// Completed saves are seen from outside: the file is replaced by an atomic rename, so a change of
// its inode is a completed save. A poll every 2 ms records when each was seen.
//
//   node scripts/crash.js [--rounds 10] [--clients 8] [--seed N] [--out reports/crash.json]
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, ROOT, random, startServer } from './load-driver.js';

const { values: flags } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    clients: { type: 'string', default: '8' },
    seed: { type: 'string', default: String(Date.now() % 2 ** 31) },
    out: { type: 'string', default: join(ROOT, 'reports', 'crash.json') },
  },
});
const ROUNDS = Number(flags.rounds);
const CLIENTS = Number(flags.clients);
const SEED = Number(flags.seed);
const rnd = random(SEED);
/** Margin for the observation of a save (poll interval and event-loop lag). */
const MARGIN_MS = 50;

const dir = mkdtempSync(join(tmpdir(), 'tusk-crash-'));
const file = join(dir, 'state.json');
const adminKey = 'crash-admin-key';
const rounds = [];
/** Every write ever acknowledged: value -> { round, ackAt }. */
const acknowledged = new Map();
/** Every value ever sent (acknowledged or not). */
const sent = new Set();
/**
 * The writes that must survive: acknowledged before a completed save of their round (a write
 * acknowledged after the last save before a kill may be lost; one that a later file holds is kept).
 */
const durable = new Set();
let failures = 0;

const inode = () => {
  try {
    return statSync(file).ino;
  } catch {
    return undefined;
  }
};

for (let round = 1; round <= ROUNDS; round++) {
  const started = performance.now();
  const server = await startServer(['--state', file, '--rate-limit', '100000000/1', '--provision-delay', '0'], {
    adminKey,
  });
  const startMs = Math.round(performance.now() - started);
  const http = new Client({ maxSockets: CLIENTS + 2 });
  const problems = [];

  // What the previous kill left must all be here, through the API of the restarted server.
  if (round > 1) {
    const instances = (await http.send(server.customerUrl, 'GET', '/api/instances', adminKey)).json ?? [];
    const names = new Set(instances.map((i) => i.name));
    for (const name of [...durable].filter((v) => v.startsWith('crash-instance-')))
      if (!names.has(name)) problems.push(`after restart, instance ${name} is missing`);
  }
  let n = 0;
  /** An instance for a client's recipients (a new one when the last is full). */
  const newInstance = async (c) => {
    const res = await http.send(server.customerUrl, 'POST', '/api/instances', adminKey, {
      name: `crash-base-${round}-${c}-${++n}`,
      plan: 'hippo',
      region: 'amazon-web-services::us-east-1',
    });
    return res.json?.apikey;
  };

  // Watch for completed saves.
  const saves = [];
  let lastInode = inode();
  const watcher = setInterval(() => {
    const now = inode();
    if (now !== undefined && now !== lastInode) {
      lastInode = now;
      saves.push(performance.now());
    }
  }, 2);

  // The write load, until the kill.
  const killAfter = 300 + Math.floor(rnd() * 1700);
  let killed = false;
  const load = Array.from({ length: CLIENTS }, async (_, c) => {
    let key = await newInstance(c);
    while (!killed && key) {
      const i = ++n;
      if (i % 10 === 0) {
        const name = `crash-instance-${round}-${c}-${i}`;
        sent.add(name);
        const res = await http.send(server.customerUrl, 'POST', '/api/instances', adminKey, {
          name,
          plan: 'hippo',
          region: 'amazon-web-services::us-east-1',
        });
        if (res.status === 200) acknowledged.set(name, { round, ackAt: performance.now() });
      } else {
        const value = `crash-${round}-${c}-${i}@example.com`;
        sent.add(value);
        const res = await http.send(server.instanceUrl, 'POST', '/api/alarms/recipients', key, {
          type: 'email',
          value,
        });
        if (res.status === 200) acknowledged.set(value, { round, ackAt: performance.now() });
        else if (res.status === 400 && /^recipients: /.test(res.json?.error ?? '')) key = await newInstance(c); // the per-instance cap
      }
    }
  });
  await sleep(killAfter);
  server.child.kill('SIGKILL');
  const killedAt = performance.now();
  killed = true;
  await Promise.all(load);
  await new Promise((r) =>
    server.child.exitCode !== null || server.child.signalCode !== null ? r() : server.child.once('exit', r),
  );
  await sleep(20);
  clearInterval(watcher);
  http.close();

  // The file after the kill.
  let text = '';
  let parsed = false;
  try {
    text = readFileSync(file, 'utf8');
    JSON.parse(text);
    parsed = true;
  } catch (err) {
    problems.push(`the state file is not JSON after the kill: ${err.message}`);
  }
  const completed = saves.filter((t) => t <= killedAt);
  // Writes acknowledged before the save that completed before the last one: the last one's content started after it.
  const bound = completed.length >= 2 ? completed.at(-2) - MARGIN_MS : undefined;
  const mustHold = [
    ...durable,
    ...(bound === undefined
      ? []
      : [...acknowledged].filter(([v, a]) => a.round === round && a.ackAt < bound && !durable.has(v)).map(([v]) => v)),
  ];
  if (parsed) {
    const inFile = new Set(
      [...text.matchAll(/"(crash-(?:instance-)?\d+-\d+-\d+(?:@example\.com)?)"/g)].map((m) => m[1]),
    );
    for (const v of mustHold)
      if (!inFile.has(v)) problems.push(`acknowledged before the last completed save, missing from the file: ${v}`);
    for (const v of inFile) {
      if (!sent.has(v)) problems.push(`the file holds ${v}, which was never sent`);
      // What the file holds is what the next start loads: durable from now on.
      else if (acknowledged.has(v)) durable.add(v);
    }
  }
  // A kill during a save leaves its temp file; the next start removes it, so there is at most one.
  const leftovers = readdirSync(dir).filter((f) => f.endsWith('.tmp'));
  if (leftovers.length > 1)
    problems.push(`${leftovers.length} temp files beside the state file: ${leftovers.join(', ')}`);
  const r = {
    round,
    startMs,
    killedAfterMs: killAfter,
    acknowledgedThisRound: [...acknowledged.values()].filter((a) => a.round === round).length,
    savesSeen: completed.length,
    mustHold: mustHold.length,
    fileBytes: text.length,
    tempFilesLeft: leftovers.length,
    problems: problems.slice(0, 10),
  };
  rounds.push({ ...r, mustHold });
  failures += problems.length;
  console.log(
    `crash: round ${round}: killed after ${killAfter} ms, ${r.acknowledgedThisRound} writes acknowledged, ${r.savesSeen} saves seen, ${r.mustHold} writes checked in the file, ${problems.length} problems`,
  );
}

// The last file loads too.
const last = await startServer(['--state', file, '--rate-limit', '100000000/1'], { adminKey }).then(
  (s) => {
    s.child.kill('SIGKILL');
    return true;
  },
  (err) => {
    failures++;
    console.error(`crash: the last state file does not load: ${err.message}`);
    return false;
  },
);
rmSync(dir, { recursive: true, force: true });

const report = {
  date: new Date().toISOString(),
  seed: SEED,
  rounds: ROUNDS,
  clients: CLIENTS,
  writesAcknowledged: acknowledged.size,
  writesChecked: rounds.reduce((n, r) => n + r.mustHold.length, 0),
  lostWrites: rounds.reduce((n, r) => n + r.problems.filter((p) => /missing/.test(p)).length, 0),
  lastFileLoads: last,
  failures,
  perRound: rounds.map(({ mustHold, ...r }) => ({ ...r, mustHold: mustHold.length })),
};
const out = resolve(flags.out);
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify(report, null, 2) + '\n');
console.log(
  `crash: ${ROUNDS} SIGKILLs, ${report.writesAcknowledged} writes acknowledged, ${report.writesChecked} checked after a kill, lost writes ${report.lostWrites}, every file loaded: ${failures === 0}; ${out}`,
);
if (failures)
  console.error(
    JSON.stringify(
      report.perRound.filter((r) => r.problems.length),
      null,
      2,
    ),
  );
process.exit(failures ? 1 : 0);
