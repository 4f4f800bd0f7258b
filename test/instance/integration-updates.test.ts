// An integration's update by id: the path names the integration, not its system, so the body is
// checked against the schema of the system the stored integration has. A field that schema does
// not name is ignored and named in Tusk-Ignored-Fields, or a 400 naming it under strict fields,
// as for every other body. Each test builds its own server (see test/control/refusals.test.ts).
import { describe, expect, it, onTestFinished } from 'vitest';
import { createTusk, type TuskOptions } from '../../src/server.js';

const KEY = 'tusk-instance-1-key';
const basic = (key: string) => `Basic ${Buffer.from(`:${key}`).toString('base64')}`;

async function server(options: TuskOptions = {}) {
  const tusk = await createTusk({ log: 'off', provisionDelayMs: 0, ...options });
  onTestFinished(() => tusk.control.close());
  return async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await tusk.instance.fetch(
      new Request(`http://tusk${path}`, {
        method,
        headers: { authorization: basic(KEY), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      }),
    );
    const text = await res.text();
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read as the tests need them
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any };
  };
}

/** A logs integration of system logs_e; its id. */
async function logsIntegration(call: Awaited<ReturnType<typeof server>>): Promise<string> {
  const made = await call('POST', '/api/integrations/logs/logs_e', { token: 'first-token' });
  expect(made.status).toBe(200);
  const list = await call('GET', '/api/integrations/logs');
  const found = (list.body as { id: number | string; type?: string }[]).at(-1)!;
  return String(found.id);
}

describe("an integration's update by id", () => {
  for (const path of [(id: string) => `/api/integrations/logs/${id}`, (id: string) => `/api/integrations/logs/logs_e/${id}`]) {
    it(`${path(':id')}: a field the system's schema does not name is ignored and named in Tusk-Ignored-Fields`, async () => {
      const call = await server();
      const id = await logsIntegration(call);
      const res = await call('PUT', path(id), { token: 'second-token', colour: 'blue' });
      expect(res.status).toBe(200);
      expect(res.headers.get('tusk-ignored-fields')).toBe('colour');
      const plain = await call('PUT', path(id), { token: 'third-token' });
      expect(plain.status).toBe(200);
      expect(plain.headers.get('tusk-ignored-fields')).toBeNull();
    });

    it(`${path(':id')}: with Tusk-Strict-Fields it is a 400 naming the field, and the integration keeps its values`, async () => {
      const call = await server();
      const id = await logsIntegration(call);
      const before = (await call('GET', `/api/integrations/logs/${id}`)).body;
      const res = await call('PUT', path(id), { token: 'second-token', colour: 'blue' }, { 'tusk-strict-fields': 'true' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: 'colour', rule: 'additionalProperties' });
      expect((await call('GET', `/api/integrations/logs/${id}`)).body).toEqual(before);
    });

    it(`${path(':id')}: under --strict-fields too, and the header can lift it for one request`, async () => {
      const call = await server({ strictFields: true });
      const id = await logsIntegration(call);
      expect((await call('PUT', path(id), { token: 'second-token', colour: 'blue' })).status).toBe(400);
      const lifted = await call('PUT', path(id), { token: 'second-token', colour: 'blue' }, { 'tusk-strict-fields': 'false' });
      expect(lifted.status).toBe(200);
      expect(lifted.headers.get('tusk-ignored-fields')).toBe('colour');
    });
  }
});
