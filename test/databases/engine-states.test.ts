// The engine's rules for an existing server reached by URL (src/databases/engine.ts), with `pg`
// replaced by a pool whose queries the test answers: where the instances' URLs point, a slow server
// that is not a lost one, a lost server brought back, a failed first start, and a close. The
// embedded server's own lifecycle runs against real Postgres in supervision.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresEngine } from '../../src/databases/engine.js';

const server = vi.hoisted(() => ({
  /** What the fake server does with a query: answer, never answer, or fail with this reason. */
  behaviour: 'answer' as 'answer' | 'silent' | { fail: unknown },
  /** Every client the engine made: its config, and whether it was connected and ended. */
  clients: [] as { config: unknown; connected: boolean; ended: boolean }[],
  pools: [] as { config: unknown; ended: boolean }[],
}));

vi.mock('pg', () => {
  const answer = async (text: string) => {
    const b = server.behaviour;
    if (b === 'silent') return new Promise(() => undefined);
    if (typeof b === 'object') throw b.fail;
    return {
      rows: text.includes('server_version') ? [{ v: '17.10', who: 'tusk', may: true }] : [{ '?column?': 1 }],
      rowCount: 1,
    };
  };
  class Pool {
    readonly record: { config: unknown; ended: boolean };
    constructor(readonly options: Record<string, unknown>) {
      this.record = { config: options, ended: false };
      server.pools.push(this.record);
    }
    on(): this {
      return this;
    }
    query(text: string) {
      return answer(text);
    }
    async end(): Promise<void> {
      this.record.ended = true;
    }
  }
  class Client {
    readonly record: { config: unknown; connected: boolean; ended: boolean };
    constructor(config: unknown) {
      this.record = { config, connected: false, ended: false };
      server.clients.push(this.record);
    }
    on(): this {
      return this;
    }
    async connect(): Promise<void> {
      this.record.connected = true;
    }
    async end(): Promise<void> {
      this.record.ended = true;
    }
  }
  const escapeIdentifier = (s: string) => `"${s.replace(/"/g, '""')}"`;
  const escapeLiteral = (s: string) => `'${s.replace(/'/g, "''")}'`;
  return { default: { Pool, Client, escapeIdentifier, escapeLiteral } };
});

const engines: PostgresEngine[] = [];
afterEach(async () => {
  vi.useRealTimers();
  server.behaviour = 'answer';
  server.clients.length = 0;
  server.pools.length = 0;
  for (const engine of engines.splice(0)) await engine.close();
});

const URL_OF_ADMIN = 'postgres://tusk:secret@db.example:5999/postgres';

function engineOf(url = URL_OF_ADMIN): { engine: PostgresEngine; logged: string[] } {
  const logged: string[] = [];
  const engine = new PostgresEngine({ kind: 'external', url }, (level, line) => void logged.push(`${level} ${line}`));
  engines.push(engine);
  return { engine, logged };
}

async function started(url?: string): Promise<{ engine: PostgresEngine; logged: string[] }> {
  const made = engineOf(url);
  await made.engine.start();
  return made;
}

/**
 * Puts the timers (and with `date`, Date.now) on a clock the test advances. setImmediate stays real:
 * the engine judges a loss after two turns of the event loop.
 */
function fakeTimers({ date = false } = {}): void {
  const timers = ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] as const;
  vi.useFakeTimers({ toFake: date ? [...timers, 'Date'] : [...timers] });
}

/** Ends a probe that waits on a silent server: its 3 s pass on fake timers. */
async function silentProbe(engine: PostgresEngine): Promise<void> {
  const probe = engine.check();
  await vi.advanceTimersByTimeAsync(3_000);
  await probe;
}

