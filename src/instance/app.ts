// The per-instance interface: authentication with an instance API key (password, else user field),
// no roles (an instance key has full access to its own instance), one sub-app per resource.
import type { Hono } from 'hono';
import { createApiApp, type ApiAppOptions, type Route } from '../http/app.js';
import type { PipelineEnv } from '../http/pipeline.js';
import type { InstancePrincipal } from '../store/registry.js';
import type { AppDependencies } from '../server.js';
import type { OperationValidator } from '../openapi/requests.js';

export type InstanceEnv = PipelineEnv<InstancePrincipal>;
export type { operations as InstanceOperations } from '../generated/instance.js';

export function mountInstanceResources(app: Hono<InstanceEnv>, route: Route, validators: ReadonlyMap<string, OperationValidator>): void {
  void app;
  void route;
  void validators;
}

export function createInstanceApp(deps: AppDependencies, extra: Pick<ApiAppOptions<InstancePrincipal>, 'onResponse'> = {}) {
  return createApiApp<InstancePrincipal>({
    api: 'instance',
    doc: deps.documents.instance,
    schemas: deps.schemas,
    authenticate: {
      keyField: 'password-or-user',
      resolve: (key) => {
        const principal = deps.registry().authenticateInstance(key);
        return principal && { principal, credentialId: `instance:${principal.account.id}:${principal.instance.id}` };
      },
    },
    limiter: () => deps.limiter,
    mount: mountInstanceResources,
    ...extra,
  });
}
