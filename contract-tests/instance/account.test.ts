// Rotation of the instance password and API key, seen from both interfaces.
import { describe, expect, it } from 'vitest';
import { createInstance, useContract } from '../harness/index.js';
import { expectError, expectMethodNotAllowed } from './support.js';

const t = useContract();

describe('rotating the instance password', () => {
  it('changes the connection url of the customer interface and keeps the API key working', async () => {
    const { id, apikey } = await createInstance(t);
    const before = (await t.api.customer('getInstance', { params: { id } })).body as { url: string; apikey: string };
    const res = await t.api.instance('rotatePassword', apikey);
    expect([200, 204]).toContain(res.status);
    const after = (await t.api.customer('getInstance', { params: { id } })).body as { url: string; apikey: string };
    expect(after.url).not.toBe(before.url);
    // Only the password part changes.
    const withoutPassword = (url: string) => url.replace(/^(\w+:\/\/[^:/@]+):[^@]*@/, '$1@');
    expect(withoutPassword(after.url)).toBe(withoutPassword(before.url));
    expect(after.apikey).toBe(apikey);
    expect((await t.api.instance('listAlarms', apikey)).status).toBe(200);
  });

  it('ignores a body sent with it', async () => {
    const { apikey } = await createInstance(t);
    const res = await t.api.instance('rotatePassword', apikey, { body: { password: 'mine' } });
    expect([200, 204]).toContain(res.status);
  });
});

describe('rotating the instance API key', () => {
  it('rotating the instance API key revokes the old key at once', async () => {
    const { id, apikey } = await createInstance(t);
    t.api.expectStatus(await t.api.instance('rotateInstanceApiKey', apikey), '2XX');
    // The new key is the apikey of get-instance (the document leaves rotate's own body open).
    const fresh = (await t.api.customer('getInstance', { params: { id } })).body.apikey;
    expect(typeof fresh).toBe('string');
    expect(fresh).not.toBe(apikey);
    expectError(await t.api.instance('listAlarms', apikey), 401);
    expectError(await t.api.instance('rotateInstanceApiKey', apikey), 401);
    expect((await t.api.instance('listAlarms', fresh)).status).toBe(200);
  });

  it('keeps the instance state: what the old key created, the new key sees', async () => {
    const { id, apikey } = await createInstance(t);
    const created = await t.api.instance('createRecipient', apikey, {
      body: { type: 'email', value: 'kept@example.com' },
    });
    t.api.expectStatus(await t.api.instance('rotateInstanceApiKey', apikey), '2XX');
    const fresh = (await t.api.customer('getInstance', { params: { id } })).body.apikey;
    expect((await t.api.instance('getRecipient', fresh, { params: { id: created.body.id } })).body).toEqual(
      created.body,
    );
  });

  it('unsupported methods are a 405 with Allow', async () => {
    const { apikey } = await createInstance(t);
    await expectMethodNotAllowed(t, 'GET', '/api/account/rotate-apikey', apikey, ['POST']);
    await expectMethodNotAllowed(t, 'PUT', '/api/account/rotate-password', apikey, ['POST']);
  });
});
