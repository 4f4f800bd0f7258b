// The team of the customer interface: list, invite, remove, change role and tags.
import { describe, expect, it } from 'vitest';
import { useContract } from '../harness/index.js';
import { requireRoleKey } from './role-keys.js';
import { expectBadRequest, expectMethodNotAllowed, randomEmail } from './helpers.js';

const t = useContract();

const team = async () => (await t.api.customer('listTeamMembers')).body;
const member = async (email: string) => (await team()).find((m) => m.email === email);

/** Invites a fresh e-mail (removed after the file) and returns it with the member's id. */
async function invite(body: Record<string, unknown> = {}, form = false): Promise<{ email: string; id: string }> {
  const email = randomEmail('team');
  const res = await t.api.customer('inviteTeamMember', { body: { email, ...body }, form });
  expect(res.status, res.text).toBe(200);
  t.cleanup(() => t.api.customer('removeTeamMember', { body: { email }, unchecked: true }));
  return { email, id: (await member(email))!.id };
}

describe('listTeamMembers', () => {
  it('lists the team members, each with exactly id, email, tfa_auth_enabled and roles', async () => {
    const res = await t.api.customer('listTeamMembers');
    expect(res.status).toBe(200);
    expect(res.body.length).toBeGreaterThan(0);
    for (const m of res.body) expect(Object.keys(m).sort()).toEqual(['email', 'id', 'roles', 'tfa_auth_enabled']);
  });

  it('is closed to every role but admin (403)', async ({ skip }) => {
    for (const role of ['devops', 'member', 'monitor', 'billing manager'] as const) {
      expect((await t.api.customer('listTeamMembers', { key: requireRoleKey(t, role, skip) })).status, role).toBe(403);
    }
  });

  it('answers 401 without a key and 405 for DELETE', async () => {
    expect((await t.api.customer('listTeamMembers', { key: null })).status).toBe(401);
    await expectMethodNotAllowed(t, 'listTeamMembers', 'DELETE', ['GET']);
  });
});

