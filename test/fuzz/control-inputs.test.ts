// Fuzzing the control plane's inputs (issue 31, point 2): fast-check draws hostile control inputs
// (state loads server-wide and of one account with one number, nesting or identifier spoilt; clock
// moves; seeds; faults; metrics and events; new accounts) and sends each in-process. Whatever the
// input: never a 5xx; a 400 names the field and the rule and changes nothing; a move made with one
// account's key changes no other account; and afterwards the server still serves (its clock reads
// within its range, the APIs answer, the whole state dumps and loads back). `npm test` runs a fixed
// seed; TUSK_FUZZ_CONTROL_RUNS and TUSK_FUZZ_SEED run more or others.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { CLOCK_RANGE, TIME_RANGE } from '../../src/core/limits.js';

const runs = Number(process.env.TUSK_FUZZ_CONTROL_RUNS ?? 150);
const seed = process.env.TUSK_FUZZ_SEED !== undefined ? Number(process.env.TUSK_FUZZ_SEED) : 20_260_531;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as read and spoilt
type Json = any;
interface Job {
  account_id: string;
  admin_key: string;
  instance: { id: number; apikey: string; providerid: string };
}
interface Input {
  what: string;
  method: string;
  path: string;
  key?: 'x';
  body?: unknown;
  /** The body as text, when it cannot be written by JSON.stringify (deep nesting). */
  text?: string;
}

const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });

let tusk: Tusk;
let x: Job;
let y: Job;

async function call(
  port: 'customer' | 'instance',
  method: string,
  path: string,
  init: { key?: string; body?: unknown; text?: string } = {},
): Promise<{ status: number; body: Json }> {
  const text = init.text ?? (init.body === undefined ? undefined : JSON.stringify(init.body));
  const res = await tusk[port].fetch(
    new Request(`http://tusk${path}`, {
      method,
      headers: {
        ...(init.key ? basic(init.key) : {}),
        ...(text !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(text !== undefined ? { body: text } : {}),
    }),
  );
  const body = await res.text();
  let parsed: Json = body;
  try {
    parsed = body ? JSON.parse(body) : undefined;
  } catch {
    /* not JSON: kept as text */
  }
  return { status: res.status, body: parsed };
}

async function job(name: string): Promise<Job> {
  const made = (await call('customer', 'POST', '/__tusk/accounts', { body: { name } })).body;
  const created = await call('customer', 'POST', '/api/instances', {
    key: made.admin_key,
    body: { name: `${name}-db`, plan: 'hippo', region: 'amazon-web-services::us-east-1' },
  });
  const instance = (await call('customer', 'GET', `/api/instances/${created.body.id}`, { key: made.admin_key })).body;
  return { account_id: made.account_id, admin_key: made.admin_key, instance };
}

// ---- what is drawn ----

const NUMBERS: number[] = [
  1e308,
  -1e308,
  1e20,
  -1e20,
  2 ** 31,
  2 ** 53,
  2 ** 53 + 2,
  -1,
  0,
  0.5,
  -0.5,
  5e-324,
  8.64e15,
  8.64e15 + 1,
  CLOCK_RANGE.max,
  CLOCK_RANGE.max + 1,
  -CLOCK_RANGE.max - 1,
  TIME_RANGE.min - 1,
  TIME_RANGE.max + 1,
  Number.MAX_SAFE_INTEGER,
];
const hostileNumber = fc.oneof(
  fc.constantFrom(...NUMBERS),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
);
const isoYear = (y: number) => `${String(y).padStart(4, '0')}-06-15T12:00:00Z`;
const time = fc.oneof(
  fc.integer({ min: 0, max: 9999 }).map(isoYear),
  fc.constantFrom(
    '1969-12-31T23:59:59.999Z',
    '1970-01-01T00:00:00Z',
    '9998-12-31T23:59:59.999Z',
    '9999-01-01T00:00:00Z',
    '2030-01-01T00:00:00Z',
  ),
);
const duration = fc.oneof(
  hostileNumber,
  fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.constantFrom('ms', 's', 'm', 'h', 'd'))
    .map(([n, u]) => `${n}${u}`),
  fc.constantFrom('10m', '1d', '3650d', '99999999999d', '1.5h', '-1d', ''),
);

/** Every place of a number in `value`, as a path. */
function numberPaths(
  value: Json,
  at: (string | number)[] = [],
  into: (string | number)[][] = [],
): (string | number)[][] {
  if (typeof value === 'number') into.push(at);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) numberPaths(v, [...at, Array.isArray(value) ? Number(k) : k], into);
  return into;
}
const setAt = (value: Json, path: (string | number)[], v: unknown) => {
  const parent = path.slice(0, -1).reduce((o, k) => o[k], value);
  parent[path[path.length - 1]!] = v;
};

