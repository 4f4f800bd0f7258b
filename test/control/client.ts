// What the control tests share: a running Tusk on free ports and a small fetch client that talks to
// it the way a client developer's code would (HTTP Basic with the key in the password field).
import { startTusk, type RunningTusk, type TuskOptions } from '../../src/server.js';
import { closeWithTest } from '../support/processes.js';

export const basic = (key: string) => 'Basic ' + Buffer.from(`:${key}`).toString('base64');

export interface Api {
  tusk: RunningTusk;
  /** A request to the customer interface with the admin key (unless headers say otherwise). */
  customer(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Response>;
  /** A request to the instance interface with `key`. */
  instance(
    key: string,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<Response>;
  /** A request to the control API (on the customer port), without a key. */
  control(method: string, path: string, body?: unknown): Promise<Response>;
  /** Creates an instance through the customer API; its id and key. */
  createInstance(name?: string): Promise<{ id: number; apikey: string }>;
}

export async function start(options: TuskOptions = {}): Promise<Api> {
  // Closed when the test that started it finishes, passed or failed (in a hook: by the file's afterAll).
  const tusk = closeWithTest(
    await startTusk({ customerPort: 0, instancePort: 0, log: 'off', provisionDelayMs: 0, ...options }),
  );
  const send = (
    base: string,
    key: string | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) =>
    fetch(base + path, {
      method,
      headers: {
        ...(key ? { authorization: basic(key) } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  const api: Api = {
    tusk,
    customer: (method, path, body, headers) =>
      send(tusk.customerUrl, tusk.registry.adminKey, method, path, body, headers),
    instance: (key, method, path, body, headers) => send(tusk.instanceUrl, key, method, path, body, headers),
    control: (method, path, body) => send(tusk.customerUrl, undefined, method, `/__tusk${path}`, body),
    async createInstance(name = 'alarm-test') {
      const res = await api.customer('POST', '/api/instances', {
        name,
        plan: 'hippo',
        region: 'amazon-web-services::us-east-1',
      });
      if (res.status !== 200) throw new Error(`createInstance: ${res.status} ${await res.text()}`);
      return (await res.json()) as { id: number; apikey: string };
    },
  };
  return api;
}
