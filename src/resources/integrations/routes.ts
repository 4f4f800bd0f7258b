// Log and metrics integrations: one factory for both kinds. The path's system token picks the body
// schema on create (the pipeline); on update by id the stored integration's system does, so the
// handler hands the store the document's per-system validator (which applies the request-body
// convention of that system's schema and reports the fields it ignored).
import { Hono, type Context } from 'hono';
import type { Route } from '../../http/app.js';
import { NO_CONTENT, operationsOf } from '../../http/operation.js';
import type { OperationValidator } from '../../openapi/requests.js';
import type { IntegrationKind, SystemBodyValidator } from '../instances/instance.js';
import type { InstanceEnv, InstanceOperations } from '../env.js';

type Ops = InstanceOperations;

const OPERATIONS = {
  logs: {
    list: 'listLogIntegrations',
    get: 'getLogIntegration',
    create: 'createLogIntegration',
    update: 'updateLogIntegration',
    updateWithSystem: 'updateLogIntegrationWithSystem',
    delete: 'deleteLogIntegration',
  },
  metrics: {
    list: 'listMetricsIntegrations',
    get: 'getMetricsIntegration',
    create: 'createMetricsIntegration',
    update: 'updateMetricsIntegration',
    updateWithSystem: 'updateMetricsIntegrationWithSystem',
    delete: 'deleteMetricsIntegration',
  },
} as const;

export function integrationsApp(
  kind: IntegrationKind,
  route: Route,
  validators: ReadonlyMap<string, OperationValidator>,
) {
  const ops = OPERATIONS[kind];
  const validator = validators.get(ops.update);
  if (!validator) throw new Error(`integrationsApp(${kind}): the document has no operation ${ops.update}`);
  const validate =
    (c: Context<InstanceEnv>): SystemBodyValidator =>
    (system, body) => {
      const ignored: string[] = [];
      const value = validator.systemBody(system, body, { strict: c.get('strictFields') === true, ignored });
      if (ignored.length) c.set('ignoredFields', ignored);
      return value;
    };

  const app = new Hono<InstanceEnv>();
  const op = operationsOf<Ops, InstanceEnv>(route);
  app.get(
    '/',
    ...op(ops.list, (c) => {
      return c.get('principal').instance.integrations[kind].list();
    }),
  );
  app.get(
    '/:system_or_int_id',
    ...op(ops.get, (c, { params }) => {
      return c.get('principal').instance.integrations[kind].get(params.system_or_int_id);
    }),
  );
  app.post(
    '/:system_or_int_id',
    ...op(ops.create, (c, { params, body }) => {
      return c
        .get('principal')
        .instance.integrations[kind].create(params.system_or_int_id, body as Record<string, unknown>);
    }),
  );
  app.put(
    '/:system_or_int_id',
    ...op(ops.update, (c, { params, body }) => {
      return c.get('principal').instance.integrations[kind].update(params.system_or_int_id, body, validate(c));
    }),
  );
  app.delete(
    '/:system_or_int_id',
    ...op(ops.delete, (c, { params }) => {
      c.get('principal').instance.integrations[kind].delete(params.system_or_int_id);
      return NO_CONTENT;
    }),
  );
  app.put(
    '/:system/:int_id',
    ...op(ops.updateWithSystem, (c, { params, body }) => {
      return c.get('principal').instance.integrations[kind].update(params.int_id, body, validate(c), params.system);
    }),
  );
  return app;
}