type Spoil = { what: string; apply: (dump: Json, other: Json) => string | undefined };

/** One way to spoil a dump (`other`: another account's dump, for identifiers). */
const spoil: fc.Arbitrary<Spoil> = fc.oneof(
  fc.tuple(fc.nat(), hostileNumber).map(([i, n]): Spoil => ({
    what: `number #${i} := ${n}`,
    apply: (d) => {
      const paths = numberPaths(d);
      setAt(d, paths[i % paths.length]!, n);
      return undefined;
    },
  })),
  fc.tuple(fc.constantFrom('offset_ms', 'pinned_ms'), hostileNumber).map(([f, n]): Spoil => ({
    what: `clock.${f} := ${n}`,
    apply: (d) => {
      const clock = { offset_ms: 0, pinned_ms: null, [f]: n };
      if (d.account) d.account.clock = clock;
      else d.clock = clock;
      return undefined;
    },
  })),
  fc.tuple(fc.integer({ min: 1, max: 50_000 }), fc.constantFrom('body', 'options')).map(([depth, where]): Spoil => ({
    what: `${where} nested ${depth} deep`,
    apply: (d) => {
      const account = d.account ?? d.accounts[d.accounts.length - 1];
      if (where === 'options' && account.instances[0]) account.instances[0].recipients.items[0].options = '@@';
      else {
        const entries = d.outbox.entries;
        entries.push({
          id: entries.length + 1,
          kind: 'callback',
          event: 'backup',
          target: 'http://127.0.0.1:9/',
          body: '@@',
          dueAt: 0,
          attempts: 3,
          status: 'failed',
        });
        if (d.outbox.last_id !== undefined) d.outbox.last_id = entries.length + 1000;
      }
      return JSON.stringify(d).replace('"@@"', `${'['.repeat(depth)}0${']'.repeat(depth)}`);
    },
  })),
  fc.constantFrom('providerid', 'apikey', 'key', 'providerid-case').map((field): Spoil => ({
    what: `another account's ${field}`,
    apply: (d, other) => {
      const account = d.account ?? d.accounts[d.accounts.length - 1];
      const theirs = other.account ?? other;
      if (field === 'key') account.keys[0].key = theirs.keys[0].key;
      else if (field === 'apikey') account.instances[0].apikey = theirs.instances[0].apikey;
      else
        account.instances[0].providerid =
          field === 'providerid' ? theirs.instances[0].providerid : theirs.instances[0].providerid.toUpperCase();
      return undefined;
    },
  })),
);

