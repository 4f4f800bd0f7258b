// The hostile control inputs of issue 31 (point 2), against a real `tusk serve` over HTTP: state
// loads of the whole server and of one account with a clock out of range, an outbox body nested
// 20,000 deep, or another account's providerid or key, or the providerid of a database another
// account's load left behind; clock moves beyond the clock's range. Each
// is { name, run(server) }, as scripts/chaos.js runs them, and throws (with what happened) when
// Tusk does not hold: every such input must be a 400 naming the field and the rule, change nothing
// (the clock, the accounts, their keys and instances), and leave the server answering every
// account within seconds, its memory bounded. A refused server-wide load replaces nothing; still,
// point it at a server you may lose.
//
// On its own:
//   node scripts/chaos/control-inputs.js --url http://127.0.0.1:4010 [--instance-url URL]
//       [--api-key KEY] [--control-key KEY] [--only TEXT]
//   node scripts/chaos/control-inputs.js [--databases embedded|off] [--only TEXT]
// Without --url it starts `tusk serve` (built: `npm run build`) on free ports and stops it on
// every path. One line per scenario, PASS or FAIL; exit code 1 when one fails.
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { sql } from './databases.js';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const basic = (key) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;
/** How long the server may take to answer after a hostile input (a hang is a failure, not a wait). */
const ANSWER_MS = 5_000;
/** What the server's memory may grow by across one scenario (the endless catch-up grew by gigabytes). */
const GROWTH_MB = 256;

/** A request; `text` sends a body that JSON.stringify cannot write (deep nesting). Times out after ANSWER_MS (30 s for a state). */
async function call(base, path, { key, method = 'GET', body, text, timeoutMs = ANSWER_MS } = {}) {
  const payload = text ?? (body === undefined ? undefined : JSON.stringify(body));
  const headers = {
    ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
    ...(key ? { authorization: basic(key) } : {}),
  };
  let res;
  try {
    res = await fetch(`${base}${path}`, {
      method,
      headers,
      signal: AbortSignal.timeout(timeoutMs),
      ...(payload !== undefined ? { body: payload } : {}),
    });
  } catch (err) {
    throw new Error(
      `${method} ${path}: no answer within ${timeoutMs} ms (${err.name === 'TimeoutError' ? 'timeout' : err.message})`,
    );
  }
  const raw = await res.text();
  let parsed = raw;
  try {
    parsed = raw ? JSON.parse(raw) : undefined;
  } catch {
    /* kept as text */
  }
  return { status: res.status, body: parsed };
}

/** The server's controls as the whole server (the control key, when it has one). */
const control = (server, path, init = {}) =>
  call(server.customerUrl, `/__tusk${path}`, { key: server.controlKey, ...init, timeoutMs: 30_000 });
/** An account's own controls (its admin key). */
const own = (server, job, path, init = {}) =>
  call(server.customerUrl, `/__tusk${path}`, { ...init, key: job.admin_key, timeoutMs: 30_000 });

/** What a refused input must leave as it was: the clock, and every account's keys, clock and instances' identities. */
async function fingerprint(server) {
  const res = await control(server, '/state');
  if (res.status !== 200) throw new Error(`GET /__tusk/state answered ${res.status}`);
  const s = res.body;
  return JSON.stringify({
    seed: s.seed,
    clock: s.clock,
    accounts: s.accounts.map((a) => ({
      id: a.id,
      clock: a.clock ?? null,
      keys: a.keys,
      instances: a.instances.map((x) => [x.id, x.name, x.providerid, x.apikey, x.password]),
    })),
  });
}

async function rssMb(server) {
  const res = await call(server.customerUrl, '/__tusk/runtime', { key: server.controlKey });
  return res.status === 200 ? res.body.rss_mb : undefined;
}

/** A fresh account with one instance (ready, when the server has real databases). */
async function job(server, name) {
  const made = await control(server, '/accounts', { method: 'POST', body: { name } });
  if (made.status !== 201)
    throw new Error(`POST /__tusk/accounts answered ${made.status}: ${JSON.stringify(made.body)}`);
  const account = made.body;
  const created = await call(server.customerUrl, '/api/instances', {
    key: account.admin_key,
    method: 'POST',
    body: { name: `${name}-db`, plan: 'hippo', region: 'amazon-web-services::us-east-1' },
  });
  if (created.status !== 200)
    throw new Error(`create instance answered ${created.status}: ${JSON.stringify(created.body)}`);
  const end = Date.now() + 60_000;
  for (;;) {
    const got = await call(server.customerUrl, `/api/instances/${created.body.id}`, { key: account.admin_key });
    if (got.body.ready) return { ...account, instance: got.body };
    if (Date.now() > end) throw new Error(`instance ${created.body.id} of ${name} not ready within 60 s`);
    await sleep(100);
  }
}

