// Fresh accounts, so that many CI jobs share one stand-in (outside the contract; whole server only):
//   POST /__tusk/accounts {name?, team_email?}   an isolated account: one team member and one customer
//   API key per role, no instances, no invoices, no audit events; random ids and keys, so that
//   accounts never collide (201 with the keys)
import { randomUUID } from 'node:crypto';
import { Hono } from 'hono';
import type { AccountFixture } from '../../fixtures/index.js';
import { badRequest } from '../core/errors.js';
import type { ControlDeps } from './deps.js';
import { controlBody } from './body.js';
import { scopeOf, serverOnly } from './scope.js';
import { randomSecret } from '../domain/secrets.js';
import type { Role } from '../domain/types.js';

export const ROLES: readonly Role[] = ['admin', 'devops', 'member', 'monitor', 'billing manager'];

export interface FreshAccountOptions {
  name?: string;
  team_email?: string;
}

/** The fixture of a fresh account and its keys by role. */
export function freshAccount(options: FreshAccountOptions = {}): {
  fixture: AccountFixture;
  keys: Record<Role, string>;
} {
  const id = randomUUID();
  const short = id.slice(0, 8);
  const name = options.name ?? `Test account ${short}`;
  const domain = `account-${short}.example`;
  const teamEmail = options.team_email ?? `team@${domain}`;
  const emailOf = (role: Role) => `${role.replace(' ', '-')}@${domain}`;
  const keys = Object.fromEntries(
    ROLES.map((r) => [r, `tusk-${short}-${r.replace(' ', '-')}-${randomSecret(24)}`]),
  ) as Record<Role, string>;
  const fixture: AccountFixture = {
    id,
    name,
    teamEmail,
    customer: { company: name, address: '1 Test Street, Testville', country: 'US', account_name: name },
    keys: ROLES.map((role, i) => ({
      id: `key-${i + 1}`,
      key: keys[role],
      role,
      comment: `${role} key`,
      email: emailOf(role),
    })),
    team: ROLES.map((role) => ({
      id: randomUUID(),
      email: emailOf(role),
      tfa_auth_enabled: false,
      roles: [role],
      tags: [],
      joinedAt: 0,
    })),
    instances: [],
    usedInstanceIds: [],
    invoices: [],
    audit: [],
  };
  return { fixture, keys };
}

export function accountRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const { registry } = deps;
  app.post('/', async (c) => {
    serverOnly(scopeOf(c, registry, deps.controlKey), 'POST /__tusk/accounts');
    const options = await controlBody(c, deps.document, 'createAccount');
    const { fixture, keys } = freshAccount(options ?? {});
    try {
      registry.addAccount(fixture);
    } catch (err) {
      throw badRequest(`the account cannot be created: ${(err as Error).message}`);
    }
    return c.json(
      { account_id: fixture.id, name: fixture.name, team_email: fixture.teamEmail, admin_key: keys.admin, keys },
      201,
    );
  });
  return app;
}
