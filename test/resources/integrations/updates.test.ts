// An integration's update by id: the path names the integration, not its system, so the body is
// checked against the schema of the system the stored integration has. A field that schema does
// not name is ignored and named in Tusk-Ignored-Fields, or a 400 naming it under strict fields,
// as for every other body.
import { describe, expect, it } from 'vitest';
import type { TuskOptions } from '../../../src/server.js';
import { tuskForTest } from '../../support/in-process.js';

const KEY = 'tusk-instance-1-key';

async function server(options: TuskOptions = {}) {
  const { send } = await tuskForTest(options);
  return (method: string, path: string, json?: unknown, headers: Record<string, string> = {}) =>
    send('instance', method, path, { key: KEY, json, headers });
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
  for (const path of [
    (id: string) => `/api/integrations/logs/${id}`,
    (id: string) => `/api/integrations/logs/logs_e/${id}`,
  ]) {
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
      const res = await call(
        'PUT',
        path(id),
        { token: 'second-token', colour: 'blue' },
        { 'tusk-strict-fields': 'true' },
      );
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ field: 'colour', rule: 'additionalProperties' });
      expect((await call('GET', `/api/integrations/logs/${id}`)).body).toEqual(before);
    });

    it(`${path(':id')}: under --strict-fields too, and the header can lift it for one request`, async () => {
      const call = await server({ strictFields: true });
      const id = await logsIntegration(call);
      expect((await call('PUT', path(id), { token: 'second-token', colour: 'blue' })).status).toBe(400);
      const lifted = await call(
        'PUT',
        path(id),
        { token: 'second-token', colour: 'blue' },
        { 'tusk-strict-fields': 'false' },
      );
      expect(lifted.status).toBe(200);
      expect(lifted.headers.get('tusk-ignored-fields')).toBe('colour');
    });
  }
});
