// Customer keys of the roles other than admin, for the 403 tests and the role tests.
// Against a deployment they come from TUSK_ROLE_KEYS (`tusk test --role-keys`), e.g.
// `devops=KEY,monitor=KEY,billing manager=KEY`; roles without a key make their tests skip. The
// in-process reference implementation has the fixtures' documented keys (ROLE_KEYS) unless
// TUSK_ROLE_KEYS names others. The admin key is the target's TUSK_API_KEY.
import { ROLE_KEYS } from '../../fixtures/index.js';
import type { Role } from '../../src/domain/types.js';
import type { ContractContext } from '../harness/index.js';

export const ROLES: readonly Role[] = ['admin', 'devops', 'member', 'monitor', 'billing manager'];

/** The key of a role on the target, or undefined when the target gave none. */
export function roleKey(t: ContractContext, role: Role): string | undefined {
  if (role === 'admin') return t.target.apiKey;
  const given = t.target.roleKeys[role];
  if (given) return given;
  return t.target.inProcess ? ROLE_KEYS[role] : undefined;
}

/** The key of a role, or skips the test (through the test context's skip) when there is none. */
export function requireRoleKey(t: ContractContext, role: Role, skip: (note?: string) => never): string {
  return roleKey(t, role) ?? skip(`no ${role} key for this target (set TUSK_ROLE_KEYS)`);
}
