// Log and metrics integrations: one factory for both kinds. The path's system token picks the body
// schema on create (the pipeline); on update by id the stored integration's system does, so the
// handler hands the store the document's per-system validator (which applies the request-body
// convention of that system's schema and reports the fields it ignored).
import { Hono, type Context } from 'hono';
import { input, type Route } from '../http/app.js';
import type { ResponseBody } from '../http/types.js';
import type { OperationValidator } from '../openapi/requests.js';
import type { IntegrationKind, SystemBodyValidator } from '../store/instance.js';
import type { Integration } from '../store/types.js';
import type { InstanceEnv, InstanceOperations } from './env.js';

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

export function integrationsApp(kind: IntegrationKind, route: Route, validators: ReadonlyMap<string, OperationValidator>) {
  const ops = OPERATIONS[kind];
  const validator = validators.get(ops.update);
  if (!validator) throw new Error(`integrationsApp(${kind}): the document has no operation ${ops.update}`);
  const validate = (c: Context<InstanceEnv>): SystemBodyValidator => (system, body) => {
    const ignored: string[] = [];
    const value = validator.systemBody(system, body, { strict: c.get('strictFields') === true, ignored });
    if (ignored.length) c.set('ignoredFields', ignored);
    return value;
  };

  const app = new Hono<InstanceEnv>();
  app.get('/', route(ops.list), (c) => {
    const body: ResponseBody<Ops, 'listLogIntegrations'> = c.get('principal').instance.listIntegrations(kind);
    return c.json(body, 200);
  });
  app.get('/:system_or_int_id', route(ops.get), (c) => {
    const { params } = input<Ops, 'getLogIntegration' | 'getMetricsIntegration'>(c);
    const body: ResponseBody<Ops, 'getLogIntegration'> = c.get('principal').instance.getIntegration(kind, params.system_or_int_id);
    return c.json(body, 200);
  });
  app.post('/:system_or_int_id', route(ops.create), (c) => {
    const { params, body } = input<Ops, 'createLogIntegration' | 'createMetricsIntegration'>(c);
    const created: Integration = c.get('principal').instance.createIntegration(kind, params.system_or_int_id, body as Record<string, unknown>);
    return c.json(created, 200);
  });
  app.put('/:system_or_int_id', route(ops.update), (c) => {
    const { params, body } = input<Ops, 'updateLogIntegration' | 'updateMetricsIntegration'>(c);
    const updated: Integration = c.get('principal').instance.updateIntegration(kind, params.system_or_int_id, body, validate(c));
    return c.json(updated, 200);
  });
  app.delete('/:system_or_int_id', route(ops.delete), (c) => {
    const { params } = input<Ops, 'deleteLogIntegration' | 'deleteMetricsIntegration'>(c);
    c.get('principal').instance.deleteIntegration(kind, params.system_or_int_id);
    return c.body(null, 204);
  });
  app.put('/:system/:int_id', route(ops.updateWithSystem), (c) => {
    const { params, body } = input<Ops, 'updateLogIntegrationWithSystem' | 'updateMetricsIntegrationWithSystem'>(c);
    const updated: Integration = c.get('principal').instance.updateIntegration(kind, params.int_id, body, validate(c), params.system);
    return c.json(updated, 200);
  });
  return app;
}
