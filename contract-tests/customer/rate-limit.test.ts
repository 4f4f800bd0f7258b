// Rate limiting of the customer interface: a key over its limit gets 429 with Retry-After, on every
// operation. In its own file: the in-process reference implementation of this file admits one
// request per hour and key. An external target keeps its own (unknown) limit: the tests skip.
import { describe, expect, it } from 'vitest';
import { useContract, type Call, type CustomerOperationId } from '../harness/index.js';
import { requireRoleKey } from './role-keys.js';

const t = useContract({ rateLimit: '1/3600' });

/** A valid request of every customer operation (the limit applies after validation). */
const REQUESTS: [CustomerOperationId, Call][] = [
  ['listInstances', {}],
  ['createInstance', { body: { name: 'limited', plan: 'hippo', region: 'amazon-web-services::us-east-1' } }],
  ['getInstance', { params: { id: 1 } }],
  ['updateInstance', { params: { id: 1 }, body: { name: 'limited' } }],
  ['deleteInstance', { params: { id: 1 } }],
  ['listInvoices', {}],
  ['getInvoiceForPeriod', { query: { year: 2026, month: '2026-01' } }],
  ['getInvoice', { params: { id: 1 } }],
  ['getAuditLogCsv', {}],
  ['listRegions', {}],
  ['listTeamMembers', {}],
  ['inviteTeamMember', { body: { email: 'limited@example.com' } }],
  ['removeTeamMember', { body: { email: 'limited@example.com' } }],
  ['updateTeamMember', { params: { user_id: '00000000-0000-4000-8000-000000000000' }, body: { role: 'member' } }],
  ['rotateApiKey', {}],
  ['listPlans', {}],
];

describe('rate limiting', () => {
  it('answers 429 with Retry-After on every operation once a key is over its limit', async ({ skip }) => {
    if (!t.target.rateLimit) skip('the rate limit of an external target is its own');
    expect((await t.api.customer('listRegions')).status).toBe(200);
    for (const [operationId, call] of REQUESTS) {
      const res = await t.api.customer(operationId, call);
      expect(res.status, operationId).toBe(429);
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    }
  });

  it('counts each key apart', async ({ skip }) => {
    if (!t.target.rateLimit) skip('the rate limit of an external target is its own');
    const monitor = requireRoleKey(t, 'monitor', skip);
    expect((await t.api.customer('listPlans', { key: monitor })).status).toBe(200);
    expect((await t.api.customer('listPlans', { key: monitor })).status).toBe(429);
  });

  it('does not count a request that fails validation', async ({ skip }) => {
    if (!t.target.rateLimit) skip('the rate limit of an external target is its own');
    const billing = requireRoleKey(t, 'billing manager', skip);
    expect((await t.api.customer('listInvoices', { key: billing, query: { from: 'soon' } })).status).toBe(400);
    expect((await t.api.customer('listInvoices', { key: billing })).status).toBe(200);
  });
});
