// One account's state and the rules of the customer interface.
import type { AccountFixture, Catalogue } from '../../fixtures/index.js';
import type { InstanceStore } from './instance.js';
import type { ApiKeyRecord, Plan, Region, StoreContext } from './types.js';

export class AccountStore {
  readonly id: string;
  private readonly keys = new Map<string, ApiKeyRecord>();
  private readonly instances = new Map<number, InstanceStore>();

  constructor(
    readonly fixture: AccountFixture,
    readonly catalogue: Catalogue,
    readonly ctx: StoreContext,
  ) {
    this.id = fixture.id;
    for (const k of fixture.keys) {
      this.keys.set(k.id, { ...k });
      ctx.keys.addCustomerKey(k.key, this.id, k.id);
    }
  }

  apiKey(id: string): ApiKeyRecord | undefined {
    return this.keys.get(id);
  }

  instanceStore(id: number): InstanceStore | undefined {
    return this.instances.get(id);
  }

  listRegions(provider?: string): Region[] {
    return this.catalogue.regions.filter((r) => provider === undefined || r.provider === provider);
  }

  listPlans(backend?: string): Plan[] {
    return this.catalogue.plans.filter((p) => backend === undefined || p.backend === backend);
  }
}
