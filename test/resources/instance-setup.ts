// Shared set-up of the InstanceStore unit tests: a registry on a pinned clock, and InstanceStores
// built directly (not through the account store), on any plan of the catalogue.
import { expect } from 'vitest';
import { loadDocuments, type OpenApiDocument } from '../../src/openapi/documents.js';
import { readContractRules, type ContractRules } from '../../src/openapi/rules.js';
import { readOperations } from '../../src/openapi/operations.js';
import { SchemaSet } from '../../src/openapi/ajv.js';
import { OperationValidator } from '../../src/openapi/requests.js';
import { Registry } from '../../src/accounts/registry.js';
import { VirtualClock } from '../../src/domain/clock.js';
import { InstanceStore, type InstanceInit, type SystemBodyValidator } from '../../src/resources/instances/instance.js';
import { ApiError } from '../../src/core/errors.js';
import type { StoreContext } from '../../src/domain/types.js';

export const NOW = Date.UTC(2026, 10, 21, 13, 30, 0); // 2026-11-21 13:30:00 UTC
export const ACCOUNT_ID = '3f8a2c1e-5b7d-4e9a-8c6f-1d2e3f4a5b6c';
export const TEAM_EMAIL = 'team@example.com';
export const BACKUP_DELAY_MS = 5_000;
export const RESTORE_DELAY_MS = 7_000;

export interface Setup {
  registry: Registry;
  clock: VirtualClock;
  ctx: StoreContext;
  /**
   * A new InstanceStore on the plan `planName` (default: a dedicated plan on the >= 4.2 backend),
   * in the registry's context or in `ctx` (the registry's with some options changed).
   */
  instance(over?: Partial<InstanceInit> & { planName?: string }, ctx?: StoreContext): InstanceStore;
  /** The document's per-system body validators of the update operations. */
  validate: { logs: SystemBodyValidator; metrics: SystemBodyValidator };
}

let cache:
  { docs: Record<'customer' | 'instance', OpenApiDocument>; rules: ContractRules; schemas: SchemaSet } | undefined;

export async function setup(): Promise<Setup> {
  if (!cache) {
    const docs = await loadDocuments();
    cache = { docs, rules: readContractRules(docs.instance), schemas: new SchemaSet(docs) };
  }
  const { docs, rules, schemas } = cache;
  const clock = new VirtualClock();
  clock.pin(NOW);
  const registry = new Registry({
    seed: 1,
    adminKey: 'tusk-admin-key',
    rules,
    clock,
    backupDelayMs: BACKUP_DELAY_MS,
    restoreDelayMs: RESTORE_DELAY_MS,
  });
  const ops = new Map(readOperations('instance', docs.instance).map((o) => [o.operationId, o]));
  const validator = (id: string): SystemBodyValidator => {
    const v = new OperationValidator(ops.get(id)!, docs.instance, schemas);
    return (system, body) => v.systemBody(system, body);
  };
  let nextId = 9000;
  return {
    registry,
    clock,
    ctx: registry.context,
    validate: { logs: validator('updateLogIntegration'), metrics: validator('updateMetricsIntegration') },
    instance(over = {}, ctx = registry.context) {
      const { planName = 'hippo', ...init } = over;
      const plan = registry.catalogue.plans.find((p) => p.name === planName)!;
      const backend = registry.catalogue.backends.find((b) => b.name === plan.backend)!;
      const now = clock.now();
      return new InstanceStore(
        {
          id: nextId++,
          accountId: ACCOUNT_ID,
          name: 'orders-db',
          plan,
          backend,
          region: 'amazon-web-services::us-east-1',
          pgVersion: '17',
          teamEmail: TEAM_EMAIL,
          createdAt: now,
          readyAt: now,
          ...init,
        },
        ctx,
      );
    },
  };
}

/**
 * Runs fn, expects an ApiError with this status (and field, named first in the message, and rule,
 * when given), and returns it.
 */
export function refused(fn: () => unknown, status: number, field?: string, rule?: string): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    const e = err as ApiError;
    expect({ status: e.status, field: e.detail.field }).toEqual({ status, field });
    if (field) expect(e.message.startsWith(`${field}: `)).toBe(true);
    if (rule) expect(e.detail.rule).toBe(rule);
    return e;
  }
  throw new Error('expected an ApiError, but the call succeeded');
}

/** Everything the instance interface shows of an instance (a refused request must leave it as it was). */
export function snapshot(i: InstanceStore) {
  return {
    recipients: i.recipients.list(),
    alarms: i.alarms.list(),
    logs: i.integrations['logs'].list(),
    metrics: i.integrations['metrics'].list(),
    backups: i.backups.list(),
    maintenance: i.maintenance.list(),
  };
}

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
