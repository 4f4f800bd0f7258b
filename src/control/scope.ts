// Which account a control request acts on, so that many CI jobs can share one stand-in:
//   ?account=ID                  that account (404 when no account has it);
//   an admin key of an account   (HTTP Basic, `-u :KEY`, the key the job already has) that account;
//   the control key, or no key   the whole server.
// A key that opens an account but is not its admin key is a 403 (the controls of an account act on
// all of it); a key of no account that is not the control key is a 401. A key and an ?account=
// that disagree are a 403: a job never acts on another account. With `--control-key`, app.ts has
// already refused every request that carries neither the control key nor an admin key.
import type { Context } from 'hono';
import { timingSafeEqual } from 'node:crypto';
import { ApiError, unauthorized } from '../core/errors.js';
import { keyOfHeader } from '../core/basic-auth.js';
import type { AccountHome } from '../accounts/home.js';
import type { Registry } from '../accounts/registry.js';

/** The whole server, or one account's home. */
export type Scope = { kind: 'server' } | { kind: 'account'; home: AccountHome };

const SERVER: Scope = { kind: 'server' };

/** Two keys compared in constant time. */
export function sameKey(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function scopeOf(c: Context, registry: Registry, controlKey: string | undefined): Scope {
  const id = c.req.query('account');
  const key = keyOfHeader(c.req.header('authorization'));
  let named: AccountHome | undefined;
  if (id !== undefined) {
    named = registry.home(id);
    if (!named) throw new ApiError(404, `Not found: no account with id ${id}`);
  }
  if (!key || (controlKey !== undefined && sameKey(key, controlKey)))
    return named ? { kind: 'account', home: named } : SERVER;
  const customer = registry.authenticateCustomer(key);
  const owner = registry.homeOfKey(key);
  if (!owner)
    throw unauthorized(
      'Unauthorized: the key is neither the control key nor a key of an account (send an admin key of the account, the control key, or none)',
    );
  if (customer?.key.role !== 'admin')
    throw new ApiError(
      403,
      `Forbidden: the controls of an account need an admin key of the account, not ${customer ? `a ${customer.key.role} key` : 'an instance key'}`,
    );
  if (named && named !== owner)
    throw new ApiError(403, `Forbidden: the key is of account ${owner.id}, not of account ${named.id}`);
  return { kind: 'account', home: owner };
}

/** The scope of a control that acts on the whole server only: a 403 when the request is scoped to an account. */
export function serverOnly(scope: Scope, what: string): void {
  if (scope.kind === 'account')
    throw new ApiError(
      403,
      `Forbidden: ${what} acts on the whole server; it cannot be scoped to one account (use the control key, or no key without --control-key)`,
    );
}