/** Every account of `jobs` and the seeded one still answer, at once; the server's memory has not run away. */
async function stillServes(server, jobs, rssBefore) {
  const clock = await control(server, '/clock');
  if (clock.status !== 200 || !/^\d{4}-/.test(clock.body.now))
    throw new Error(`GET /__tusk/clock then answered ${clock.status} ${JSON.stringify(clock.body)}`);
  for (const j of jobs) {
    for (const [base, path, key] of [
      [server.customerUrl, `/api/instances/${j.instance.id}`, j.admin_key],
      [server.instanceUrl, '/api/backup', j.instance.apikey],
      [server.instanceUrl, '/api/maintenance', j.instance.apikey],
    ]) {
      const res = await call(base, path, { key });
      if (res.status !== 200) throw new Error(`then GET ${path} of account ${j.name} answered ${res.status}`);
    }
  }
  await sleep(500); // a runaway loop grows by hundreds of MB in that time
  const rss = await rssMb(server);
  if (rssBefore !== undefined && rss !== undefined && rss - rssBefore > GROWTH_MB)
    throw new Error(`the server's memory grew from ${rssBefore} to ${rss} MB`);
  return `clock reads ${clock.body.now}, every account answers, rss ${rss ?? '?'} MB`;
}

/**
 * Sends one hostile input and checks the answer: a 400 naming `field` (a string, or a RegExp when
 * it holds an index) and `rule`, nothing changed, every account served. Returns the line to print.
 */
async function refusedWhole(server, jobs, send, field, rule) {
  const before = await fingerprint(server);
  const rss = await rssMb(server);
  const res = await send();
  const named =
    res.body && typeof res.body === 'object' ? `${res.status} ${res.body.field}/${res.body.rule}` : `${res.status}`;
  if (res.status !== 400) throw new Error(`answered ${res.status}: ${JSON.stringify(res.body).slice(0, 200)}`);
  const fieldOk = field instanceof RegExp ? field.test(res.body.field ?? '') : res.body.field === field;
  if (!fieldOk || res.body.rule !== rule)
    throw new Error(`a 400 naming ${res.body.field}/${res.body.rule}, not ${field}/${rule}: ${res.body.error}`);
  if ((await fingerprint(server)) !== before) throw new Error(`answered ${named}, but the state changed`);
  return `${named}; nothing changed; ${await stillServes(server, jobs, rss)}`;
}

const nested = (depth) => `${'['.repeat(depth)}0${']'.repeat(depth)}`;
const deepEntry = {
  id: 1,
  kind: 'callback',
  event: 'backup',
  target: 'http://127.0.0.1:9/chaos',
  body: '@@',
  dueAt: 0,
  attempts: 0,
  status: 'failed',
};

/** Real Postgres behind the instances (not the records-only `*.db.tusk.example` urls)? */
const realDatabase = (url) => !new URL(url).hostname.endsWith('.db.tusk.example');

/** The two accounts every scenario acts on and around, made once per server. */
const jobsOf = new WeakMap();
async function jobs(server) {
  if (!jobsOf.has(server))
    jobsOf.set(
      server,
      Promise.all([job(server, 'chaos-x'), job(server, 'chaos-y')]).then(([x, y]) => ({
        x: { ...x, name: 'chaos-x' },
        y: { ...y, name: 'chaos-y' },
      })),
    );
  return jobsOf.get(server);
}