describe('an existing server reached by URL', () => {
  it("the instances' URLs carry its host and port, 5432 when the URL has none, before it is reached", async () => {
    const { engine } = engineOf();
    await engine.reserve();
    expect([engine.host, engine.port]).toEqual(['db.example', 5999]);
    expect(server.pools).toEqual([]);
    const other = engineOf('postgresql://tusk@10.0.0.7/postgres').engine;
    await other.reserve();
    expect([other.host, other.port]).toEqual(['10.0.0.7', 5432]);
  });

  it('starts once: its version is read, the state is ready, and later starts wait for the same one', async () => {
    const { engine } = engineOf();
    const states: string[] = [];
    engine.onState((s) => void states.push(s));
    await Promise.all([engine.start(), engine.start()]);
    expect(engine.state).toBe('ready');
    expect(engine.version).toBe('17.10');
    expect(states).toEqual(['starting', 'ready']);
    expect(server.pools).toHaveLength(1);
    expect(server.pools[0]!.config).toMatchObject({
      connectionString: URL_OF_ADMIN,
      max: 4,
      connectionTimeoutMillis: 5_000,
    });
  });

  it('a client on another database of the server keeps the admin URL but its database', async () => {
    const { engine } = await started();
    const client = await engine.connect('tusk_abc_inst');
    expect(server.clients).toEqual([
      {
        config: { connectionString: 'postgres://tusk:secret@db.example:5999/tusk_abc_inst' },
        connected: true,
        ended: false,
      },
    ]);
    await client.end();
  });

  it("quotes identifiers and literals with pg's own quoting", async () => {
    const { engine } = await started();
    expect(engine.ident('a"b')).toBe('"a""b"');
    expect(engine.literal("it's")).toBe("'it''s'");
  });

  it('a first start that fails: the state is failed, the reason is kept and logged once as an error', async () => {
    server.behaviour = {
      fail: Object.assign(new Error('password authentication failed for user "tusk"'), { code: '28P01' }),
    };
    const { engine, logged } = engineOf();
    await expect(engine.start()).rejects.toThrow('password authentication failed');
    expect(engine.state).toBe('failed');
    expect(engine.failure?.message).toBe('password authentication failed for user "tusk"');
    expect(logged).toEqual([
      'error tusk: databases: the engine did not start: password authentication failed for user "tusk"',
    ]);
    await expect(engine.whenReady()).rejects.toThrow('password authentication failed');
  });

  it('a start that fails with something other than an Error keeps it as an Error', async () => {
    server.behaviour = { fail: 'no route to host' };
    const { engine } = engineOf();
    await expect(engine.start()).rejects.toThrow('no route to host');
    expect(engine.failure).toBeInstanceOf(Error);
  });
});

describe('a slow server is not a lost one', () => {
  it('a probe without an answer in 3 s counts; three in a row are a loss, named so', async () => {
    const { engine, logged } = await started();
    fakeTimers();
    server.behaviour = 'silent';
    await silentProbe(engine);
    await silentProbe(engine);
    expect(engine.state).toBe('ready');
    expect(logged).toEqual([]);
    await silentProbe(engine);
    expect(engine.state).toBe('restarting');
    expect(logged).toEqual([
      'warn tusk: databases: the Postgres server is gone (no answer to 3 probes of 3 s); instances are not ready; reconnecting when it is back',
    ]);
  });

  it('an answer between silences starts the count again', async () => {
    const { engine, logged } = await started();
    fakeTimers();
    server.behaviour = 'silent';
    await silentProbe(engine);
    await silentProbe(engine);
    server.behaviour = 'answer';
    await engine.check();
    server.behaviour = 'silent';
    await silentProbe(engine);
    await silentProbe(engine);
    expect(engine.state).toBe('ready');
    expect(logged).toEqual([]);
  });

  it('a probe that fails with an answer of the server (not its absence) is no loss', async () => {
    const { engine, logged } = await started();
    server.behaviour = { fail: Object.assign(new Error('too many connections for role "tusk"'), { code: '53300' }) };
    await engine.check();
    expect(engine.state).toBe('ready');
    expect(logged).toEqual([]);
  });

  it('one probe at a time: a check while one waits does nothing', async () => {
    const { engine, logged } = await started();
    fakeTimers();
    server.behaviour = 'silent';
    const first = engine.check();
    await engine.check();
    await engine.check();
    await vi.advanceTimersByTimeAsync(3_000);
    await first;
    await silentProbe(engine);
    expect(engine.state).toBe('ready');
    expect(logged).toEqual([]);
  });
});