const input: fc.Arbitrary<Input | { what: string; load: 'server' | 'x'; spoil: Spoil }> = fc.oneof(
  fc
    .tuple(fc.constantFrom<'server' | 'x'>('server', 'x'), spoil)
    .map(([load, s]) => ({ what: `${load} state load, ${s.what}`, load, spoil: s })),
  fc
    .tuple(
      fc.boolean(),
      fc.oneof(
        duration.map((advance) => ({ advance })),
        time.map((set) => ({ set })),
        fc.option(time).map((pin) => ({ pin })),
        fc.boolean().map((follow_server) => ({ follow_server })),
      ),
    )
    .map(([scoped, body]): Input => ({
      what: `clock ${JSON.stringify(body)}${scoped ? ' (x)' : ''}`,
      method: 'POST',
      path: '/__tusk/clock',
      body,
      ...(scoped ? { key: 'x' as const } : {}),
    })),
  hostileNumber.map((n): Input => ({ what: `seed ${n}`, method: 'POST', path: '/__tusk/seed', body: { seed: n } })),
  fc
    .tuple(
      fc.boolean(),
      fc.constantFrom<unknown>(
        { rules: [{ latency: '99999999999s' }] },
        { rules: [{ error: { status: 500, rate: 2 } }] },
        { rules: ['*:latency=1e308ms'] },
        { rules: [{ latency: '1-2ms' }], seed: 1e300 },
        { rules: [{ operation: 'nope', error: { status: 503 } }] },
        [{ latency: '1ms' }],
      ),
    )
    .map(([scoped, body]): Input => ({
      what: `faults ${JSON.stringify(body)}`,
      method: 'PUT',
      path: '/__tusk/faults',
      body,
      ...(scoped ? { key: 'x' as const } : {}),
    })),
  fc
    .record(
      { cpu: hostileNumber, memory: hostileNumber, disk_used_gb: hostileNumber, disk_total_gb: hostileNumber },
      { requiredKeys: [] },
    )
    .map((body): Input => ({
      what: `metrics ${JSON.stringify(body)}`,
      method: 'PUT',
      path: '/__tusk/instances/{x}/metrics',
      key: 'x',
      body,
    })),
  fc
    .record(
      {
        type: fc.constantFrom('notice', 'netsplit', 'server_unreachable', 'fire'),
        message: fc.string({ maxLength: 1200 }),
      },
      { requiredKeys: ['type'] },
    )
    .map((body): Input => ({
      what: `event ${body.type}`,
      method: 'POST',
      path: '/__tusk/instances/{x}/events',
      key: 'x',
      body,
    })),
  fc
    .record(
      {
        name: fc.string({ maxLength: 120 }),
        team_email: fc.constantFrom('a@b.example', 'not-an-email', `${'x'.repeat(300)}@example.com`),
      },
      { requiredKeys: [] },
    )
    .map((body): Input => ({
      what: `account ${JSON.stringify(body).slice(0, 60)}`,
      method: 'POST',
      path: '/__tusk/accounts',
      body,
    })),
);

// ---- the checks ----

const everything = () => JSON.stringify(tusk.registry.dump());
/** What would show another account reached: its keys, its instances' identities and secrets, its clock. */
async function identity(j: Job): Promise<string> {
  const { account } = (await call('customer', 'GET', '/__tusk/state', { key: j.admin_key })).body;
  return JSON.stringify({
    keys: account.keys,
    clock: account.clock ?? null,
    instances: account.instances.map((i: Json) => [i.id, i.name, i.providerid, i.apikey, i.password]),
  });
}

/** A job's instance as it is now (a load of its account may have changed its id or key). */
async function refresh(j: Job): Promise<Job> {
  const [first] = (await call('customer', 'GET', '/api/instances', { key: j.admin_key })).body;
  return { ...j, instance: (await call('customer', 'GET', `/api/instances/${first.id}`, { key: j.admin_key })).body };
}

async function stillServes(problems: string[]): Promise<void> {
  const clock = await call('customer', 'GET', '/__tusk/clock');
  if (clock.status !== 200) problems.push(`GET /__tusk/clock answered ${clock.status}`);
  else {
    const now = Date.parse(clock.body.now);
    if (!/^\d{4}-/.test(clock.body.now) || !(now >= CLOCK_RANGE.min && now <= CLOCK_RANGE.max))
      problems.push(`the clock reads ${clock.body.now}, outside its range`);
    const validate = tusk.control.deps.document.schema('Clock');
    if (!validate(clock.body))
      problems.push(`GET /__tusk/clock is not a Clock: ${JSON.stringify(validate.errors?.[0])}`);
  }
  for (const j of [x, y]) {
    for (const [port, path, key] of [
      ['customer', '/api/instances', j.admin_key],
      ['instance', '/api/backup', j.instance.apikey],
      ['instance', '/api/maintenance', j.instance.apikey],
      ['customer', '/__tusk/outbox', j.admin_key],
      ['customer', `/__tusk/instances/${j.instance.id}/metrics`, j.admin_key],
    ] as const) {
      const res = await call(port, 'GET', path, { key });
      if (res.status !== 200) problems.push(`GET ${path} (${j === x ? 'x' : 'y'}) answered ${res.status}`);
    }
  }
  const whole = await call('customer', 'GET', '/__tusk/state');
  if (whole.status !== 200) problems.push(`GET /__tusk/state answered ${whole.status}`);
  else {
    const back = await call('customer', 'PUT', '/__tusk/state', { body: whole.body });
    if (back.status !== 200)
      problems.push(
        `the server's own dump does not load back: ${back.status} ${JSON.stringify(back.body).slice(0, 200)}`,
      );
  }
}

