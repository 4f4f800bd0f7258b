// The fast path cannot be switched off by accident (issue 34): every operation of both interfaces
// meets exactly one handler (its pipeline and its handler fused, src/http/fast-path.ts). A
// middleware added with `app.use('*')`, or a second route on an operation's path, gives every
// request a second handler and brings back Hono's compose(); this test then fails.
import { describe, expect, it } from 'vitest';
import { createTusk } from '../../src/server.js';
import { readOperations } from '../../src/openapi/operations.js';
import { unfusedRoutes } from '../../src/http/fast-path.js';

describe('the fused handlers', () => {
  it('every operation of both apps goes to its own fused handler, with no other handler behind it', async () => {
    const tusk = await createTusk({ log: 'off' });
    for (const api of ['customer', 'instance'] as const) {
      const ops = readOperations(api, tusk.deps.documents[api]);
      expect(ops.length).toBeGreaterThan(10);
      expect(unfusedRoutes(tusk[api], ops)).toEqual([]);
    }
  });

  it("a middleware on every path (app.use('*')) is caught, and so is a second route on an operation's path", async () => {
    const tusk = await createTusk({ log: 'off' });
    const ops = readOperations('instance', tusk.deps.documents.instance);
    tusk.instance.use('*', async (_c, next) => next());
    expect(unfusedRoutes(tusk.instance, ops)).toHaveLength(ops.length);
    const customer = readOperations('customer', tusk.deps.documents.customer);
    tusk.customer.get('/api/plans', (c) => c.json([]));
    expect(unfusedRoutes(tusk.customer, customer)).toEqual([expect.stringMatching(/^listPlans /)]);
  });
});
