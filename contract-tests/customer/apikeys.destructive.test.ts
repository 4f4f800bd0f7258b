// Rotation of the customer API key used for the call. In its own file: it changes the keys of the
// target (the in-process server of this file). Against a deployment the rotations run only with
// TUSK_ALLOW_DESTRUCTIVE=1, because they replace the TUSK_API_KEY (and role key) it was given.
import { describe, expect, it } from 'vitest';
import { useContract } from '../harness/index.js';
import { roleKey } from './role-keys.js';
import { expectMethodNotAllowed, parseCsv } from './helpers.js';

const t = useContract();

/** The admin key as of now: rotation replaces it. */
let admin: string | undefined;
const adminKey = () => admin ?? t.target.apiKey;

const mayRotate = () => t.target.allowDestructive;

describe('rotateApiKey', () => {
  it('answers 401 without a key and 405 for GET, rotating nothing', async () => {
    expect((await t.api.customer('rotateApiKey', { key: null })).status).toBe(401);
    expect((await t.api.customer('rotateApiKey', { key: 'wrong' })).status).toBe(401);
    await expectMethodNotAllowed(t, 'rotateApiKey', 'GET', ['POST']);
    expect((await t.api.customer('listTeamMembers', { key: adminKey() })).status).toBe(200);
  });

  it('rotating the key used revokes it and returns a new key with the same permissions', async ({ skip }) => {
    if (!mayRotate()) skip('rotating the keys of a deployment is destructive (set TUSK_ALLOW_DESTRUCTIVE=1)');
    const old = adminKey();
    const res = await t.api.customer('rotateApiKey', { key: old });
    expect(res.status).toBe(200);
    const fresh = res.body.apikey as string;
    expect(fresh).not.toBe(old);
    admin = fresh;
    expect((await t.api.customer('listTeamMembers', { key: old })).status).toBe(401);
    // admin-only operations keep working with the new key
    expect((await t.api.customer('listTeamMembers', { key: fresh })).status).toBe(200);
    expect((await t.api.customer('listInvoices', { key: fresh })).status).toBe(200);
  });

  it('keeps working with the new key: it can be rotated again, and the log shows both rotations', async ({ skip }) => {
    if (!mayRotate()) skip('rotating the keys of a deployment is destructive (set TUSK_ALLOW_DESTRUCTIVE=1)');
    const before = adminKey();
    const res = await t.api.customer('rotateApiKey', { key: before, body: { ignored: true } });
    expect(res.status).toBe(200);
    admin = res.body.apikey as string;
    expect((await t.api.customer('listTeamMembers', { key: before })).status).toBe(401);
    const log = await t.api.customer('getAuditLogCsv', { key: adminKey() });
    expect(log.status).toBe(200);
    const rotations = parseCsv(log.text).filter((r) => r[1] === 'apikey.rotate');
    expect(rotations.length).toBeGreaterThanOrEqual(2);
    expect(new Set(rotations.slice(-2).map((r) => r[3])).size).toBe(1);
  });

  it('rotating a monitor key gives a key that is still a monitor key', async ({ skip }) => {
    if (!mayRotate()) skip('rotating the keys of a deployment is destructive (set TUSK_ALLOW_DESTRUCTIVE=1)');
    const monitor = roleKey(t, 'monitor') ?? skip('no monitor key for this target (set TUSK_ROLE_KEYS)');
    const res = await t.api.customer('rotateApiKey', { key: monitor, form: true, body: {} });
    expect(res.status).toBe(200);
    const fresh = res.body.apikey as string;
    expect((await t.api.customer('listInstances', { key: monitor })).status).toBe(401);
    expect((await t.api.customer('listInstances', { key: fresh })).status).toBe(200);
    expect((await t.api.customer('listTeamMembers', { key: fresh })).status).toBe(403);
    expect(
      (await t.api.customer('createInstance', { key: fresh, body: { name: 'x', plan: 'y', region: 'a::b' } })).status,
    ).toBe(403);
  });
});
