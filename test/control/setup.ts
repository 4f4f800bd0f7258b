// A running Tusk on free ports for the control tests, and small clients for its three faces: the
// customer API, the instance API (HTTP Basic with a key) and the control plane (no key).
import { startTusk, type RunningTusk, type TuskOptions } from '../../src/server.js';
import { closeWithTest } from '../support/processes.js';

export const ADMIN_KEY = 'control-test-admin-key';
export const INSTANCE_1_KEY = 'tusk-instance-1-key';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read as the tests need them
type Json = any;

export interface Client {
  tusk: RunningTusk;
  /** A control request on the customer port (or the instance port with `port: 'instance'`). */
  control(
    path: string,
    init?: { method?: string; body?: unknown; port?: 'customer' | 'instance' },
  ): Promise<{ status: number; body: Json }>;
  customer(
    path: string,
    key?: string,
    init?: { method?: string; body?: unknown },
  ): Promise<{ status: number; body: Json; headers: Headers }>;
  instance(
    path: string,
    key: string,
    init?: { method?: string; body?: unknown },
  ): Promise<{ status: number; body: Json; headers: Headers }>;
  close(): Promise<void>;
}

async function call(url: string, init: { method?: string; body?: unknown; key?: string } = {}) {
  const headers: Record<string, string> = {};
  if (init.key !== undefined) headers.authorization = 'Basic ' + Buffer.from(`:${init.key}`).toString('base64');
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body !== undefined ? { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) } : {}),
  });
  return { status: res.status, body: await readBody(res), headers: res.headers };
}

/** A response's body: parsed JSON, the text itself when it is not JSON (CSV), undefined when empty. */
export async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/**
 * A request to an in-process app (createTusk's customer or instance app, no socket): a string body
 * is sent as is, anything else as JSON; the answer's body parsed as JSON when there is one.
 */
export async function request(
  app: { fetch: (req: Request) => Response | Promise<Response> },
  method: string,
  path: string,
  init: { body?: unknown; authorization?: string } = {},
): Promise<{ status: number; body: Json }> {
  const headers: Record<string, string> = {};
  if (init.authorization) headers.authorization = init.authorization;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const body =
    init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
  const res = await app.fetch(
    new Request(`http://tusk${path}`, { method, headers, ...(body !== undefined ? { body } : {}) }),
  );
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export async function start(options: TuskOptions = {}): Promise<Client> {
  // Closed when the test that started it finishes, passed or failed (in a hook: by the file's afterAll).
  const tusk = closeWithTest(
    await startTusk({
      customerPort: 0,
      instancePort: 0,
      log: 'off',
      apiKey: ADMIN_KEY,
      provisionDelayMs: 60_000,
      ...options,
    }),
  );
  return {
    tusk,
    control: (path, init = {}) =>
      call(`${init.port === 'instance' ? tusk.instanceUrl : tusk.customerUrl}/__tusk${path}`, init),
    customer: (path, key = ADMIN_KEY, init = {}) => call(`${tusk.customerUrl}${path}`, { ...init, key }),
    instance: (path, key, init = {}) => call(`${tusk.instanceUrl}${path}`, { ...init, key }),
    close: () => tusk.close(),
  };
}

/** Polls `check` until it returns a value other than undefined (real time; deliveries are asynchronous). */
export async function eventually<T>(check: () => T | undefined | Promise<T | undefined>, timeoutMs = 5000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