export const scenarios = [
  {
    name: 'a server-wide state load with clock offset_ms 1e308',
    async run(server) {
      const { x, y } = await jobs(server);
      return refusedWhole(
        server,
        [x, y],
        async () => {
          const s = (await control(server, '/state')).body;
          return control(server, '/state', {
            method: 'PUT',
            body: { ...s, clock: { offset_ms: 1e308, pinned_ms: null } },
          });
        },
        'clock.offset_ms',
        'maximum',
      );
    },
  },
  {
    name: 'a server-wide state load with clock pinned_ms -1e20',
    async run(server) {
      const { x, y } = await jobs(server);
      return refusedWhole(
        server,
        [x, y],
        async () => {
          const s = (await control(server, '/state')).body;
          return control(server, '/state', {
            method: 'PUT',
            body: { ...s, clock: { offset_ms: 0, pinned_ms: -1e20 } },
          });
        },
        'clock.pinned_ms',
        'minimum',
      );
    },
  },
  {
    name: "an account's own state load (its admin key) with clock offset_ms 1e308",
    async run(server) {
      const { x, y } = await jobs(server);
      return refusedWhole(
        server,
        [x, y],
        async () => {
          const d = (await own(server, x, '/state')).body;
          d.account.clock = { offset_ms: 1e308, pinned_ms: null };
          return own(server, x, '/state', { method: 'PUT', body: d });
        },
        'account.clock.offset_ms',
        'maximum',
      );
    },
  },
  ...[
    [{ advance: 1e300 }, 'advance'],
    [{ advance: '99999999999d' }, 'advance'],
    [{ set: '0001-01-01T00:00:00Z' }, 'set'],
    [{ pin: '9999-06-01T00:00:00Z' }, 'pin'],
  ].flatMap(([move, field]) => [
    {
      name: `a clock move ${JSON.stringify(move)} of the whole server`,
      async run(server) {
        const { x, y } = await jobs(server);
        return refusedWhole(
          server,
          [x, y],
          () => control(server, '/clock', { method: 'POST', body: move }),
          field,
          'range',
        );
      },
    },
    {
      name: `a clock move ${JSON.stringify(move)} of one account (its admin key)`,
      async run(server) {
        const { x, y } = await jobs(server);
        return refusedWhole(
          server,
          [x, y],
          () => own(server, x, '/clock', { method: 'POST', body: move }),
          field,
          'range',
        );
      },
    },
  ]),
  {
    name: 'a server-wide state load with an outbox body nested 20,000 deep',
    async run(server) {
      const { x, y } = await jobs(server);
      return refusedWhole(
        server,
        [x, y],
        async () => {
          const s = (await control(server, '/state')).body;
          s.outbox.entries.push({ ...deepEntry, id: s.outbox.last_id + 1 });
          s.outbox.last_id += 1;
          return control(server, '/state', { method: 'PUT', text: JSON.stringify(s).replace('"@@"', nested(20_000)) });
        },
        /^outbox\.entries\.\d+\.body$/,
        'maxDepth',
      );
    },
  },
  {
    name: "an account's own state load with an outbox body nested 20,000 deep",
    async run(server) {
      const { x, y } = await jobs(server);
      return refusedWhole(
        server,
        [x, y],
        async () => {
          const d = (await own(server, x, '/state')).body;
          d.outbox.entries = [deepEntry];
          return own(server, x, '/state', { method: 'PUT', text: JSON.stringify(d).replace('"@@"', nested(20_000)) });
        },
        'outbox.entries.0.body',
        'maxDepth',
      );
    },
  },
  {
    name: "account X loads its state with account Y's providerid and a password of its choosing",
    async run(server) {
      const { x, y } = await jobs(server);
      const real = realDatabase(y.instance.url);
      if (real)
        await sql(
          y.instance.url,
          "create table if not exists chaos_secret (v text); delete from chaos_secret; insert into chaos_secret values ('y-data')",
        );
      const line = await refusedWhole(
        server,
        [x, y],
        async () => {
          const d = (await own(server, x, '/state')).body;
          d.account.instances[0].providerid = y.instance.providerid;
          d.account.instances[0].password = 'chosen-by-x';
          return own(server, x, '/state', { method: 'PUT', body: d });
        },
        'account.instances.0.providerid',
        'unique',
      );
      if (!real) return `${line}; records only (--databases off): no database to check`;
      await sleep(1_000); // what the engine would have been told runs in the background
      const rows = await sql(y.instance.url, 'select v from chaos_secret');
      if (rows[0]?.v !== 'y-data') throw new Error(`Y's url no longer reads Y's data: ${JSON.stringify(rows)}`);
      const chosen = new URL(y.instance.url);
      chosen.password = 'chosen-by-x';
      const taken = await sql(chosen.toString(), 'select 1').then(
        () => true,
        () => false,
      );
      if (taken) throw new Error("X's chosen password opens Y's database");
      return `${line}; Y's url still reads its data, X's chosen password opens nothing`;
    },
  },
  {
    name: "account X loads its state with account Y's API keys",
    async run(server) {
      const { x, y } = await jobs(server);
      const yKeys = (await own(server, y, '/state')).body.account.keys;
      const first = await refusedWhole(
        server,
        [x, y],
        async () => {
          const d = (await own(server, x, '/state')).body;
          d.account.keys[0].key = yKeys[0].key;
          return own(server, x, '/state', { method: 'PUT', body: d });
        },
        'account.keys.0.key',
        'unique',
      );
      await refusedWhole(
        server,
        [x, y],
        async () => {
          const d = (await own(server, x, '/state')).body;
          d.account.instances[0].apikey = y.instance.apikey;
          return own(server, x, '/state', { method: 'PUT', body: d });
        },
        'account.instances.0.apikey',
        'unique',
      );
      return `${first}; the instance key too`;
    },
  },
  {
    name: 'a server-wide state load with one providerid in two accounts',
    async run(server) {
      const { x, y } = await jobs(server);
      return refusedWhole(
        server,
        [x, y],
        async () => {
          const s = (await control(server, '/state')).body;
          const xs = s.accounts.find((a) => a.id === x.account_id);
          const ys = s.accounts.find((a) => a.id === y.account_id);
          ys.instances[0].providerid = xs.instances[0].providerid.toUpperCase();
          return control(server, '/state', { method: 'PUT', body: s });
        },
        /^accounts\.\d+\.instances\.0\.providerid$/,
        'unique',
      );
    },
  },
  {
    name: "account Y loads the providerid of an instance account X's own load left out",
    async run(server) {
      const x = { ...(await job(server, 'chaos-left-x')), name: 'chaos-left-x' };
      const y = { ...(await job(server, 'chaos-left-y')), name: 'chaos-left-y' };
      const real = realDatabase(x.instance.url);
      if (real) await sql(x.instance.url, "create table chaos_left (v text); insert into chaos_left values ('x-data')");
      const xDump = (await own(server, x, '/state')).body;
      xDump.account.instances = [];
      const left = await own(server, x, '/state', { method: 'PUT', body: xDump });
      if (left.status !== 200)
        throw new Error(`X's load without its instance answered ${left.status}: ${JSON.stringify(left.body)}`);
      const yDump = (await own(server, y, '/state')).body;
      yDump.account.instances[0].providerid = x.instance.providerid;
      yDump.account.instances[0].password = 'chosen-by-y';
      const taken = await own(server, y, '/state', { method: 'PUT', body: yDump });
      if (taken.status !== 200)
        throw new Error(
          `Y's load of a providerid nobody holds answered ${taken.status}: ${JSON.stringify(taken.body)}`,
        );
      if (!real) return 'both loads 200; records only (--databases off): no database to check';
      const end = Date.now() + 30_000;
      let got;
      while (
        !(got = (await call(server.customerUrl, `/api/instances/${y.instance.id}`, { key: y.admin_key })).body).ready
      ) {
        if (Date.now() > end) throw new Error("Y's instance not ready within 30 s");
        await sleep(100);
      }
      const rows = await sql(got.url, "select to_regclass('chaos_left') as t");
      if (rows[0]?.t !== null) throw new Error("Y's url opens the data X's instance left behind");
      return "both loads 200; the database X's load left out was dropped: Y's url opens an empty one";
    },
  },
];