describe('inviteTeamMember', () => {
  it('invites a user as a member by default, who is then listed without two-factor authentication', async () => {
    const email = randomEmail('invite');
    const res = await t.api.customer('inviteTeamMember', { body: { email } });
    t.cleanup(() => t.api.customer('removeTeamMember', { body: { email }, unchecked: true }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Email invitation sent' });
    expect(await member(email)).toMatchObject({ email, tfa_auth_enabled: false, roles: ['member'] });
  });

  it('invites with a role from a form body, and with tags for a monitor user', async () => {
    const billing = await invite({ role: 'billing manager' }, true);
    expect((await member(billing.email))!.roles).toEqual(['billing manager']);
    const monitor = await invite({ role: 'monitor', tags: 'production,staging' });
    expect((await member(monitor.email))!.roles).toEqual(['monitor']);
    const tagged = await invite({ tags: 'analytics' }, true);
    expect((await member(tagged.email))!.roles).toEqual(['member']);
  });

  it('refuses an e-mail that is already a team member (400 naming email), keeping the member as they are', async () => {
    const { email } = await invite({ role: 'monitor' });
    const before = await team();
    expectBadRequest(await t.api.customer('inviteTeamMember', { body: { email, role: 'admin' } }), 'email');
    expect(await team()).toEqual(before);
  });

  it('refuses tags with a role other than member or monitor, and a malformed body (400)', async () => {
    const before = await team();
    expectBadRequest(
      await t.api.customer('inviteTeamMember', { body: { email: randomEmail(), role: 'devops', tags: 'production' } }),
    );
    expectBadRequest(await t.api.customer('inviteTeamMember', { body: { email: 'not-an-email' } }), 'email');
    expectBadRequest(await t.api.customer('inviteTeamMember', { body: { role: 'member' } }), 'email');
    expectBadRequest(
      await t.api.customer('inviteTeamMember', { body: { email: randomEmail(), role: 'owner' } }),
      'role',
    );
    expectBadRequest(
      await t.api.customer('inviteTeamMember', { body: { email: randomEmail(), tags: 'a,,b' } }),
      'tags',
    );
    expectBadRequest(
      await t.api.customer('inviteTeamMember', {
        raw: { text: JSON.stringify({ email: randomEmail() }), contentType: 'text/plain' },
      }),
    );
    expectBadRequest(
      await t.api.customer('inviteTeamMember', { raw: { text: '{"email":', contentType: 'application/json' } }),
    );
    expect(await team()).toEqual(before);
  });

  it('is closed to every role but admin (403)', async ({ skip }) => {
    for (const role of ['devops', 'member', 'monitor', 'billing manager'] as const) {
      const email = randomEmail();
      expect(
        (await t.api.customer('inviteTeamMember', { body: { email }, key: requireRoleKey(t, role, skip) })).status,
        role,
      ).toBe(403);
      expect(await member(email)).toBeUndefined();
    }
  });

  it('answers 401 with a wrong key and 405 for GET', async () => {
    expect((await t.api.customer('inviteTeamMember', { body: { email: randomEmail() }, key: 'wrong' })).status).toBe(
      401,
    );
    // /api/team/invite also matches the template /api/team/{user_id}: Allow may name its PUT too
    await expectMethodNotAllowed(t, 'inviteTeamMember', 'GET', ['POST'], {}, { atLeast: true });
  });
});

describe('removeTeamMember', () => {
  it('removes a member by e-mail, who is then no longer listed', async () => {
    const { email } = await invite();
    const res = await t.api.customer('removeTeamMember', { body: { email }, form: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'The user has been deleted from team' });
    expect(await member(email)).toBeUndefined();
  });

  it('answers 404 for an e-mail that is no team member, and 400 for a malformed body', async () => {
    expect((await t.api.customer('removeTeamMember', { body: { email: randomEmail('nobody') } })).status).toBe(404);
    expectBadRequest(await t.api.customer('removeTeamMember', { body: {} }), 'email');
    expectBadRequest(await t.api.customer('removeTeamMember', { body: { email: 'nobody' } }), 'email');
  });

  it('is closed to every role but admin (403), keeping the member', async ({ skip }) => {
    const { email } = await invite();
    for (const role of ['devops', 'member', 'monitor', 'billing manager'] as const) {
      expect(
        (await t.api.customer('removeTeamMember', { body: { email }, key: requireRoleKey(t, role, skip) })).status,
        role,
      ).toBe(403);
    }
    expect(await member(email)).toBeDefined();
  });

  it('answers 401 without a key and 405 for DELETE', async () => {
    expect((await t.api.customer('removeTeamMember', { body: { email: randomEmail() }, key: null })).status).toBe(401);
    await expectMethodNotAllowed(t, 'removeTeamMember', 'DELETE', ['POST'], {}, { atLeast: true });
  });
});

describe('updateTeamMember', () => {
  it('changes a member’s role and tags', async () => {
    const { email, id } = await invite();
    const res = await t.api.customer('updateTeamMember', {
      params: { user_id: id },
      body: { role: 'monitor', tags: 'production' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'Role and tags updated for user.' });
    expect((await member(email))!.roles).toEqual(['monitor']);
    expect(
      (await t.api.customer('updateTeamMember', { params: { user_id: id }, body: { tags: 'staging' }, form: true }))
        .status,
    ).toBe(200);
    expect(
      (await t.api.customer('updateTeamMember', { params: { user_id: id }, body: { role: 'devops' }, form: true }))
        .status,
    ).toBe(200);
    expect((await member(email))!.roles).toEqual(['devops']);
  });

  it('refuses tags when the member’s role is not member or monitor, and an empty body (400), changing nothing', async () => {
    const { id } = await invite({ role: 'devops' });
    const before = await team();
    expectBadRequest(
      await t.api.customer('updateTeamMember', { params: { user_id: id }, body: { tags: 'production' } }),
      'tags',
    );
    expectBadRequest(
      await t.api.customer('updateTeamMember', {
        params: { user_id: id },
        body: { role: 'admin', tags: 'production' },
      }),
    );
    expectBadRequest(await t.api.customer('updateTeamMember', { params: { user_id: id }, body: {} }));
    expectBadRequest(
      await t.api.customer('updateTeamMember', { params: { user_id: id }, body: { role: 'owner' } }),
      'role',
    );
    expect(await team()).toEqual(before);
  });

  it('answers 404 for a user id no member has and 400 for one that is not a UUID', async () => {
    expect(
      (
        await t.api.customer('updateTeamMember', {
          params: { user_id: '00000000-0000-4000-8000-000000000000' },
          body: { role: 'member' },
        })
      ).status,
    ).toBe(404);
    expectBadRequest(
      await t.api.customer('updateTeamMember', { params: { user_id: 'someone' }, body: { role: 'member' } }),
      'user_id',
    );
  });

  it('is closed to every role but admin (403), changing nothing', async ({ skip }) => {
    const { email, id } = await invite();
    for (const role of ['devops', 'member', 'monitor', 'billing manager'] as const) {
      expect(
        (
          await t.api.customer('updateTeamMember', {
            params: { user_id: id },
            body: { role: 'admin' },
            key: requireRoleKey(t, role, skip),
          })
        ).status,
        role,
      ).toBe(403);
    }
    expect((await member(email))!.roles).toEqual(['member']);
  });

  it('answers 401 with a wrong key and 405 for PATCH', async () => {
    const { id } = await invite();
    expect(
      (await t.api.customer('updateTeamMember', { params: { user_id: id }, body: { role: 'monitor' }, key: 'wrong' }))
        .status,
    ).toBe(401);
    await expectMethodNotAllowed(t, 'updateTeamMember', 'PATCH', ['PUT'], { user_id: id });
  });
});
