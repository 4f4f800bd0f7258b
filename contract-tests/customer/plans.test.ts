// Plans of the customer interface.
import { describe, expect, it } from 'vitest';
import { useContract } from '../harness/index.js';
import { ROLES, roleKey } from './role-keys.js';
import { expectBadRequest, expectMethodNotAllowed } from './helpers.js';

const t = useContract();

describe('listPlans', () => {
  it('lists the plans with their monthly USD prices, shared and dedicated', async () => {
    const res = await t.api.customer('listPlans');
    expect(res.status).toBe(200);
    const plans = res.body;
    expect(plans.length).toBeGreaterThan(0);
    expect(new Set(plans.map((p) => p.name)).size).toBe(plans.length);
    expect(plans.every((p) => p.price >= 0)).toBe(true);
  });

  it('filters by backend name, exactly', async () => {
    const plans = (await t.api.customer('listPlans')).body;
    for (const backend of new Set(plans.map((p) => p.backend))) {
      const res = await t.api.customer('listPlans', { query: { backend } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(plans.filter((p) => p.backend === backend));
    }
  });

  it('gives an empty list for an unknown backend, and 400 for an empty one', async () => {
    const res = await t.api.customer('listPlans', { query: { backend: 'no-such-backend' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
    expectBadRequest(await t.api.customer('listPlans', { query: { backend: '' } }), 'backend');
  });

  it('is open to every role', async () => {
    for (const role of ROLES) {
      const key = roleKey(t, role);
      if (key) expect((await t.api.customer('listPlans', { key })).status, role).toBe(200);
    }
  });

  it('answers 401 without a key and 405 for DELETE', async () => {
    expect((await t.api.customer('listPlans', { key: null })).status).toBe(401);
    await expectMethodNotAllowed(t, 'listPlans', 'DELETE', ['GET']);
  });
});
