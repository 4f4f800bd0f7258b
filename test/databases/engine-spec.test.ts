// What `--databases` accepts (parseEngineSpec), and which failures of a statement say that the
// server is out of reach rather than that the statement was wrong (isUnreachable): the first is
// a loss the engine recovers from, the second an answer to pass on (src/databases/engine.ts).
import { describe, expect, it } from 'vitest';
import { isUnreachable, parseEngineSpec } from '../../src/databases/engine.js';

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
    expect(parseEngineSpec('postgresql://admin@localhost/postgres')).toEqual({ kind: 'external', url: 'postgresql://admin@localhost/postgres' });
  });

  it('anything else is refused, naming the three forms and the value', () => {
    const refusal = (value: string) => `--databases must be off, embedded or a postgres:// URL of an existing server, got "${value}"`;
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
    expect(isUnreachable(Object.assign(new Error('password authentication failed for user "x"'), { code: '28P01' }))).toBe(false);
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
