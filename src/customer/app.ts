// The customer interface: authentication with an account's API key (password field), the role
// matrix of the document's x-roles, and one sub-app per resource.
import type { Hono } from 'hono';
import { createApiApp, type ApiAppOptions, type Route } from '../http/app.js';
import { forbidden } from '../core/errors.js';
import { readOperations } from '../openapi/operations.js';
import type { CustomerPrincipal } from '../store/registry.js';
import type { AppDependencies } from '../http/deps.js';
import { regionsApp } from './regions.js';
import { plansApp } from './plans.js';
import { instancesApp } from './instances.js';
import { invoicesApp } from './invoices.js';
import { auditLogApp } from './auditlog.js';
import { teamApp } from './team.js';
import { apiKeysApp } from './apikeys.js';

import type { CustomerEnv } from './env.js';
export type { CustomerEnv, CustomerOperations } from './env.js';

/** The roles of the document's x-roles, per operation. */
function roleMatrix(deps: AppDependencies): Map<string, Set<string>> {
  return new Map(
    readOperations('customer', deps.documents.customer).map((o) => [
      o.operationId,
      new Set((o.raw['x-roles'] as string[] | undefined) ?? []),
    ]),
  );
}

export function mountCustomerResources(app: Hono<CustomerEnv>, route: Route): void {
  app.route('/api/instances', instancesApp(route));
  app.route('/api/invoices', invoicesApp(route));
  app.route('/api/auditlog', auditLogApp(route));
  app.route('/api/regions', regionsApp(route));
  app.route('/api/team', teamApp(route));
  app.route('/api/apikeys', apiKeysApp(route));
  app.route('/api/plans', plansApp(route));
}

export function createCustomerApp(
  deps: AppDependencies,
  extra: Pick<
    ApiAppOptions<CustomerPrincipal>,
    'onResponse' | 'onAnswer' | 'extensions' | 'simulation' | 'answers' | 'strictFields'
  > = {},
) {
  const roles = roleMatrix(deps);
  return createApiApp<CustomerPrincipal>({
    api: 'customer',
    doc: deps.documents.customer,
    schemas: deps.schemas,
    authenticate: {
      keyField: 'password',
      resolve: (key) => {
        const principal = deps.registry.authenticateCustomer(key);
        return principal && { principal, credentialId: `customer:${principal.account.id}:${principal.key.id}` };
      },
    },
    authorize: {
      check: (principal, operationId) => {
        if (!roles.get(operationId)?.has(principal.key.role)) {
          throw forbidden(`Forbidden: a key with role ${principal.key.role} may not call ${operationId}`);
        }
      },
    },
    limiter: () => deps.limiter,
    // Rate-limit windows run on the account's clock, so a test that moves it rolls them.
    clockOf: (principal) => principal.home.clock,
    mount: (app, route) => mountCustomerResources(app, route),
    ...extra,
  });
}
