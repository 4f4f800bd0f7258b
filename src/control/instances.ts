// Alarms that fire: simulated metrics and events of an instance (outside the contract).
//   GET  /__tusk/instances/{instance_id}/metrics   the metrics and every alarm's state
//   PUT  /__tusk/instances/{instance_id}/metrics   merge metrics: {"cpu": 95, "memory": 40, "disk_used_gb": 12, "disk_total_gb": 100}
//   POST /__tusk/instances/{instance_id}/events    raise an event: {"type": "server_unreachable" | "netsplit" | "notice", "message"?: "..."}
// {instance_id} is the id of the customer interface (createInstance's `id`). The control API is not
// scoped to an account, and instance ids are per account, so the instance is found by:
//   1. `?account=ACCOUNT_ID`, when given; else
//   2. the request's HTTP Basic key, when it has one: a customer key names its account, an
//      instance key its instance (`curl -u :KEY`, as on the APIs); else
//   3. the one instance with that id across all accounts (400 when several accounts have one).
// The rules of evaluation are in src/resources/alarms/monitor.ts.
import { Hono, type Context } from 'hono';
import { ApiError, invalid } from '../core/errors.js';
import { keyOfHeader } from '../core/basic-auth.js';
import type { InstanceStore } from '../resources/instances/instance.js';
import type { AccountStore } from '../resources/account.js';
import type { Registry } from '../accounts/registry.js';
import type { ControlDeps } from './deps.js';
import { controlBody } from './body.js';

/** Finds the instance a control request names (see the header of this file); throws 400/404. */
export function findInstance(registry: Registry, c: Context): { account: AccountStore; instance: InstanceStore } {
  const raw = c.req.param('instance_id') ?? '';
  if (!/^[1-9]\d{0,9}$/.test(raw))
    throw invalid(
      'instance_id',
      'type',
      `must be a positive integer (the instance's id on the customer interface), got "${raw}"`,
    );
  const id = Number(raw);
  const accountId = c.req.query('account');
  if (accountId !== undefined) {
    const account = registry.home(accountId)?.records;
    if (!account) throw new ApiError(404, `Not found: no account with id ${accountId}`);
    const instance = account.instanceStore(id);
    if (!instance) throw new ApiError(404, `Not found: account ${accountId} has no instance with id ${id}`);
    return { account, instance };
  }
  const key = keyOfHeader(c.req.header('authorization'));
  if (key) {
    const customer = registry.authenticateCustomer(key);
    if (customer) {
      const instance = customer.account.instanceStore(id);
      if (!instance) throw new ApiError(404, `Not found: the key's account has no instance with id ${id}`);
      return { account: customer.account, instance };
    }
    const own = registry.authenticateInstance(key);
    if (own) {
      if (own.instance.id !== id)
        throw new ApiError(404, `Not found: the instance key opens instance ${own.instance.id}, not ${id}`);
      return { account: own.account, instance: own.instance };
    }
    throw new ApiError(
      404,
      "Not found: the request's key is no key of any account or instance (send none, or ?account=ACCOUNT_ID)",
    );
  }
  const found: { account: AccountStore; instance: InstanceStore }[] = [];
  for (const { records: account } of registry.allHomes()) {
    const instance = account.instanceStore(id);
    if (instance) found.push({ account, instance });
  }
  if (found.length === 0) throw new ApiError(404, `Not found: no account has an instance with id ${id}`);
  if (found.length > 1) {
    throw invalid(
      'account',
      'ambiguous',
      `instance id ${id} exists in ${found.length} accounts (${found.map((f) => f.account.id).join(', ')}); add ?account=ACCOUNT_ID or send a key of the account`,
    );
  }
  return found[0]!;
}

function view(registry: Registry, account: AccountStore, instance: InstanceStore) {
  return {
    instance: { id: instance.id, account: account.id, name: instance.name },
    now: new Date(account.ctx.clock.now()).toISOString(),
    metrics: instance.monitor.metrics,
    alarms: instance.monitor.status(),
  };
}

export function instanceRoutes(deps: ControlDeps): Hono {
  const app = new Hono();

  app.get('/:instance_id/metrics', (c) => {
    const registry = deps.registry;
    const { account, instance } = findInstance(registry, c);
    registry.tick();
    return c.json(view(registry, account, instance));
  });

  app.put('/:instance_id/metrics', async (c) => {
    const registry = deps.registry;
    const { account, instance } = findInstance(registry, c);
    instance.monitor.setMetrics(await controlBody(c, deps.document, 'setInstanceMetrics'));
    registry.tick();
    return c.json(view(registry, account, instance));
  });

  app.post('/:instance_id/events', async (c) => {
    const registry = deps.registry;
    const { account, instance } = findInstance(registry, c);
    const { type, message } = await controlBody(c, deps.document, 'raiseInstanceEvent');
    const notified = instance.monitor.raise(type, message);
    registry.tick();
    return c.json({ instance: { id: instance.id, account: account.id, name: instance.name }, type, notified });
  });

  return app;
}
