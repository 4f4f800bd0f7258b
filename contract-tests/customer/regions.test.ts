// Regions of the customer interface.
import { describe, expect, it } from 'vitest';
import { useContract } from '../harness/index.js';
import { ROLES, roleKey } from './role-keys.js';
import { expectBadRequest, expectMethodNotAllowed } from './helpers.js';

const t = useContract();

describe('listRegions', () => {
  it('lists the regions, each usable as <provider>::<region>', async () => {
    const res = await t.api.customer('listRegions');
    expect(res.status).toBe(200);
    const regions = res.body;
    expect(regions.length).toBeGreaterThan(0);
    expect(new Set(regions.map((r) => `${r.provider}::${r.region}`)).size).toBe(regions.length);
  });

  it('filters by provider name, exactly', async () => {
    const regions = (await t.api.customer('listRegions')).body;
    const provider = regions[0]!.provider;
    const res = await t.api.customer('listRegions', { query: { provider } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(regions.filter((r) => r.provider === provider));
    expect((await t.api.customer('listRegions', { query: { provider: provider.slice(0, -1) } })).body).toEqual(
      regions.filter((r) => r.provider === provider.slice(0, -1)),
    );
  });

  it('gives an empty list for an unknown provider, and 400 for an empty one', async () => {
    const res = await t.api.customer('listRegions', { query: { provider: 'no-such-provider' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expectBadRequest(await t.api.customer('listRegions', { query: { provider: '' } }), 'provider');
  });

  it('is open to every role', async () => {
    for (const role of ROLES) {
      const key = roleKey(t, role);
      if (key) expect((await t.api.customer('listRegions', { key })).status, role).toBe(200);
    }
  });

  it('answers 401 without a key and with a wrong key, and 405 for POST', async () => {
    expect((await t.api.customer('listRegions', { key: null })).status).toBe(401);
    expect((await t.api.customer('listRegions', { key: 'wrong' })).status).toBe(401);
    await expectMethodNotAllowed(t, 'listRegions', 'POST', ['GET']);
  });
});
