// The core controls (src/control/state-routes.ts) in process, through the apps' fetch: the exact 400s a
// client reads (field, rule and wording), the outbox filters, fresh accounts and the 404 of an
// unknown control. No server ticker runs here, so only the controls themselves move anything.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createTusk, type Tusk } from '../../src/server.js';
import type { RegistryState } from '../../src/domain/state.js';
import { ROLES } from '../../src/control/accounts.js';
import { request } from './setup.js';
import { basic } from './client.js';

let tusk: Tusk;
beforeEach(async () => {
  // deliveries answer 204 at once, without a network
  tusk = await createTusk({
    log: 'off',
    registry: { outbox: { fetch: (async () => new Response(null, { status: 204 })) as typeof fetch } },
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

/** A control request; `body` is sent as is when a string, else as JSON. */
const control = (method: string, path: string, body?: unknown) =>
  request(tusk.customer, method, `/__tusk${path}`, { body });

const customer = (path: string, key: string) =>
  tusk.customer.fetch(new Request(`http://tusk${path}`, { headers: { authorization: basic(key) } }));
const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const NOT_JSON = { error: expect.stringMatching(/^body: malformed JSON \(.+\)$/), field: 'body', rule: 'json' };
const NO_BODY = { error: 'body: a JSON body is required', field: 'body', rule: 'required' };

describe('core controls: request bodies', () => {
  it('refuses a body that is not JSON (400 body/json), or no body where one is required (400 body/required)', async () => {
    for (const [body, error] of [
      ['{', NOT_JSON],
      ['seed=3', NOT_JSON],
      ['', NO_BODY],
      [undefined, NO_BODY],
    ] as const) {
      const res = await control('POST', '/seed', body);
      expect(res.status, String(body)).toBe(400);
      expect(res.body, String(body)).toStrictEqual(error);
    }
    expect(await control('POST', '/clock', '')).toStrictEqual({ status: 400, body: NO_BODY });
    expect(tusk.registry.seed).toBe(1);
    expect(tusk.registry.clock.offsetMs).toBe(0);
  });

  it('names the field and the rule a body breaks', async () => {
    expect(await control('POST', '/seed', { seed: -1 })).toStrictEqual({
      status: 400,
      body: { error: 'seed: must be >= 0', field: 'seed', rule: 'minimum' },
    });
    expect(await control('POST', '/seed', { seed: 1, extra: true })).toStrictEqual({
      status: 400,
      body: { error: 'extra: is not an accepted field here', field: 'extra', rule: 'additionalProperties' },
    });
  });
});

describe('core controls: POST /__tusk/clock', () => {
  it('refuses a duration too long for the clock with 400 naming advance, and the clock stays', async () => {
    const huge = '9'.repeat(400) + 'd';
    expect(await control('POST', '/clock', { advance: huge })).toStrictEqual({
      status: 400,
      body: {
        error: `advance: "${huge}" is not a duration (e.g. 10m, 1.5h, 30d, 250ms, or a number of ms)`,
        field: 'advance',
        rule: 'duration',
      },
    });
    expect((await control('GET', '/clock')).body.offset_ms).toBe(0);
  });

  it('refuses a leap second (an ISO 8601 time the clock cannot hold) for set and for pin, and the clock stays', async () => {
    for (const field of ['set', 'pin']) {
      expect(await control('POST', '/clock', { [field]: '2016-12-31T23:59:60Z' })).toStrictEqual({
        status: 400,
        body: { error: `${field}: 2016-12-31T23:59:60Z is not an ISO 8601 time`, field, rule: 'format' },
      });
    }
    expect((await control('GET', '/clock')).body).toMatchObject({ pinned: false, offset_ms: 0 });
  });

  it('after a move, the deliveries the new time makes due start at once, with no other request', async () => {
    tusk.registry.clock.pin(Date.UTC(2030, 0, 1));
    const entry = tusk.registry.outbox.schedule({
      event: 'backup',
      target: 'http://127.0.0.1:9/cb',
      body: { action: 'backup' },
      dueAt: Date.UTC(2030, 0, 1, 0, 1),
    });
    expect(entry.status).toBe('pending');
    await control('POST', '/clock', { advance: '59s' });
    expect(entry.status).toBe('pending');
    await control('POST', '/clock', { advance: '1s' });
    expect(entry.attempts).toBe(1); // sent (and maybe answered already)
    await tusk.registry.outbox.settle();
    expect(entry).toMatchObject({ status: 'delivered', result: 'HTTP 204' });
  });
});

describe('core controls: GET /__tusk/outbox', () => {
  /** Loads a state whose outbox holds one entry of each status (a `sending` one loads as pending). */
  const at = Date.now() + 86_400_000; // the pending one is not due yet
  async function outboxOfEveryStatus(): Promise<void> {
    const state = json(tusk.registry.dump()) as RegistryState;
    const entry = (id: number, kind: 'callback' | 'notification', status: string, extra: object = {}) => ({
      id,
      kind,
      event: 'backup',
      target: `http://127.0.0.1:9/${id}`,
      body: { n: id },
      dueAt: at,
      attempts: 0,
      status,
      ...extra,
    });
    state.outbox = {
      last_id: 4,
      entries: [
        entry(1, 'callback', 'pending'),
        entry(2, 'callback', 'delivered', { attempts: 1, result: 'HTTP 200' }),
        entry(3, 'callback', 'failed', { attempts: 3, result: 'HTTP 500' }),
        entry(4, 'notification', 'recorded'),
      ],
    } as RegistryState['outbox'];
    expect((await control('PUT', '/state', state)).status).toBe(200);
  }
  const ids = async (query: string) => {
    const res = await control('GET', `/outbox${query}`);
    expect(res.status, query).toBe(200);
    return res.body.entries.map((e: { id: number }) => e.id);
  };

  it('filters by each documented status and by kind, and gives result only once there is one', async () => {
    await outboxOfEveryStatus();
    expect(await ids('')).toEqual([1, 2, 3, 4]);
    expect(await ids('?status=pending')).toEqual([1]);
    expect(await ids('?status=sending')).toEqual([]);
    expect(await ids('?status=delivered')).toEqual([2]);
    expect(await ids('?status=failed')).toEqual([3]);
    expect(await ids('?status=recorded')).toEqual([4]);
    expect(await ids('?kind=callback')).toEqual([1, 2, 3]);
    expect(await ids('?kind=notification')).toEqual([4]);
    expect(await ids('?status=failed&kind=notification')).toEqual([]);
    const entries = (await control('GET', '/outbox?status=failed')).body.entries;
    expect(entries).toStrictEqual([
      {
        id: 3,
        kind: 'callback',
        event: 'backup',
        target: 'http://127.0.0.1:9/3',
        body: { n: 3 },
        due_at: new Date(at).toISOString(),
        attempts: 3,
        status: 'failed',
        result: 'HTTP 500',
      },
    ]);
    expect((await control('GET', '/outbox?status=pending')).body.entries[0]).not.toHaveProperty('result');
  });

  it('refuses an unknown status or kind with 400 naming the field, rule enum and the accepted values', async () => {
    expect(await control('GET', '/outbox?status=lost')).toStrictEqual({
      status: 400,
      body: {
        error: 'status: must be one of pending, sending, delivered, failed, recorded',
        field: 'status',
        rule: 'enum',
      },
    });
    expect(await control('GET', '/outbox?kind=email')).toStrictEqual({
      status: 400,
      body: { error: 'kind: must be callback or notification', field: 'kind', rule: 'enum' },
    });
  });
});

describe('core controls: GET /__tusk/requests', () => {
  it('takes a limit from 1 to the capacity, and refuses another with 400 naming limit, the range and the value', async () => {
    for (const limit of ['1', '1000'])
      expect((await control('GET', `/requests?limit=${limit}`)).status, limit).toBe(200);
    for (const limit of ['0', '1001', '2.5', 'ten']) {
      expect(await control('GET', `/requests?limit=${limit}`), limit).toStrictEqual({
        status: 400,
        body: { error: `limit: must be an integer from 1 to 1000, got "${limit}"`, field: 'limit', rule: 'range' },
      });
    }
  });
});

describe('core controls: PUT /__tusk/state', () => {
  it('refuses a body that is not JSON with 400 rule json', async () => {
    expect(await control('PUT', '/state', '{')).toStrictEqual({ status: 400, body: NOT_JSON });
  });

  it("refuses a malformed dump with 400 naming every problem, the first one's field and rule, and changes nothing", async () => {
    const before = JSON.stringify(tusk.registry.dump());
    const state = json(tusk.registry.dump()) as Partial<RegistryState>;
    delete state.clock;
    state.seed = -1;
    expect(await control('PUT', '/state', state)).toStrictEqual({
      status: 400,
      body: {
        error: 'not a valid Tusk state: clock: is required; seed: must be >= 0',
        field: 'clock',
        rule: 'required',
      },
    });
    expect(JSON.stringify(tusk.registry.dump())).toBe(before);
  });

  it('answers a failure of the server itself with 500, not with a 400 blaming the dump', async () => {
    vi.spyOn(tusk.registry, 'load').mockImplementation(() => {
      throw new Error('disk on fire');
    });
    vi.spyOn(console, 'error').mockImplementation(() => {});
    expect(await control('PUT', '/state', json(tusk.registry.dump()))).toStrictEqual({
      status: 500,
      body: { error: 'Internal server error, try again later' },
    });
  });
});

describe('core controls: POST /__tusk/accounts', () => {
  it('takes a blank body as none: the account is named after the start of its id, in a domain of its own', async () => {
    const res = await control('POST', '/accounts', ' \n');
    expect(res.status).toBe(201);
    const short = (res.body.account_id as string).slice(0, 8);
    expect(res.body).toMatchObject({ name: `Test account ${short}`, team_email: `team@account-${short}.example` });
  });

  it('a fresh team has one member per role, each with an e-mail of the account and no two-factor authentication yet', async () => {
    const res = await control('POST', '/accounts', { name: 'Job 8' });
    const short = (res.body.account_id as string).slice(0, 8);
    const team = (await (await customer('/api/team', res.body.admin_key)).json()) as { id: string }[];
    expect(team).toStrictEqual(
      ROLES.map((role) => ({
        id: expect.any(String),
        email: `${role.replace(' ', '-')}@account-${short}.example`,
        tfa_auth_enabled: false,
        roles: [role],
      })),
    );
    expect(new Set(team.map((m) => m.id)).size).toBe(ROLES.length);
  });
});

describe('core controls: an unknown control', () => {
  it('is a 404 naming the method and the path, and pointing to the control document', async () => {
    for (const [method, path] of [
      ['GET', '/nothing'],
      ['POST', '/clock/now'],
      ['DELETE', '/state'],
    ]) {
      expect(await control(method!, path!)).toStrictEqual({
        status: 404,
        body: { error: `Not found: ${method} /__tusk${path} is not a control of Tusk (see /__tusk/openapi.json)` },
      });
    }
  });
});
