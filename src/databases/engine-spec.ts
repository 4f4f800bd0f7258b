// What the engine is told and what it tells: the `--databases` value it runs on, its states, the
// lines it logs, the prefix of the names it makes, and which errors say the server is out of reach
// (not that a statement was wrong).
import { createHash, randomBytes } from 'node:crypto';
/** Where the engine's lines go, with their level: an error, a warning, or news (info). */
export type EngineLog = (level: 'info' | 'warn' | 'error', line: string) => void;

export type EngineSpec = { kind: 'off' } | { kind: 'embedded' } | { kind: 'external'; url: string };

/** off: not started yet; starting: the first start; ready: accepts connections; restarting: lost, being brought back; failed: the first start failed. */
export type EngineState = 'off' | 'starting' | 'ready' | 'restarting' | 'failed';

/** Reads `--databases`: `off`, `embedded`, or a postgres:// URL of an existing server's admin login. */
export function parseEngineSpec(value: string): EngineSpec {
  if (value === 'off' || value === 'embedded') return { kind: value };
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
      return { kind: 'external', url: value };
    } catch {
      /* falls through */
    }
  }
  throw new Error(`--databases must be off, embedded or a postgres:// URL of an existing server, got "${value}"`);
}

/** Errors that say the server is out of reach (not that a statement was wrong). */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08003',
  '08006',
]);
export function isUnreachable(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return Boolean(
    e &&
    ((e.code && UNREACHABLE.has(e.code)) ||
      /Connection terminated|connection timeout|the database system is (starting up|shutting down)/i.test(
        e.message ?? '',
      )),
  );
}

/** What the engine's state means for the instances, in one line: what starts, or what failed and its fix. */
export function reasonOf(
  state: EngineState,
  about: { embedded: boolean; address: string; lost: string; failure?: Error },
): string | undefined {
  if (state === 'starting')
    return about.embedded
      ? 'the databases are starting: the embedded Postgres server starts in the background'
      : `the databases are starting: connecting to the Postgres server at ${about.address}`;
  if (state === 'restarting')
    return `the Postgres server is gone (${about.lost}); ${about.embedded ? 'starting it again on the same data' : 'reconnecting when it is back'}`;
  if (state === 'failed') return `the databases could not start: ${about.failure?.message ?? 'unknown'}`;
  return undefined;
}

/**
 * The prefix of every role and database the engine makes: `tusk_` for the embedded server's kept data
 * (`kept`), else one of this process's own (a shared server's other users' names are never touched).
 */
export function namePrefix(kept: boolean): string {
  return kept ? 'tusk_' : `tusk_${process.pid.toString(36)}_${randomBytes(3).toString('hex')}_`;
}

/** The prefix a team's replicas share: one per state database (`--state postgres://.../DB`). */
export function teamPrefix(stateUrl: string): string {
  const database = decodeURIComponent(new URL(stateUrl).pathname.slice(1)) || 'postgres';
  return `tusk_t${createHash('sha256').update(database).digest('hex').slice(0, 8)}_`;
}
