// The one composition of the two interfaces: each resource's sub-app (src/resources/*/routes.ts)
// mounted at its path, behind the authentication of its interface (customer: an account's API key in
// the password field, then the role matrix of the document's x-roles; instance: an instance API key,
// in the password field or else the user field, with full access to its own instance). The request
// pipeline and the one place errors become answers are src/http/app.ts.
import type { Hono } from 'hono';
import { createApiApp, type ApiAppOptions, type Route } from './http/app.js';
import type { RateLimiter } from './http/rate-limit.js';
import { forbidden } from './core/errors.js';
import type { InterfaceName, OpenApiDocument } from './openapi/documents.js';
import type { SchemaSet } from './openapi/ajv.js';
import { readOperations } from './openapi/operations.js';
import type { OperationValidator } from './openapi/requests.js';
import type { Databases } from './databases/instance-databases.js';
import type { Registry } from './accounts/registry.js';
import type { CustomerEnv, CustomerPrincipal, InstanceEnv, InstancePrincipal } from './resources/env.js';
import { regionsApp } from './resources/regions/routes.js';
import { plansApp } from './resources/plans/routes.js';
import { instancesApp } from './resources/instances/routes.js';
import { invoicesApp } from './resources/invoices/routes.js';
import { auditLogApp } from './resources/auditlog/routes.js';
import { teamApp } from './resources/team/routes.js';
import { apiKeysApp } from './resources/apikeys/routes.js';
import { backupsApp } from './resources/backups/routes.js';
import { rotationApp } from './resources/rotation/routes.js';
import { recipientsApp } from './resources/recipients/routes.js';
import { alarmsApp } from './resources/alarms/routes.js';
import { integrationsApp } from './resources/integrations/routes.js';
import { maintenanceApp } from './resources/maintenance/routes.js';

export type { CustomerEnv, CustomerOperations, InstanceEnv, InstanceOperations } from './resources/env.js';

/**
 * What the apps of both interfaces are built from (src/server.ts builds it): the documents, the
 * validators compiled from them, the registry (every account's home, and the server's faults,
 * journal and coverage), the rate limiter and, when on, the databases behind the instances.
 */
export interface AppDependencies {
  documents: Record<InterfaceName, OpenApiDocument>;
  schemas: SchemaSet;
  registry: Registry;
  limiter: RateLimiter;
  /** The real databases behind the instances, when a database engine is on. */
  databases?: Databases;
}

/** What server.ts adds to an interface's app: observers, extensions, simulation and answer modes. */
type Extra<P> = Pick<
  ApiAppOptions<P>,
  'onResponse' | 'onAnswer' | 'extensions' | 'simulation' | 'answers' | 'strictFields'
>;

export function mountCustomerResources(app: Hono<CustomerEnv>, route: Route): void {
  app.route('/api/instances', instancesApp(route));
  app.route('/api/invoices', invoicesApp(route));
  app.route('/api/auditlog', auditLogApp(route));
  app.route('/api/regions', regionsApp(route));
  app.route('/api/team', teamApp(route));
  app.route('/api/apikeys', apiKeysApp(route));
  app.route('/api/plans', plansApp(route));
}

export function mountInstanceResources(
  app: Hono<InstanceEnv>,
  route: Route,
  validators: ReadonlyMap<string, OperationValidator>,
): void {
  app.route('/api/backup', backupsApp(route));
  app.route('/api/account', rotationApp(route));
  // Before the alarms: /api/alarms/{id} would also match /api/alarms/recipients.
  app.route('/api/alarms/recipients', recipientsApp(route));
  app.route('/api/alarms', alarmsApp(route));
  app.route('/api/integrations/logs', integrationsApp('logs', route, validators));
  app.route('/api/integrations/metrics', integrationsApp('metrics', route, validators));
  app.route('/api/maintenance', maintenanceApp(route));
}

/** The roles of the document's x-roles, per operation. */
function roleMatrix(doc: OpenApiDocument): Map<string, Set<string>> {
  return new Map(
    readOperations('customer', doc).map((o) => [
      o.operationId,
      new Set((o.raw['x-roles'] as string[] | undefined) ?? []),
    ]),
  );
}

export function createCustomerApp(deps: AppDependencies, extra: Extra<CustomerPrincipal> = {}) {
  const roles = roleMatrix(deps.documents.customer);
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
    clockOf: (principal) => principal.account.ctx.clock,
    mount: mountCustomerResources,
    ...extra,
  });
}

export function createInstanceApp(deps: AppDependencies, extra: Extra<InstancePrincipal> = {}) {
  return createApiApp<InstancePrincipal>({
    api: 'instance',
    doc: deps.documents.instance,
    schemas: deps.schemas,
    authenticate: {
      keyField: 'password-or-user',
      resolve: (key) => {
        const principal = deps.registry.authenticateInstance(key);
        return principal && { principal, credentialId: `instance:${principal.account.id}:${principal.instance.id}` };
      },
    },
    limiter: () => deps.limiter,
    // Rate-limit windows run on the account's clock, so a test that moves it rolls them.
    clockOf: (principal) => principal.account.ctx.clock,
    mount: mountInstanceResources,
    ...extra,
  });
}
