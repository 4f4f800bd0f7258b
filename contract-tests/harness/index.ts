// What a contract test file needs: `const t = useContract()` in the file, then `t.api` in tests.
// The target is opened once per file and closed after it; resources a test creates through
// `t.created(...)` are deleted after the file, so the target is left as it was found.
import { afterAll, beforeAll } from 'vitest';
import { Contract } from './contract.js';
import { Client } from './client.js';
import { openTarget, type Target, type TargetOptions } from './target.js';

export { Contract, ContractViolation } from './contract.js';
export {
  Client,
  formEncode,
  recordObserved,
  sentRequest,
  type Call,
  type CustomerSchema,
  type InstanceSchema,
  type CustomerOperationId,
  type InstanceOperationId,
  type TypedResponse,
} from './client.js';
export type { Target, TargetOptions } from './target.js';

export interface ContractContext {
  readonly api: Client;
  readonly contract: Contract;
  readonly target: Target;
  /** Registers a clean-up to run after the file (in reverse order). */
  cleanup(fn: () => Promise<unknown>): void;
}

/**
 * How long a new instance may take to turn ready: a deployment provisions (and, with real
 * databases, creates a database) at its own pace, slower on a busy machine. A wait ends as soon as
 * the instance is ready, so a generous bound costs nothing when the target is quick.
 */
export const READY_PATIENCE_MS = 120_000;

/**
 * How long a callback may take to arrive: the in-process target completes backups and restores in
 * 200 ms, but a busy machine may be much slower (30 s); a deployment (the reference
 * implementation's default is 5 s, a real one may take minutes) gets TUSK_CALLBACK_TIMEOUT_MS, 60 s
 * by default. A wait ends when the callback arrives: a generous bound costs nothing.
 */
export const callbackPatience = (t: ContractContext) =>
  t.target.inProcess ? 30_000 : Number(process.env.TUSK_CALLBACK_TIMEOUT_MS ?? 60_000);

/** `options.rateLimit` starts the in-process reference implementation with that rate limit (ignored for an external target). */
export function useContract(options: TargetOptions = {}): ContractContext {
  let api: Client | undefined;
  let opened: Target | undefined;
  const cleanups: (() => Promise<unknown>)[] = [];
  beforeAll(async () => {
    // Kept as soon as it is open, so that afterAll closes it (and its embedded Postgres) also when
    // loading the contract fails.
    const [contract, target] = await Promise.all([
      Contract.load(),
      openTarget(process.env, options).then((t) => (opened = t)),
    ]);
    api = new Client(contract, target);
  });
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn().catch(() => undefined);
    await opened?.close();
  });
  const get = () => {
    if (!api) throw new Error('useContract(): the target is not open yet (use it inside tests or hooks)');
    return api;
  };
  return {
    get api() {
      return get();
    },
    get contract() {
      return get().contract;
    },
    get target() {
      return get().target;
    },
    cleanup(fn) {
      cleanups.push(fn);
    },
  };
}

/** Creates an instance through the customer interface and deletes it after the file. */
export async function createInstance(
  t: ContractContext,
  overrides: { shared?: boolean; name?: string; backendKind?: string } = {},
): Promise<{ id: number; apikey: string; plan: string; region: string }> {
  const plans = (await t.api.customer('listPlans')).body;
  const plan = plans.find(
    (p) => p.shared === Boolean(overrides.shared) && (!overrides.backendKind || p.backend === overrides.backendKind),
  );
  if (!plan) throw new Error(`the target offers no ${overrides.shared ? 'shared' : 'dedicated'} plan`);
  const regions = (await t.api.customer('listRegions')).body;
  const region = regions.find((r) => !overrides.shared || r.has_shared_plans);
  if (!region) throw new Error('the target offers no region for that plan');
  const name = overrides.name ?? `contract-${Math.random().toString(36).slice(2, 10)}`;
  const res = await t.api.customer('createInstance', {
    body: { name, plan: plan.name, region: `${region.provider}::${region.region}` },
  });
  if (res.status !== 200) throw new Error(`createInstance answered ${res.status}: ${res.text}`);
  const { id, apikey } = res.body;
  t.cleanup(() => t.api.customer('deleteInstance', { params: { id }, unchecked: true }));
  return { id, apikey, plan: plan.name, region: `${region.provider}::${region.region}` };
}
