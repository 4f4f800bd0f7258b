// The plans of the catalogue (they never change): the list, filtered by backend, as the bytes of its
// answer kept per filter; a plan by name for the rules that name one (a 400 naming the field when
// there is none), and its backend software.
import type { Catalogue } from '../../../fixtures/index.js';
import { invalid } from '../../core/errors.js';
import { Memo } from '../../core/memo.js';
import type { Backend, Plan } from '../../domain/types.js';

export class Plans {
  private readonly views = new Memo<Uint8Array>({ size: 16 });

  constructor(private readonly catalogue: Catalogue) {}

  list(backend?: string): Plan[] {
    return this.catalogue.plans.filter((p) => backend === undefined || p.backend === backend);
  }

  listJson(backend?: string): Uint8Array {
    return this.views.get(backend ?? '', () => Buffer.from(JSON.stringify(this.list(backend))));
  }

  /** The plan named `name`; a 400 naming `field` when the catalogue has none. */
  find(name: string, field: string): Plan {
    const plan = this.catalogue.plans.find((p) => p.name === name);
    if (!plan) throw invalid(field, 'exists', `${name} is not a plan (see listPlans)`);
    return plan;
  }

  backendOf(plan: Plan): Backend {
    const backend = this.catalogue.backends.find((b) => b.name === plan.backend);
    if (!backend) throw new Error(`catalogue: plan ${plan.name} names the unknown backend ${plan.backend}`);
    return backend;
  }
}
