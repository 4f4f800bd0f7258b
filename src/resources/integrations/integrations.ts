// The log and metrics integrations of one instance. Both kinds share the record shape and one id
// sequence (so an id names one integration of the instance, of one kind). Bodies are validated
// against the system's branch of the document before they reach this module: on create by the
// pipeline (the path names the system), on update through the `validate` callback the handler
// passes (the system is the stored integration's type, known only here).
import { invalid, notFound, limitReached } from '../../core/errors.js';
import { LIST_CAPS } from '../../core/limits.js';
import { cloneJson } from '../../core/clone.js';
import type { IdSequence } from '../../domain/ids.js';
import type { BrokerKind, Integration } from '../../domain/types.js';

export type IntegrationKind = 'logs' | 'metrics';

/** Validates a body against one system's schema; throws a 400 ApiError. */
export type SystemBodyValidator = (system: string, body: unknown) => unknown;

export interface IntegrationRules {
  accountId: string;
  /** The instance's broker kind and the document's availability table (metrics only). */
  brokerKind(): BrokerKind;
  availability: Record<string, Record<BrokerKind, boolean>>;
}

const copy = (i: Integration): Integration => ({ ...i, config: cloneJson(i.config) });

/** The items of every Integrations that has none yet (never written: create() makes a Map of its own first). */
const NONE: ReadonlyMap<number, Integration> = new Map();

export class Integrations {
  /** Made on the first create or takeover: most instances never have an integration of a kind. */
  private items: ReadonlyMap<number, Integration> | Map<number, Integration> = NONE;

  /** The items, to write to. */
  private writable(): Map<number, Integration> {
    if (this.items === NONE) this.items = new Map<number, Integration>();
    return this.items as Map<number, Integration>;
  }

  /** @param items integrations to take over (a state written by list()) */
  constructor(
    readonly kind: IntegrationKind,
    private readonly ids: IdSequence,
    private readonly rules: IntegrationRules,
    items: Integration[] = [],
  ) {
    for (const i of items) this.writable().set(i.id, copy(i));
  }

  list(): Integration[] {
    return [...this.items.values()].map(copy);
  }

  get(id: number): Integration {
    return copy(this.find(id));
  }

  /** Adds an integration of `system` with the (validated) parameters as its config. */
  create(system: string, config: Record<string, unknown>): Integration {
    if (this.kind === 'metrics') this.checkAvailable(system);
    if (this.items.size >= LIST_CAPS.integrationsPerInstance) {
      throw limitReached(
        `${this.kind} integrations`,
        `an instance has at most ${LIST_CAPS.integrationsPerInstance} ${this.noun()}s; delete one to create another`,
      );
    }
    const id = this.ids.next();
    const i: Integration = { id, type: system, config: cloneJson(config), error: '', account_id: this.rules.accountId };
    this.writable().set(id, i);
    return copy(i);
  }

  /**
   * Replaces the config of integration `id`. With `system` (the alias path), an integration of
   * another type is a 404. The body is validated against the stored type's schema.
   */
  update(id: number, body: unknown, validate: SystemBodyValidator, system?: string): Integration {
    const i = this.find(id);
    if (system !== undefined && i.type !== system) {
      throw notFound(`${system} ${this.noun()}`, id);
    }
    const config = validate(i.type, body) as Record<string, unknown>;
    i.config = cloneJson(config);
    return copy(i);
  }

  delete(id: number): void {
    this.find(id);
    this.writable().delete(id);
  }

  private checkAvailable(system: string): void {
    const kind = this.rules.brokerKind();
    const row = this.rules.availability[system];
    if (row?.[kind]) return;
    throw invalid(
      'system_or_int_id',
      'availability',
      `metrics system ${system} is not available for broker kind ${kind} (the instance's plan backend); see the availability table of createMetricsIntegration`,
    );
  }

  private noun(): string {
    return this.kind === 'logs' ? 'log integration' : 'metrics integration';
  }

  private find(id: number): Integration {
    const i = this.items.get(id);
    if (!i) throw notFound(this.noun(), id);
    return i;
  }
}
