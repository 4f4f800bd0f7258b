// No control input can break the server or reach another account (issue 31, point 2). Every
// control input is checked whole before anything is applied: times within the range the clock and
// the date forms can show (src/core/limits.ts), records nested no deeper than a request body may
// be, identifiers (API keys, providerids) unique across the server. A refused input is a 400 naming
// the field and the rule, and changes nothing: the whole state dumps the same, the keys open what
// they opened, and the other accounts keep being served. Each case was a 500, a half-applied load,
// an endless loop or a takeover of another account's database before.
import { beforeEach, describe, expect, it } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import { CLOCK_RANGE, CONTROL_BODY_BYTES, MAX_BODY_DEPTH, MAX_ID, TIME_RANGE } from '../../src/core/limits.js';
import { instanceKey } from '../../fixtures/index.js';

const ADMIN_KEY = 'hostile-test-admin-key';
const HOUR = 3_600_000;
const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });

interface Job {
  account_id: string;
  admin_key: string;
}

let tusk: Tusk;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read as the tests need them
type Answer = { status: number; body: any };

async function call(
  port: 'customer' | 'instance',
  method: string,
  path: string,
  init: { key?: string; body?: unknown } = {},
): Promise<Answer> {
  const body =
    init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const res = await tusk[port].fetch(
    new Request(`http://tusk${path}`, {
      method,
      headers: {
        ...(init.key ? basic(init.key) : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body } : {}),
    }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const control = (method: string, path: string, init: { key?: string; body?: unknown } = {}) =>
  call('customer', method, `/__tusk${path}`, init);

/** Everything a control could change: the whole state (clock, outbox, every account, its keys and instances). */
const everything = () => JSON.stringify(tusk.registry.dump());
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a dump the tests spoil on purpose
const dump = (): any => JSON.parse(everything());

async function newJob(name: string): Promise<Job> {
  const res = await control('POST', '/accounts', { body: { name } });
  expect(res.status).toBe(201);
  return res.body as Job;
}

async function createInstance(job: Job, name: string): Promise<{ id: number; apikey: string; providerid: string }> {
  const res = await call('customer', 'POST', '/api/instances', {
    key: job.admin_key,
    body: { name, plan: 'hippo', region: 'amazon-web-services::us-east-1' },
  });
  expect(res.status).toBe(200);
  return (await call('customer', 'GET', `/api/instances/${res.body.id}`, { key: job.admin_key })).body;
}

/** The server still serves: its clock reads, and an account's API answers reads that date from the clock (backups catch up to now). */
async function stillServes(): Promise<void> {
  expect((await control('GET', '/clock')).status).toBe(200);
  expect((await call('customer', 'GET', '/api/instances', { key: ADMIN_KEY })).status).toBe(200);
  expect((await call('instance', 'GET', '/api/backup', { key: instanceKey(1) })).status).toBe(200);
  expect((await call('instance', 'GET', '/api/maintenance', { key: instanceKey(1) })).status).toBe(200);
}

/** `"[[[...0...]]]"`: a JSON value nesting `depth` arrays (written as text: JSON.stringify of it would overflow). */
const nestedText = (depth: number) => `${'['.repeat(depth)}0${']'.repeat(depth)}`;

/** A state load whose text puts `nested` where the JSON string "@@" stands in `value`. */
const withNested = (value: unknown, depth: number) => JSON.stringify(value).replace('"@@"', nestedText(depth));

beforeEach(async () => {
  tusk = await createTusk({ log: 'off', apiKey: ADMIN_KEY, provisionDelayMs: 0 });
});

describe('a server-wide state load refused whole', () => {
  const refused = async (
    spoil: (s: ReturnType<typeof dump>) => void,
    field: string,
    rule: string,
    text?: (s: ReturnType<typeof dump>) => string,
  ) => {
    const before = everything();
    const s = dump();
    spoil(s);
    const res = await control('PUT', '/state', { body: text ? text(s) : s });
    expect(res, JSON.stringify(res.body)).toMatchObject({ status: 400, body: { field, rule } });
    expect(res.body.error).toContain(`${field}: `);
    expect(everything()).toBe(before);
    await stillServes();
    return res.body.error as string;
  };

  it('a clock offset of 1e308 is a 400 naming clock.offset_ms; the clock and the rest stay, and the API keeps answering', async () => {
    await refused((s) => (s.clock = { offset_ms: 1e308, pinned_ms: null }), 'clock.offset_ms', 'maximum');
  });

  it('a clock pinned at -1e20 is a 400 naming clock.pinned_ms', async () => {
    await refused((s) => (s.clock = { offset_ms: 0, pinned_ms: -1e20 }), 'clock.pinned_ms', 'minimum');
  });

  it("an offset beyond the width of the clock's range is a 400; one within it that runs past the end leaves the clock standing at the end", async () => {
    const error = await refused(
      (s) => (s.clock = { offset_ms: CLOCK_RANGE.max + 1, pinned_ms: null }),
      'clock.offset_ms',
      'maximum',
    );
    expect(error).toMatch(/must be <= 253370764799999/);
    const s = dump();
    s.clock = { offset_ms: CLOCK_RANGE.max, pinned_ms: null };
    expect((await control('PUT', '/state', { body: s })).status).toBe(200);
    expect((await control('GET', '/clock')).body.now).toBe('9998-12-31T23:59:59.999Z');
    await stillServes();
    expect((await control('PUT', '/state', { body: dump() })).status).toBe(200);
  });

  it('a clock before 1970 or a fractional ms is refused', async () => {
    await refused((s) => (s.clock = { offset_ms: 0, pinned_ms: -1 }), 'clock.pinned_ms', 'minimum');
    await refused((s) => (s.clock = { offset_ms: 0.5, pinned_ms: null }), 'clock.offset_ms', 'type');
  });

  it('an account clock far out is a 400 naming it', async () => {
    await refused(
      (s) => (s.accounts[0].clock = { offset_ms: 0, pinned_ms: 1e20 }),
      'accounts.0.clock.pinned_ms',
      'maximum',
    );
    await refused(
      (s) => (s.accounts[0].clock = { offset_ms: -CLOCK_RANGE.max - 1, pinned_ms: null }),
      'accounts.0.clock.offset_ms',
      'minimum',
    );
  });

  it('every time of a record lies within the years 0000 to 9999', async () => {
    const beyond = TIME_RANGE.max + 1;
    const x = (s: ReturnType<typeof dump>) => s.accounts[0].instances[0];
    await refused((s) => (x(s).created_at = 1e308), 'accounts.0.instances.0.created_at', 'maximum');
    await refused((s) => (x(s).ready_at = TIME_RANGE.min - 1), 'accounts.0.instances.0.ready_at', 'minimum');
    await refused(
      (s) => (x(s).backups.next_daily[0] = -1e20),
      'accounts.0.instances.0.backups.next_daily.0',
      'minimum',
    );
    await refused(
      (s) => (x(s).backups.items[0].taken_at = beyond),
      'accounts.0.instances.0.backups.items.0.taken_at',
      'maximum',
    );
    await refused(
      (s) => (x(s).maintenance.items[0].scheduled_by = beyond),
      'accounts.0.instances.0.maintenance.items.0.scheduled_by',
      'maximum',
    );
    await refused(
      (s) => (x(s).maintenance.items[0].minutes = 1e300),
      'accounts.0.instances.0.maintenance.items.0.minutes',
      'maximum',
    );
    await refused((s) => (s.accounts[0].audit[0].at = beyond), 'accounts.0.audit.0.at', 'maximum');
    await refused(
      (s) =>
        (s.outbox = {
          last_id: 1,
          entries: [
            {
              id: 1,
              kind: 'callback',
              event: 'backup',
              target: 'http://127.0.0.1:9/',
              body: {},
              dueAt: 1e308,
              attempts: 0,
              status: 'pending',
            },
          ],
        }),
      'outbox.entries.0.dueAt',
      'maximum',
    );
  });

  it('ids and sequences stay far below where id + 1 gives the same id', async () => {
    await refused((s) => (s.accounts[0].last_instance_id = 2 ** 53), 'accounts.0.last_instance_id', 'maximum');
    await refused((s) => (s.outbox.last_id = 1e300), 'outbox.last_id', 'maximum');
    await refused((s) => (s.seed = 1e300), 'seed', 'maximum');
  });

  it('an outbox body nested 20,000 deep is a 400 naming it, rule maxDepth, as the APIs refuse bodies deeper than 32', async () => {
    const entry = {
      id: 1,
      kind: 'callback',
      event: 'backup',
      target: 'http://127.0.0.1:9/',
      body: '@@',
      dueAt: 0,
      attempts: 0,
      status: 'delivered',
    };
    await refused(
      (s) => (s.outbox = { last_id: 1, entries: [entry] }),
      'outbox.entries.0.body',
      'maxDepth',
      (s) => withNested(s, 20_000),
    );
    // A recipient's free-form options too.
    await refused(
      (s) => (s.accounts[0].instances[0].recipients.items[0].options = '@@'),
      'accounts.0.instances.0.recipients.items.0',
      'maxDepth',
      (s) => withNested(s, 20_000),
    );
  });

  it('a body nested as deep as a request body may be (32 levels) is kept; one level more is refused', async () => {
    const s = dump();
    s.outbox = {
      last_id: 1,
      entries: [
        {
          id: 1,
          kind: 'callback',
          event: 'backup',
          target: 'http://127.0.0.1:9/',
          body: '@@',
          dueAt: 0,
          attempts: 0,
          status: 'delivered',
        },
      ],
    };
    expect((await control('PUT', '/state', { body: withNested(s, MAX_BODY_DEPTH) })).status).toBe(200);
    expect((await control('GET', '/outbox')).status).toBe(200);
    const s2 = dump();
    s2.outbox.entries[0].body = '@@';
    expect((await control('PUT', '/state', { body: withNested(s2, MAX_BODY_DEPTH + 1) })).body).toMatchObject({
      field: 'outbox.entries.0.body',
      rule: 'maxDepth',
    });
  });

  it('two accounts with one providerid, or one API key, are a 400 naming the second place and the first', async () => {
    const a = await newJob('a');
    const b = await newJob('b');
    await createInstance(a, 'a-db');
    await createInstance(b, 'b-db');
    const place = (s: ReturnType<typeof dump>, id: string) => s.accounts.findIndex((x: { id: string }) => x.id === id);
    const s0 = dump();
    const [ai, bi] = [place(s0, a.account_id), place(s0, b.account_id)];
    expect(ai).toBeLessThan(bi);
    const error = await refused(
      (s) => (s.accounts[bi].instances[0].providerid = s.accounts[ai].instances[0].providerid),
      `accounts.${bi}.instances.0.providerid`,
      'unique',
    );
    expect(error).toContain(`appears twice in the state (also at accounts.${ai}.instances.0.providerid)`);
    // The same first 16 letters and digits, in another case and with another tail, name the same database.
    await refused(
      (s) =>
        (s.accounts[bi].instances[0].providerid =
          `${s.accounts[ai].instances[0].providerid.slice(0, 19).toUpperCase()}ffff-ffffffffffff`),
      `accounts.${bi}.instances.0.providerid`,
      'unique',
    );
    await refused(
      (s) => (s.accounts[bi].keys[2].key = s.accounts[ai].instances[0].apikey),
      `accounts.${bi}.keys.2.key`,
      'unique',
    );
  });
});

describe('an account-scoped state load refused whole', () => {
  let x: Job;
  let y: Job;
  let yInstance: { id: number; apikey: string; providerid: string };
  beforeEach(async () => {
    x = await newJob('x');
    y = await newJob('y');
    await createInstance(x, 'x-db');
    yInstance = await createInstance(y, 'y-db');
  });

  const refused = async (
    spoil: (d: ReturnType<typeof dump>) => void,
    field: string,
    rule: string,
    text?: (d: unknown) => string,
  ) => {
    const before = everything();
    const d = (await control('GET', '/state', { key: x.admin_key })).body;
    spoil(d);
    const res = await control('PUT', '/state', { key: x.admin_key, body: text ? text(d) : d });
    expect(res, JSON.stringify(res.body)).toMatchObject({ status: 400, body: { field, rule } });
    expect(res.body.error).toContain(`${field}: `);
    expect(res.body.error).not.toContain(y.account_id);
    expect(everything()).toBe(before);
    // Both accounts are served as before.
    expect(
      (await call('customer', 'GET', `/api/instances/${yInstance.id}`, { key: y.admin_key })).body.providerid,
    ).toBe(yInstance.providerid);
    expect((await call('customer', 'GET', '/api/instances', { key: x.admin_key })).status).toBe(200);
    await stillServes();
    return res.body.error as string;
  };

  it("an instance with another account's providerid (its database and role) is a 400 naming the field and the rule", async () => {
    const error = await refused(
      (d) => {
        d.account.instances[0].providerid = yInstance.providerid;
        d.account.instances[0].password = 'chosen-by-x';
      },
      'account.instances.0.providerid',
      'unique',
    );
    expect(error).toContain('belongs to another account');
    expect(error).toContain("names the instance's database and role");
  });

  it('a providerid that names the same database in another spelling is refused too', async () => {
    await refused(
      (d) => (d.account.instances[0].providerid = yInstance.providerid.toUpperCase()),
      'account.instances.0.providerid',
      'unique',
    );
  });

  it("another account's customer key or instance key is a 400 naming the field", async () => {
    const yKeys = (await control('GET', '/state', { key: y.admin_key })).body.account.keys as { key: string }[];
    await refused((d) => (d.account.keys[1].key = yKeys[1]!.key), 'account.keys.1.key', 'unique');
    await refused((d) => (d.account.instances[0].apikey = yInstance.apikey), 'account.instances.0.apikey', 'unique');
  });

  it("a clock of 1e308 is a 400 naming account.clock, and no other account's time moves", async () => {
    await refused(
      (d) => (d.account.clock = { offset_ms: 1e308, pinned_ms: null }),
      'account.clock.offset_ms',
      'maximum',
    );
    await refused((d) => (d.account.clock = { offset_ms: 0, pinned_ms: -1 }), 'account.clock.pinned_ms', 'minimum');
  });

  it('an outbox body nested 20,000 deep is a 400 naming it', async () => {
    await refused(
      (d) =>
        (d.outbox.entries = [
          {
            id: 1,
            kind: 'callback',
            event: 'backup',
            target: 'http://127.0.0.1:9/',
            body: '@@',
            dueAt: 0,
            attempts: 0,
            status: 'delivered',
          },
        ]),
      'outbox.entries.0.body',
      'maxDepth',
      (d) => withNested(d, 20_000),
    );
  });

  it('its own dump, with its own providerids and keys, still loads', async () => {
    const d = (await control('GET', '/state', { key: x.admin_key })).body;
    expect((await control('PUT', '/state', { key: x.admin_key, body: d })).status).toBe(200);
  });
});

describe('clock moves', () => {
  const refused = async (body: unknown, field: string, key?: string) => {
    const before = everything();
    const clock = (await control('GET', '/clock', key ? { key } : {})).body;
    const res = await control('POST', '/clock', { body, ...(key ? { key } : {}) });
    expect(res, JSON.stringify(body)).toMatchObject({ status: 400, body: { field, rule: 'range' } });
    expect(everything()).toBe(before);
    const after = (await control('GET', '/clock', key ? { key } : {})).body;
    expect(after.offset_ms).toBe(clock.offset_ms);
    expect(after.pinned).toBe(clock.pinned);
    await stillServes();
  };

  it("an advance, a set or a pin beyond the clock's range is a 400 naming it, rule range, and the clock stays", async () => {
    for (const advance of [1e300, '99999999999d', 2 ** 53]) await refused({ advance }, 'advance');
    for (const at of [
      '0000-01-01T00:00:00Z',
      '1969-12-31T23:59:59.999Z',
      '9999-01-01T00:00:00Z',
      '9999-12-31T23:59:59Z',
    ]) {
      await refused({ set: at }, 'set');
      await refused({ pin: at }, 'pin');
    }
  });

  it("scoped to an account, the same: its clock keeps following the server's", async () => {
    const job = await newJob('clock job');
    await refused({ advance: '99999999999d' }, 'advance', job.admin_key);
    await refused({ pin: '0001-01-01T00:00:00Z' }, 'pin', job.admin_key);
    expect((await control('GET', '/clock', { key: job.admin_key })).body.follows_server).toBe(true);
  });

  it('a pinned clock advanced past the end of 9998 is refused; up to it, it moves', async () => {
    expect((await control('POST', '/clock', { body: { pin: '9998-12-31T00:00:00Z' } })).status).toBe(200);
    await refused({ advance: '1d' }, 'advance');
    const res = await control('POST', '/clock', { body: { advance: '23h' } });
    expect(res.body.now).toBe('9998-12-31T23:00:00.000Z');
  });
});

describe("the ends of the clock's range", () => {
  for (const at of [new Date(CLOCK_RANGE.min).toISOString(), new Date(CLOCK_RANGE.max).toISOString()]) {
    it(`at ${at}: a reset, a new instance with its backups and maintenance, and a dump that loads again`, async () => {
      expect((await control('POST', '/clock', { body: { pin: at } })).status).toBe(200);
      expect((await control('POST', '/reset')).status).toBe(200);
      const job = await newJob('edge');
      const created = await createInstance(job, 'edge-db');
      expect([200, 204]).toContain(
        (await call('instance', 'POST', '/api/backup', { key: created.apikey, body: {} })).status,
      );
      for (const path of ['/api/backup', '/api/maintenance']) {
        const res = await call('instance', 'GET', path, { key: created.apikey });
        expect(res.status, path).toBe(200);
        expect(JSON.stringify(res.body), path).not.toMatch(/[+-]\d{6}-/);
      }
      await stillServes();
      const whole = dump();
      expect((await control('PUT', '/state', { body: whole })).status).toBe(200);
      expect(
        (
          await control('PUT', '/state', {
            key: job.admin_key,
            body: (await control('GET', '/state', { key: job.admin_key })).body,
          })
        ).status,
      ).toBe(200);
      expect((await control('GET', '/outbox')).status).toBe(200);
    });
  }

  it('a clock pinned an hour before the end of its range loads and reads', async () => {
    const s = dump();
    s.clock = { offset_ms: 0, pinned_ms: CLOCK_RANGE.max - HOUR };
    expect((await control('PUT', '/state', { body: s })).status).toBe(200);
    expect((await control('GET', '/clock')).body.now).toBe('9998-12-31T22:59:59.999Z');
  });
});

describe('control bodies of any size', () => {
  it('a body over its limit is a 413 naming body, read no further, and changes nothing', async () => {
    const before = everything();
    const huge = JSON.stringify({ advance: '1s', pad: 'x'.repeat(CONTROL_BODY_BYTES.control) });
    const clock = await control('POST', '/clock', { body: huge });
    expect(clock.status).toBe(413);
    expect(clock.body).toMatchObject({ field: 'body', rule: 'maxBytes' });
    // A state declared larger than a state may be is refused by its length, before it is read.
    const res = await tusk.customer.fetch(
      new Request('http://tusk/__tusk/state', {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'content-length': String(CONTROL_BODY_BYTES.state + 1) },
        body: '{}',
      }),
    );
    expect(res.status).toBe(413);
    expect(everything()).toBe(before);
    await stillServes();
  });
});

describe('the control document', () => {
  it('states the bounds of src/core/limits.ts', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document as JSON
    const schemas = (tusk.control.deps.document.document() as any).components.schemas;
    expect(schemas.StateTime).toMatchObject({ type: 'integer', minimum: TIME_RANGE.min, maximum: TIME_RANGE.max });
    expect(schemas.StateTime.description).toContain('0000-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z');
    expect(schemas.ClockTime).toMatchObject({ type: 'integer', minimum: CLOCK_RANGE.min, maximum: CLOCK_RANGE.max });
    expect(schemas.ClockTime.description).toContain('1970-01-01T00:00:00.000Z to\n9998-12-31T23:59:59.999Z');
    expect(schemas.StateClock.properties.offset_ms).toMatchObject({
      minimum: -(CLOCK_RANGE.max - CLOCK_RANGE.min),
      maximum: CLOCK_RANGE.max - CLOCK_RANGE.min,
    });
    expect(schemas.StateId).toMatchObject({ minimum: 1, maximum: MAX_ID });
    expect(schemas.StateLastId).toMatchObject({ minimum: 0, maximum: MAX_ID });
  });
});
