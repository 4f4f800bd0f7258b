// Where each interface reads the API key from HTTP Basic: the customer interface from the password
// field only (a key in the user field is a 401 that says where it goes), the instance interface
// from either field (production's clients send it in either).
import { describe, expect, it } from 'vitest';
import { basic as basicKey, tuskForTest } from '../support/in-process.js';

const basic = (user: string, password: string) => basicKey(password, user);

const server = async () => (await tuskForTest()).tusk;

describe('the field of HTTP Basic that carries the key', () => {
  it('the customer interface reads the password field; a key in the user field is a 401 saying where it goes', async () => {
    const tusk = await server();
    const ok = await tusk.customer.fetch(
      new Request('http://tusk/api/plans', { headers: { authorization: basic('', 'tusk-admin-key') } }),
    );
    expect(ok.status).toBe(200);
    const wrong = await tusk.customer.fetch(
      new Request('http://tusk/api/plans', { headers: { authorization: basic('tusk-admin-key', '') } }),
    );
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: string }).error).toMatch(
      /^Unauthorized: the API key goes in the password field of HTTP Basic/,
    );
  });

  it('the instance interface reads the key from the password field or the user field', async () => {
    const tusk = await server();
    for (const authorization of [basic('', 'tusk-instance-1-key'), basic('tusk-instance-1-key', '')]) {
      const res = await tusk.instance.fetch(new Request('http://tusk/api/alarms', { headers: { authorization } }));
      expect(res.status, authorization).toBe(200);
    }
  });
});