/** On its own: against --url, or a `tusk serve` it starts (and stops on every path). */
async function main() {
  const { values: flags } = parseArgs({
    options: {
      url: { type: 'string' },
      'instance-url': { type: 'string' },
      'api-key': { type: 'string', default: 'tusk-admin-key' },
      'control-key': { type: 'string' },
      databases: { type: 'string', default: 'embedded' },
      only: { type: 'string' },
    },
  });
  let server;
  let stop = async () => {};
  if (flags.url) {
    const customerUrl = flags.url.replace(/\/$/, '');
    const u = new URL(customerUrl);
    u.port = String(Number(u.port || 80) + 1);
    server = {
      customerUrl,
      instanceUrl: (flags['instance-url'] ?? u.toString()).replace(/\/$/, ''),
      adminKey: flags['api-key'],
      controlKey: flags['control-key'],
    };
  } else {
    const { startServer } = await import('../load-driver.js');
    const started = await startServer(
      ['--databases', flags.databases, '--provision-delay', '0', '--rate-limit', '1000000/1'],
      {
        adminKey: flags['api-key'],
        timeoutMs: 120_000,
      },
    );
    server = started;
    console.log(`started tusk serve (pid ${started.child.pid}) at ${started.customerUrl}`);
    const running = () => started.child.exitCode === null && started.child.signalCode === null;
    // Stopped with SIGTERM (it removes its embedded Postgres), SIGKILL after 15 s; SIGKILL at the
    // very least when this process exits some other way.
    stop = async () => {
      if (!running()) return;
      const exited = new Promise((r) => started.child.once('exit', r));
      started.child.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000)]);
      if (running()) started.child.kill('SIGKILL');
    };
    process.on('exit', () => running() && started.child.kill('SIGKILL'));
    for (const [signal, code] of [
      ['SIGINT', 130],
      ['SIGTERM', 143],
    ])
      process.on(signal, () => void stop().finally(() => process.exit(code)));
  }
  let failed = 0;
  const chosen = scenarios.filter((s) => !flags.only || s.name.includes(flags.only));
  try {
    for (const s of chosen) {
      try {
        console.log(`PASS ${s.name}: ${await s.run(server)}`);
      } catch (err) {
        failed++;
        console.log(`FAIL ${s.name}: ${err.message}`);
      }
    }
  } finally {
    await stop();
  }
  console.log(`control inputs: ${chosen.length - failed} of ${chosen.length} scenarios held`);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
