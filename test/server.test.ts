// createTusk and startTusk (src/server.ts): the request log in text and JSON (or none), the fixtures
// validated when they are built, the simulation steps (faults, Prefer) on both interfaces, and the
// two node servers: their ports and URLs, their HTTP timeouts, the clock's ticker, closing, and a
// port that is taken. Every Tusk is built inside its test and closed there.
import http from 'node:http';
import net from 'node:net';
import { freePort } from '../src/core/net.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTusk, startTusk, type RunningTusk } from '../src/server.js';
import { SERVER_TIMEOUTS } from '../src/core/limits.js';
import { freshAccount } from '../src/control/accounts.js';
import { FixtureError } from '../fixtures/validate.js';

const ADMIN_KEY = 'server-test-admin-key';
const basic = (key: string) => 'Basic ' + Buffer.from(`:${key}`).toString('base64');

afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

/** The node servers startTusk creates, in the order they listen (customer, then instance). */
function spyServers(): http.Server[] {
  const listen = vi.spyOn(net.Server.prototype, 'listen');
  return listen.mock.contexts as http.Server[];
}

/** A listening server holding a port of 127.0.0.1. */
async function occupy(): Promise<{ port: number; close: () => Promise<void> }> {
  const s = net.createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  return {
    port: (s.address() as net.AddressInfo).port,
    close: () => new Promise<void>((resolve) => s.close(() => resolve())),
  };
}

/** Rejects after ms (a mutant that never settles fails fast instead of at the test timeout). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** GET over node's http client: status, headers and body text. */
function get(
  url: string,
  agent?: http.Agent,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string; socket: net.Socket }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { ...(agent ? { agent } : {}), headers: { authorization: basic(ADMIN_KEY) } }, (res) => {
      const socket = res.socket;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body, socket }));
    });
    req.on('error', reject);
  });
}

/** performance.now() returns `start`, then `end` (the two readings around one request), then the real time. */
function clockReadings(start: number, end: number) {
  vi.spyOn(performance, 'now').mockReturnValueOnce(start).mockReturnValueOnce(end);
}

describe('createTusk: the request log', () => {
  it('writes one text line per request by default: interface, method, path, status and ms rounded to a tenth', async () => {
    const tusk = await createTusk({ apiKey: ADMIN_KEY });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    clockReadings(1000, 1012.375);
    const res = await tusk.customer.fetch(
      new Request('http://tusk/api/regions', { headers: { authorization: basic(ADMIN_KEY) } }),
    );
    expect(res.status).toBe(200);
    expect(log.mock.calls).toEqual([['customer GET    /api/regions 200 12.4ms']]);

    clockReadings(2000, 2000.0625);
    expect((await tusk.instance.fetch(new Request('http://tusk/api/alarms?x=1', { method: 'DELETE' }))).status).toBe(
      405,
    );
    expect(log.mock.calls[1]).toEqual(['instance DELETE /api/alarms 405 0.1ms']);
    expect(log).toHaveBeenCalledTimes(2);
  });

  it('writes one JSON object per request with log: json', async () => {
    const tusk = await createTusk({ apiKey: ADMIN_KEY, log: 'json' });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    clockReadings(500, 507.25);
    expect((await tusk.instance.fetch(new Request('http://tusk/api/alarms'))).status).toBe(401);
    clockReadings(600, 600.04);
    expect((await tusk.customer.fetch(new Request('http://tusk/nowhere?q=1'))).status).toBe(404);

    // Each line: its time and level first (src/core/log.ts), then what the request was.
    const lines = log.mock.calls.map(([line]) => JSON.parse(line as string) as Record<string, unknown>);
    for (const line of lines) expect(new Date(line.time as string).toISOString()).toBe(line.time);
    expect(lines.map(({ time: _, ...rest }) => rest)).toEqual([
      {
        level: 'info',
        msg: 'GET /api/alarms 401',
        api: 'instance',
        method: 'GET',
        path: '/api/alarms',
        status: 401,
        ms: 7.3,
      },
      { level: 'info', msg: 'GET /nowhere 404', api: 'customer', method: 'GET', path: '/nowhere', status: 404, ms: 0 },
    ]);
    expect(Object.keys(lines[0]!).slice(0, 3)).toEqual(['time', 'level', 'msg']);
  });

  it('writes nothing with log: off, while the journal still records the requests', async () => {
    const tusk = await createTusk({ apiKey: ADMIN_KEY, log: 'off' });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    expect(
      (
        await tusk.customer.fetch(
          new Request('http://tusk/api/regions', { headers: { authorization: basic(ADMIN_KEY) } }),
        )
      ).status,
    ).toBe(200);
    expect((await tusk.instance.fetch(new Request('http://tusk/api/alarms'))).status).toBe(401);
    expect(log).not.toHaveBeenCalled();
    expect(tusk.registry.journal.last(10).map((e) => `${e.api} ${e.method} ${e.path} ${e.status}`)).toEqual([
      'customer GET /api/regions 200',
      'instance GET /api/alarms 401',
    ]);
  });
});

