// The per-instance interface: authentication with an instance API key (password, else user field),
// no roles (an instance key has full access to its own instance), one sub-app per resource.
import type { Hono } from 'hono';
import { createApiApp, type ApiAppOptions, type Route } from '../http/app.js';
import type { InstancePrincipal } from '../store/registry.js';
import type { AppDependencies } from '../http/deps.js';
import type { OperationValidator } from '../openapi/requests.js';
import { backupsApp } from './backups.js';
import { rotationApp } from './rotation.js';
import { recipientsApp } from './recipients.js';
import { alarmsApp } from './alarms.js';
import { integrationsApp } from './integrations.js';
import { maintenanceApp } from './maintenance.js';

import type { InstanceEnv } from './env.js';
export type { InstanceEnv, InstanceOperations } from './env.js';

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

export function createInstanceApp(
  deps: AppDependencies,
  extra: Pick<
    ApiAppOptions<InstancePrincipal>,
    'onResponse' | 'onAnswer' | 'extensions' | 'simulation' | 'answers' | 'strictFields'
  > = {},
) {
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
    clockOf: (principal) => principal.home.clock,
    mount: mountInstanceResources,
    ...extra,
  });
}
