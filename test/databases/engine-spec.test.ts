// What `--databases` accepts (parseEngineSpec), and which failures of a statement say that the
// server is out of reach rather than that the statement was wrong (isUnreachable): the first is
// a loss the engine recovers from, the second an answer to pass on (src/databases/engine.ts); and
// what an engine is before it starts: its state, its names' prefix, its reserved port.
import { describe, expect, it } from 'vitest';
import { PostgresEngine, isUnreachable, parseEngineSpec } from '../../src/databases/engine.js';

describe('--databases (parseEngineSpec)', () => {
  it('off and embedded name themselves', () => {
    expect(parseEngineSpec('off')).toEqual({ kind: 'off' });
    expect(parseEngineSpec('embedded')).toEqual({ kind: 'embedded' });
  });

  it('a postgres:// or postgresql:// URL is an existing server, kept as given', () => {
    expect(parseEngineSpec('postgres://admin:secret@db.example:5433/postgres')).toEqual({
      kind: 'external',
      url: 'postgres://admin:secret@db.example:5433/postgres',
    });
    expect(parseEngineSpec('postgresql://admin@localhost/postgres')).toEqual({
      kind: 'external',
      url: 'postgresql://admin@localhost/postgres',
    });
  });

  it('anything else is refused, naming the three forms and the value', () => {
    const refusal = (value: string) =>
      `--databases must be off, embedded or a postgres:// URL of an existing server, got "${value}"`;
    for (const value of [
      '',
      'on',
      'Embedded',
      'mysql://admin@localhost/db',
      'xpostgres://admin@localhost/db',
      'postgres:/admin@localhost',
      'postgres://[::1/db',
    ]) {
      expect(() => parseEngineSpec(value), value).toThrow(refusal(value));
    }
  });
});

describe('a failure that says the server is out of reach (isUnreachable)', () => {
  it('a refused, reset, broken or timed-out connection, by its Node code', () => {
    for (const code of ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH']) {
      expect(isUnreachable(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
  });

  it('an administrator shutdown, a crash, a server that cannot take connections now, or a lost connection, by its SQLSTATE', () => {
    for (const code of ['57P01', '57P02', '57P03', '08000', '08003', '08006']) {
      expect(isUnreachable(Object.assign(new Error('x'), { code })), code).toBe(true);
    }
  });

  it("pg's own messages of a connection that ended or never came, and a server starting up or shutting down", () => {
    for (const message of [
      'Connection terminated unexpectedly',
      'connection terminated',
      'timeout expired: Connection timeout',
      'the database system is starting up',
      'FATAL: the database system is shutting down',
    ]) {
      expect(isUnreachable(new Error(message)), message).toBe(true);
    }
  });

  it('a wrong statement, a refused login or a missing database is an answer, not a loss', () => {
    expect(isUnreachable(Object.assign(new Error('syntax error at or near "selec"'), { code: '42601' }))).toBe(false);
    expect(
      isUnreachable(Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01' })),
    ).toBe(false);
    expect(isUnreachable(Object.assign(new Error('database "x" does not exist'), { code: '3D000' }))).toBe(false);
    expect(isUnreachable(new Error('the database system is in recovery mode'))).toBe(false);
  });

  it('no error, or one without a code or message, is no loss', () => {
    expect(isUnreachable(undefined)).toBe(false);
    expect(isUnreachable(null)).toBe(false);
    expect(isUnreachable({})).toBe(false);
    expect(isUnreachable({ code: '' })).toBe(false);
  });
});

describe('an engine before it starts (PostgresEngine)', () => {
  it('is off, with no version, no server process and no listener told anything', () => {
    const engine = new PostgresEngine({ kind: 'external', url: 'postgres://tusk@localhost/postgres' });
    const told: string[] = [];
    engine.onState((s) => void told.push(s));
    expect(engine.state).toBe('off');
    expect(engine.version).toBe('');
    expect(engine.serverPid).toBeUndefined();
    expect(told).toEqual([]);
  });

  it("names what it makes with a prefix of this process, or the fixed tusk_ of an embedded server's kept data", () => {
    const fresh = new PostgresEngine({ kind: 'embedded' });
    expect(fresh.prefix).toMatch(new RegExp(`^tusk_${process.pid.toString(36)}_[0-9a-f]{6}_$`));
    expect(new PostgresEngine({ kind: 'embedded' }).prefix).not.toBe(fresh.prefix);
    const kept = new PostgresEngine({ kind: 'embedded' }, undefined, { dataDir: '/var/lib/tusk/pg' });
    expect(kept.prefix).toBe('tusk_');
    expect(kept.keptDataDir).toBe('/var/lib/tusk/pg');
    // An existing server keeps no data directory of Tusk's: its names are this process's.
    const external = new PostgresEngine({ kind: 'external', url: 'postgres://tusk@localhost/postgres' }, undefined, {
      dataDir: '/var/lib/tusk/pg',
    });
    expect(external.prefix).toMatch(/^tusk_[0-9a-z]+_[0-9a-f]{6}_$/);
    expect(external.keptDataDir).toBeUndefined();
    expect(fresh.keptDataDir).toBeUndefined();
  });

  it('an embedded server keeps the port it reserved first: URLs handed out before the start stay right', async () => {
    const engine = new PostgresEngine({ kind: 'embedded' });
    await engine.reserve();
    const port = engine.port;
    expect(port).toBeGreaterThan(0);
    await engine.reserve();
    expect(engine.port).toBe(port);
    expect(engine.host).toBe('127.0.0.1');
  });
});