describe("fuzzing the control plane's inputs", () => {
  beforeAll(async () => {
    tusk = await createTusk({ log: 'off', provisionDelayMs: 0, rateLimit: '1000000/1' });
    x = await job('x');
    y = await job('y');
  });

  it(`${runs} hostile control inputs (seed ${seed}): no 5xx, a 400 names the field and the rule and changes nothing, no other account is reached, the server still serves`, async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(input, async (drawn) => {
        const problems: string[] = [];
        let sent: Input;
        if ('load' in drawn) {
          const own = drawn.load === 'x';
          const d = own
            ? (await call('customer', 'GET', '/__tusk/state', { key: x.admin_key })).body
            : (await call('customer', 'GET', '/__tusk/state')).body;
          const other = own
            ? (await call('customer', 'GET', '/__tusk/state', { key: y.admin_key })).body
            : d.accounts.find((a: Json) => a.id === y.account_id);
          if (!own) {
            // spoil the last account with what another holds: put y last and x's identifiers as "other"
            const xi = d.accounts.findIndex((a: Json) => a.id === x.account_id);
            const [xs] = d.accounts.splice(xi, 1);
            d.accounts.push(xs);
          }
          const text = drawn.spoil.apply(d, other);
          sent = {
            what: drawn.what,
            method: 'PUT',
            path: '/__tusk/state',
            ...(own ? { key: 'x' as const } : {}),
            ...(text ? { text } : { body: d }),
          };
        } else sent = drawn;
        const before = everything();
        const yBefore = await identity(y);
        const res = await call('customer', sent.method, sent.path.replace('{x}', String(x.instance.id)), {
          ...(sent.key ? { key: x.admin_key } : {}),
          ...(sent.text ? { text: sent.text } : sent.body !== undefined ? { body: sent.body } : {}),
        });
        seen.set(res.status, (seen.get(res.status) ?? 0) + 1);
        if (res.status >= 500) problems.push(`answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
        if (res.status === 400) {
          if (typeof res.body?.field !== 'string' || typeof res.body?.rule !== 'string')
            problems.push(`the 400 names no field and rule: ${JSON.stringify(res.body).slice(0, 300)}`);
          if (everything() !== before) problems.push('a refused input changed the state');
        }
        if (sent.key && (await identity(y)) !== yBefore) problems.push("an input made with x's key changed account y");
        if (sent.path === '/__tusk/faults' && res.status === 200)
          await call('customer', 'DELETE', '/__tusk/faults', sent.key ? { key: x.admin_key } : {});
        if (sent.path === '/__tusk/seed' && res.status === 200) {
          x = await job('x');
          y = await job('y');
        }
        if (res.status === 200 && 'load' in drawn) {
          // a server-wide load replaced every account (make the jobs anew); x's own may have renumbered its instance
          if (drawn.load === 'server') [x, y] = [await job('x'), await job('y')];
          else x = await refresh(x);
        }
        await stillServes(problems);
        if (problems.length) throw new Error(`${sent.what}\n  ${problems.join('\n  ')}`);
      }),
      { numRuns: runs, seed, endOnFailure: true },
    );
    console.log(`control fuzz: ${runs} inputs, seed ${seed}, statuses ${JSON.stringify(Object.fromEntries(seen))}`);
    expect(seen.get(400)).toBeGreaterThan(0);
  }, 600_000);
});