describe('createTusk: fixtures, faults and Prefer', () => {
  it('validates fixtures against the documents: an account whose fixture does not match is refused', async () => {
    const tusk = await createTusk({ apiKey: ADMIN_KEY, log: 'off' });
    const good = freshAccount().fixture;
    expect(tusk.registry.addAccount(good).id).toBe(good.id);

    const { fixture } = freshAccount({ name: 'Bad account' });
    const bad = { ...fixture, customer: { ...fixture.customer, account_name: 'Another name' } };
    let error: unknown;
    try {
      tusk.registry.addAccount(bad);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(FixtureError);
    expect((error as FixtureError).problems).toEqual([
      'accounts.0.customer.account_name differs from the account name',
    ]);
    expect(tusk.registry.home(bad.id)?.records).toBeUndefined();
  });

  it('applies the fault rules given at start-up and the Prefer header', async () => {
    const tusk = await createTusk({ apiKey: ADMIN_KEY, log: 'off', faults: ['listRegions:error=500'] });
    const regions = await tusk.customer.fetch(
      new Request('http://tusk/api/regions', { headers: { authorization: basic(ADMIN_KEY) } }),
    );
    expect(regions.status).toBe(500);
    expect(regions.headers.get('tusk-fault')).toBe('error');

    const headers = { authorization: basic('tusk-instance-1-key'), prefer: 'code=404' };
    const alarm = await tusk.instance.fetch(new Request('http://tusk/api/alarms/1', { headers }));
    expect(alarm.status).toBe(404);
    expect(alarm.headers.get('preference-applied')).toBe('code=404');
    expect(await alarm.json()).toEqual({ error: 'Not found: no resource with id 4242' });
  });
});

describe('startTusk', () => {
  it('listens on free ports with port 0, and both servers answer at their URLs', async () => {
    const tusk = await startTusk({ customerPort: 0, instancePort: 0, apiKey: ADMIN_KEY, log: 'off' });
    try {
      expect(tusk.customerUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(tusk.instanceUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(tusk.customerUrl).not.toBe(tusk.instanceUrl);
      expect(tusk.customerUrl).not.toMatch(/:(0|4010|4011)$/);
      const customer = await fetch(`${tusk.customerUrl}/api/regions`, { headers: { authorization: basic(ADMIN_KEY) } });
      expect(customer.status).toBe(200);
      expect(((await customer.json()) as unknown[]).length).toBeGreaterThan(0);
      const instance = await fetch(`${tusk.instanceUrl}/api/alarms`, {
        headers: { authorization: basic('tusk-instance-1-key') },
      });
      expect(instance.status).toBe(200);
      expect(Array.isArray(await instance.json())).toBe(true);
    } finally {
      await tusk.close();
    }
  });

  it('listens on the ports given', async () => {
    const customerPort = await freePort();
    const instancePort = await freePort();
    const tusk = await startTusk({ customerPort, instancePort, log: 'off' });
    try {
      expect(tusk.customerUrl).toBe(`http://127.0.0.1:${customerPort}`);
      expect(tusk.instanceUrl).toBe(`http://127.0.0.1:${instancePort}`);
      expect((await fetch(`${tusk.instanceUrl}/api/alarms`)).status).toBe(401);
    } finally {
      await tusk.close();
    }
  });

  it('writes an IPv6 host in brackets in the URLs', async () => {
    const tusk = await startTusk({ host: '::1', customerPort: 0, instancePort: 0, apiKey: ADMIN_KEY, log: 'off' });
    try {
      expect(tusk.customerUrl).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect(tusk.instanceUrl).toMatch(/^http:\/\/\[::1\]:\d+$/);
      expect((await get(`${tusk.customerUrl}/api/regions`)).status).toBe(200);
    } finally {
      await tusk.close();
    }
  });

  it("sets the node servers' timeouts from SERVER_TIMEOUTS", async () => {
    const servers = spyServers();
    const tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off' });
    try {
      expect(servers).toHaveLength(2);
      for (const s of servers) {
        expect({
          headers: s.headersTimeout,
          request: s.requestTimeout,
          keepAlive: s.keepAliveTimeout,
          check: (s as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval,
        }).toEqual({
          headers: SERVER_TIMEOUTS.headersMs,
          request: SERVER_TIMEOUTS.requestMs,
          keepAlive: SERVER_TIMEOUTS.keepAliveMs,
          check: SERVER_TIMEOUTS.checkIntervalMs,
        });
      }
      expect(SERVER_TIMEOUTS).toEqual({
        headersMs: 10_000,
        requestMs: 30_000,
        keepAliveMs: 5_000,
        checkIntervalMs: 1_000,
        drainMs: 5_000,
      });
    } finally {
      await tusk.close();
    }
  });

  it('takes other timeouts, each overriding its default: the keep-alive announced, slow headers answered 408', async () => {
    const servers = spyServers();
    const tusk = await startTusk({
      customerPort: 0,
      instancePort: 0,
      apiKey: ADMIN_KEY,
      log: 'off',
      timeouts: { headersMs: 300, keepAliveMs: 7_000, checkIntervalMs: 50 },
    });
    try {
      for (const s of servers) {
        expect([
          s.headersTimeout,
          s.requestTimeout,
          s.keepAliveTimeout,
          (s as unknown as { connectionsCheckingInterval: number }).connectionsCheckingInterval,
        ]).toEqual([300, 30_000, 7_000, 50]);
      }
      // Node announces the keep-alive timeout in whole seconds.
      const agent = new http.Agent({ keepAlive: true });
      const res = await get(`${tusk.customerUrl}/api/regions`, agent);
      expect(res.status).toBe(200);
      expect(res.headers['keep-alive']).toBe('timeout=7');
      agent.destroy();

      // Headers that never end: the connection is answered 408 and closed soon after headersMs.
      const { port } = new URL(tusk.instanceUrl);
      const socket = net.connect(Number(port), '127.0.0.1');
      const began = Date.now();
      const answer = await within(
        new Promise<string>((resolve) => {
          let text = '';
          socket.setEncoding('utf8');
          socket.on('connect', () => socket.write('GET /api/alarms HTTP/1.1\r\nHost: tusk\r\n'));
          socket.on('data', (chunk: string) => (text += chunk));
          socket.on('close', () => resolve(text));
        }),
        3_000,
        'the slow request',
      ).finally(() => socket.destroy());
      expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(Date.now() - began).toBeGreaterThanOrEqual(250);
    } finally {
      await tusk.close();
    }
  });

  it('ticks the registry every 100 ms until closed', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const tusk = await startTusk({ customerPort: 0, instancePort: 0, log: 'off' });
    let closed = false;
    try {
      const tick = vi.spyOn(tusk.registry, 'tick');
      vi.advanceTimersByTime(99);
      expect(tick).toHaveBeenCalledTimes(0);
      vi.advanceTimersByTime(1);
      expect(tick).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(250);
      expect(tick).toHaveBeenCalledTimes(3);
      await tusk.close();
      closed = true;
      vi.advanceTimersByTime(1_000);
      expect(tick).toHaveBeenCalledTimes(3);
    } finally {
      if (!closed) await tusk.close();
    }
  });

  it('close() closes both servers and their open keep-alive connections', async () => {
    const servers = spyServers();
    let tusk: RunningTusk | undefined = await startTusk({
      customerPort: 0,
      instancePort: 0,
      apiKey: ADMIN_KEY,
      log: 'off',
      timeouts: { keepAliveMs: 60_000 },
    });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const customer = await get(`${tusk.customerUrl}/api/regions`, agent);
      const instance = await get(`${tusk.instanceUrl}/api/alarms`, agent);
      expect([customer.status, instance.status]).toEqual([200, 401]);
      const sockets = [customer.socket, instance.socket];
      const socketsClosed = sockets.map((s) => new Promise<void>((resolve) => s.once('close', () => resolve())));
      expect(sockets.map((s) => s.destroyed)).toEqual([false, false]);
      expect(servers.map((s) => s.listening)).toEqual([true, true]);

      const { customerUrl, instanceUrl } = tusk;
      await within(tusk.close(), 2_000, 'close()');
      tusk = undefined;
      expect(servers.map((s) => s.listening)).toEqual([false, false]);
      await within(Promise.all(socketsClosed), 2_000, 'the keep-alive connections');
      for (const url of [customerUrl, instanceUrl]) {
        await expect(fetch(`${url}/api/regions`)).rejects.toThrow('fetch failed');
      }
    } finally {
      agent.destroy();
      await tusk?.close();
    }
  });

  /** Starts Tusk with regions answered after `latency`, sends one, and closes once it waits in the fault step. */
  async function closeDuring(latency: string, timeouts: { drainMs?: number } = {}): Promise<string | undefined> {
    const tusk = await startTusk({
      customerPort: 0,
      instancePort: 0,
      apiKey: ADMIN_KEY,
      log: 'off',
      faults: [`listRegions:latency=${latency}`],
      timeouts,
    });
    let closed = false;
    try {
      const decide = vi.spyOn(tusk.registry.faults, 'decide');
      const outcome = get(`${tusk.customerUrl}/api/regions`).then(
        (res) => `answered ${res.status}`,
        (err: NodeJS.ErrnoException) => err.code,
      );
      // The request has reached the fault step (and waits there).
      await within(
        vi.waitFor(() => expect(decide).toHaveBeenCalledWith('customer', 'listRegions'), {
          timeout: 3_000,
          interval: 10,
        }),
        3_500,
        'the request',
      );
      await within(tusk.close(), 4_000, 'close()');
      closed = true;
      return await outcome;
    } finally {
      if (!closed) await tusk.close();
    }
  }

  // A balancer that retries a cut request on another replica would make a write twice.
  it('close() answers a request it has read before it stops', async () => {
    expect(await closeDuring('1s')).toBe('answered 200');
  });

  it('close() cuts a request that outlasts the grace period (drainMs)', async () => {
    expect(await closeDuring('5s', { drainMs: 300 })).toBe('ECONNRESET');
  });

  it('rejects with the listen error when the customer port is taken', async () => {
    const taken = await occupy();
    try {
      const servers = spyServers();
      const started = startTusk({ customerPort: taken.port, instancePort: 0, log: 'off' });
      await expect(within(started, 3_000, 'startTusk')).rejects.toMatchObject({ code: 'EADDRINUSE', port: taken.port });
      expect(servers).toHaveLength(1);
      expect(servers[0]!.listening).toBe(false);
    } finally {
      await taken.close();
    }
  });

  it('rejects with the listen error when the instance port is taken, and closes the customer server', async () => {
    const taken = await occupy();
    try {
      const servers = spyServers();
      const started = startTusk({ customerPort: 0, instancePort: taken.port, log: 'off' });
      await expect(within(started, 3_000, 'startTusk')).rejects.toMatchObject({ code: 'EADDRINUSE', port: taken.port });
      expect(servers).toHaveLength(2);
      expect(servers.map((s) => s.listening)).toEqual([false, false]);
    } finally {
      await taken.close();
    }
  });
});