describe('a lost server is brought back', () => {
  it('reconnects with waits that double, and says after how long it is back; whenReady waits for it', async () => {
    const { engine, logged } = await started();
    fakeTimers({ date: true });
    server.behaviour = {
      fail: Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5999'), { code: 'ECONNREFUSED' }),
    };
    await engine.check();
    expect(engine.state).toBe('restarting');
    let ready = false;
    void engine.whenReady().then(() => (ready = true));
    // Attempts at 0, 250, 750 (250 + 500) and 1,750 ms (+ 1,000): still refused until 1,750.
    await vi.advanceTimersByTimeAsync(1_700);
    expect(engine.state).toBe('restarting');
    server.behaviour = 'answer';
    await vi.advanceTimersByTimeAsync(49);
    expect(engine.state).toBe('restarting');
    await vi.advanceTimersByTimeAsync(1);
    expect(engine.state).toBe('ready');
    await vi.advanceTimersByTimeAsync(1);
    expect(ready).toBe(true);
    expect(logged.at(-1)).toBe('info tusk: databases: the Postgres server is back after 1.8 s');
  });

  it('a server lost again after it came back is brought back again', async () => {
    const { engine, logged } = await started();
    const refused = { fail: Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5999'), { code: 'ECONNREFUSED' }) };
    for (const round of [1, 2]) {
      server.behaviour = refused;
      await engine.check();
      expect(engine.state, `loss ${round}`).toBe('restarting');
      server.behaviour = 'answer';
      await engine.whenReady();
      expect(engine.state, `return ${round}`).toBe('ready');
    }
    expect(logged.filter((line) => line.startsWith('info'))).toHaveLength(2);
  });

  it('the waits stop doubling at 5 s', async () => {
    const { engine } = await started();
    fakeTimers({ date: true });
    server.behaviour = { fail: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) };
    await engine.check();
    // Attempts at 0, .25, .75, 1.75, 3.75, 7.75, 12.75 (5 s, not 8 s, after 7.75) and 17.75 s.
    await vi.advanceTimersByTimeAsync(12_700);
    server.behaviour = 'answer';
    await vi.advanceTimersByTimeAsync(49);
    expect(engine.state).toBe('restarting');
    await vi.advanceTimersByTimeAsync(1);
    expect(engine.state).toBe('ready');
  });
});

describe('closing', () => {
  it('runs the clean-up while ready, ends the pool, and refuses statements and waits afterwards', async () => {
    const { engine } = await started();
    const cleanup = vi.fn(async () => undefined);
    await engine.close(cleanup);
    expect(cleanup).toHaveBeenCalledOnce();
    expect(server.pools[0]!.ended).toBe(true);
    expect(engine.state).toBe('off');
    await expect(engine.sql('select 1')).rejects.toThrow('the database engine is closed');
    await engine.close(cleanup);
    expect(cleanup).toHaveBeenCalledOnce();
  });

  it('a clean-up that fails is a warning, and the close goes on', async () => {
    const { engine, logged } = await started();
    await engine.close(async () => {
      throw new Error('permission denied to drop role');
    });
    expect(logged).toEqual(['warn tusk: databases: cleanup failed: permission denied to drop role']);
    expect(server.pools[0]!.ended).toBe(true);
  });

  it('no clean-up runs on a server that is not ready', async () => {
    const { engine } = await started();
    server.behaviour = { fail: Object.assign(new Error('Connection terminated unexpectedly'), {}) };
    await engine.check();
    expect(engine.state).toBe('restarting');
    const cleanup = vi.fn(async () => undefined);
    await engine.close(cleanup);
    expect(cleanup).not.toHaveBeenCalled();
  });

  it('a wait for a server that is being brought back ends with the close, as a refusal', async () => {
    const { engine } = await started();
    server.behaviour = {
      fail: Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
    };
    await engine.check();
    expect(engine.state).toBe('restarting');
    const waiting = engine.whenReady();
    await engine.close();
    await expect(waiting).rejects.toThrow('the database engine is closed');
  });

  it('a listener removed is told nothing more; an engine closed before it started tells no change', async () => {
    const { engine } = engineOf();
    const told: string[] = [];
    engine.onState((s) => void told.push(s))();
    await engine.start();
    const other = engineOf().engine;
    const otherTold: string[] = [];
    other.onState((s) => void otherTold.push(s));
    await other.close();
    expect(told).toEqual([]);
    expect(otherTold).toEqual([]);
  });

  it('a failed first start of a closed engine is not logged', async () => {
    server.behaviour = { fail: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }) };
    const { engine, logged } = engineOf();
    await engine.close();
    await expect(engine.start()).rejects.toThrow('ECONNREFUSED');
    expect(logged).toEqual([]);
  });
});
