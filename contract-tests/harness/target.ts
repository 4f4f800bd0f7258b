// The deployment under test: from TUSK_CUSTOMER_URL, TUSK_INSTANCE_URL and TUSK_API_KEY, or, when
// they are unset, the reference implementation started in-process on free ports.
// `tusk test` sets these variables from its flags (src/conformance/args.ts), plus TUSK_ROLE_KEYS
// (`monitor=K,billing manager=K`), TUSK_CALLBACK_HOST, TUSK_ALLOW_DESTRUCTIVE, TUSK_CHECK_DATABASES,
// TUSK_RATE_LIMIT (the deployment's documented rate limit, `N/S`), and
// TUSK_STATE_DIR: a folder where a test that rotates one of the given keys records the new one
// (recordKeyRotation), so that the files after it use the new key and the run can report it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseRateLimit } from '../../src/http/rate-limit.js';
export interface Target {
  customerUrl: string;
  instanceUrl: string;
  /** An admin key of the customer interface. */
  apiKey: string;
  inProcess: boolean;
  /** Customer-interface keys of other team roles, by role name (from --role-keys / TUSK_ROLE_KEYS). */
  roleKeys: Record<string, string>;
  /** Host name under which the target can reach callbacks served by the tests (--callback-host). */
  callbackHost?: string;
  /** Whether destructive tests may run (--allow-destructive / TUSK_ALLOW_DESTRUCTIVE=1). */
  allowDestructive: boolean;
  /** Whether the instances' URLs are real databases to connect to (--check-databases / TUSK_CHECK_DATABASES=1). */
  checkDatabases: boolean;
  /** The rate limit of an in-process target (`N/S`), when one was asked for. */
  rateLimit?: string;
  /**
   * The rate limit per key the target is documented to apply, when it is known: an in-process
   * target's own (the file's `rateLimit`, else the reference implementation's default), a
   * deployment's from --rate-limit (TUSK_RATE_LIMIT). The 429 check judges against it.
   */
  documentedRateLimit?: { requests: number; seconds: number; text: string };
  /** In-process: the provision delay (ms) after which a new instance turns ready. */
  provisionDelayMs?: number;
  close(): Promise<void>;
}

/** `N/S` as the 429 check reads it (undefined for anything else). */
export function readRateLimit(text: string | undefined): Target['documentedRateLimit'] {
  if (!text) return undefined;
  try {
    const { limit, windowMs } = parseRateLimit(text);
    return { requests: limit, seconds: windowMs / 1000, text: `${limit} per ${windowMs / 1000} s` };
  } catch {
    return undefined;
  }
}

export interface TargetOptions {
  /**
   * In-process only: the rate limit of the reference implementation (`N/S` requests per S seconds
   * and key), for tests that provoke 429. Ignored for an external target, whose limit is its own.
   */
  rateLimit?: string;
  /**
   * The file checks the databases behind the instances: in-process, the reference implementation
   * runs with its embedded database engine; an external target only with --check-databases.
   */
  databases?: boolean;
}

/** Parses `monitor=K1,billing manager=K2` into `{ monitor: 'K1', 'billing manager': 'K2' }`. */
export function parseRoleKeys(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (text ?? '').split(',')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    if (eq <= 0 || eq === part.length - 1)
      throw new Error(`role keys must look like "monitor=KEY,billing manager=KEY", got "${part.trim()}"`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

const keysFile = (env: NodeJS.ProcessEnv) =>
  env.TUSK_STATE_DIR ? join(env.TUSK_STATE_DIR, 'rotated-keys.json') : undefined;

/** Keys rotated during this run (old key -> new key), from TUSK_STATE_DIR. */
export function rotatedKeys(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const file = keysFile(env);
  if (!file || !existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** The key that replaced `key` during this run (following repeated rotations), else `key`. */
export function currentKey(key: string, env: NodeJS.ProcessEnv = process.env): string {
  const map = rotatedKeys(env);
  const seen = new Set<string>();
  while (map[key] && !seen.has(key)) {
    seen.add(key);
    key = map[key]!;
  }
  return key;
}

/**
 * Records that a key given to the suite was rotated: the target object uses the new key from now
 * on, and with TUSK_STATE_DIR set the later test files (and the run's summary) learn it too.
 */
export function recordKeyRotation(
  target: Target,
  oldKey: string,
  newKey: string,
  env: NodeJS.ProcessEnv = process.env,
): void {
  if (target.apiKey === oldKey) target.apiKey = newKey;
  for (const [role, key] of Object.entries(target.roleKeys)) if (key === oldKey) target.roleKeys[role] = newKey;
  const file = keysFile(env);
  if (!file || target.inProcess) return;
  mkdirSync(env.TUSK_STATE_DIR!, { recursive: true });
  writeFileSync(file, JSON.stringify({ ...rotatedKeys(env), [oldKey]: newKey }, null, 2));
}

export async function openTarget(env: NodeJS.ProcessEnv = process.env, options: TargetOptions = {}): Promise<Target> {
  const { TUSK_CUSTOMER_URL: customerUrl, TUSK_INSTANCE_URL: instanceUrl, TUSK_API_KEY: apiKey } = env;
  const common = {
    roleKeys: Object.fromEntries(
      Object.entries(parseRoleKeys(env.TUSK_ROLE_KEYS)).map(([role, key]) => [role, currentKey(key, env)]),
    ),
    ...(env.TUSK_CALLBACK_HOST ? { callbackHost: env.TUSK_CALLBACK_HOST } : {}),
    allowDestructive: env.TUSK_ALLOW_DESTRUCTIVE === '1' || env.TUSK_ALLOW_DESTRUCTIVE === 'true',
    checkDatabases: env.TUSK_CHECK_DATABASES === '1' || env.TUSK_CHECK_DATABASES === 'true',
  };
  const documented = readRateLimit(env.TUSK_RATE_LIMIT);
  if (customerUrl || instanceUrl) {
    if (!customerUrl || !instanceUrl || !apiKey) {
      throw new Error(
        'set all of TUSK_CUSTOMER_URL, TUSK_INSTANCE_URL and TUSK_API_KEY, or none of them to test the in-process reference implementation',
      );
    }
    return {
      customerUrl: customerUrl.replace(/\/$/, ''),
      instanceUrl: instanceUrl.replace(/\/$/, ''),
      apiKey: currentKey(apiKey, env),
      inProcess: false,
      ...common,
      ...(documented ? { documentedRateLimit: documented } : {}),
      close: async () => undefined,
    };
  }
  const { startTusk, DEFAULTS } = await import('../../src/server.js');
  // Short delays, so that readiness and callbacks arrive within a test's patience.
  const provisionDelayMs = 200;
  const tusk = await startTusk({
    customerPort: 0,
    instancePort: 0,
    log: 'off',
    provisionDelayMs,
    ...(common.checkDatabases || options.databases ? { databases: 'embedded' } : {}),
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    registry: { backupDelayMs: 200, restoreDelayMs: 200, outbox: { retryDelayMs: 200, timeoutMs: 1000 } },
  });
  return {
    customerUrl: tusk.customerUrl,
    instanceUrl: tusk.instanceUrl,
    apiKey: tusk.registry.adminKey,
    inProcess: true,
    ...common,
    // In-process every test file has its own reference implementation: nothing a test does can
    // leak out of the file, so destructive tests always run.
    allowDestructive: true,
    checkDatabases: common.checkDatabases || options.databases === true,
    ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
    documentedRateLimit: readRateLimit(options.rateLimit ?? DEFAULTS.rateLimit)!,
    provisionDelayMs,
    close: () => tusk.close(),
  };
}
