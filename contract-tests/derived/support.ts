// Resources the generated checks create for themselves (never seeded ones): an instance of a
// dedicated plan for the instance interface, and one resource of each creatable kind, each built
// from the documents (derive.ts) and deleted after the file.
import type { Response } from 'supertest';
import type { InterfaceName } from '../../src/openapi/documents.js';
import type { OperationInfo } from '../../src/openapi/operations.js';
import { createInstance, READY_PATIENCE_MS, type Call, type ContractContext } from '../harness/index.js';
import { baseBody, bodyShape, createSystems, itemParams, type ResourcePair } from './derive.js';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Created {
  pair: ResourcePair;
  id: string | number;
  /** The system token in the create path (per-system integrations). */
  system?: string;
  body: Record<string, unknown>;
  response: Response;
}

/** Items of a list response (an array body, or the first array member of an object body). */
export function itemsOf(res: Response): Record<string, unknown>[] {
  const b = res.body as unknown;
  if (Array.isArray(b)) return b as Record<string, unknown>[];
  if (b && typeof b === 'object') {
    const arr = Object.values(b).find(Array.isArray);
    if (arr) return arr as Record<string, unknown>[];
  }
  return [];
}

export const idOf = (item: Record<string, unknown> | undefined) =>
  item && (typeof item.id === 'number' || typeof item.id === 'string') ? item.id : undefined;

export class Resources {
  private instance?: Promise<{ id: number; apikey: string; plan: string; region: string }>;
  private readonly own = new Map<string, Promise<Created>>();

  constructor(private readonly t: ContractContext) {}

  /** An instance of a dedicated plan, created through the customer interface (once per file), ready. */
  ownInstance(): Promise<{ id: number; apikey: string; plan: string; region: string }> {
    this.instance ??= (async () => {
      const created = await createInstance(this.t);
      await this.waitReady(created.id);
      return created;
    })();
    return this.instance;
  }

  private member?: Promise<string>;

  /** A team member of the suite's own: invited with a fresh e-mail, found in the list, removed after the file. */
  ownTeamMember(): Promise<string> {
    this.member ??= (async () => {
      const email = `contract-${Math.random().toString(36).slice(2, 10)}@example.com`;
      const invited = await this.t.api.customer('inviteTeamMember', { body: { email, role: 'member' } });
      this.t.api.expectStatus(invited, 200);
      this.t.cleanup(() => this.t.api.customer('removeTeamMember', { body: { email }, unchecked: true }));
      const team = (await this.t.api.customer('listTeamMembers')).body as { id: string; email: string }[];
      const id = team.find((m) => m.email.toLowerCase() === email)?.id;
      if (!id) throw new Error(`the invited member ${email} is not listed by listTeamMembers`);
      return id;
    })();
    return this.member;
  }

  /** Polls getInstance until the instance reports ready (or READY_PATIENCE_MS pass; then the checks run anyway). */
  async waitReady(id: number): Promise<void> {
    const until = Date.now() + READY_PATIENCE_MS;
    while (Date.now() < until) {
      const res = await this.t.api.customer('getInstance', { params: { id }, unchecked: true });
      if (res.status === 200 && (res.body as { ready?: boolean }).ready !== false) return;
      await sleep(200);
    }
  }

  /** The credentials of an interface: the admin key, or the key of the suite's own instance. */
  async key(api: InterfaceName): Promise<string> {
    return api === 'customer' ? this.t.target.apiKey : (await this.ownInstance()).apikey;
  }

  async call(op: OperationInfo, call: Omit<Call, 'key'> = {}): Promise<Response> {
    return this.t.api.call(op.api, op.operationId, { ...call, key: await this.key(op.api) });
  }

  /** Lists the resources of a pair (its list operation), or undefined when it has none. */
  async list(pair: ResourcePair): Promise<Record<string, unknown>[] | undefined> {
    if (!pair.list) return undefined;
    const res = await this.call(pair.list);
    this.t.api.expectStatus(res, '2XX');
    return itemsOf(res);
  }

  /**
   * Creates one resource of a pair from the document's request example (required fields only),
   * and deletes it after the file. The customer interface's instances are created by the harness's
   * createInstance (it picks a plan and region the target offers). Per-system integrations try the
   * systems the example fits until the target accepts one (availability depends on the instance).
   */
  async create(pair: ResourcePair): Promise<Created> {
    if (pair.api === 'customer' && pair.create.operationId === 'createInstance') {
      const inst = await createInstance(this.t);
      const res = await this.t.api.customer('getInstance', { params: { id: inst.id } });
      return { pair, id: inst.id, body: { plan: inst.plan, region: inst.region }, response: res };
    }
    const shape = bodyShape(this.t.contract, pair.create);
    const before = await this.list(pair);
    let last: Response | undefined;
    for (const system of createSystems(this.t.contract, pair.create)) {
      const body = shape ? baseBody(this.t.contract, shape, { system }) : {};
      const params = system !== undefined ? itemParams(this.t.contract, pair.create, 0, system) : {};
      const res = await this.call(pair.create, { params, ...(shape ? { body } : {}) });
      last = res;
      if (res.status >= 300) continue;
      let id = idOf(res.body as Record<string, unknown>);
      if (id === undefined && before) {
        const seen = new Set(before.map(idOf));
        id = idOf((await this.list(pair))?.find((i) => !seen.has(idOf(i))));
      }
      if (id === undefined)
        throw new Error(
          `${pair.create.operationId} answered ${res.status} but neither its body nor ${pair.list?.operationId ?? 'a list operation'} shows the new resource's id`,
        );
      const created: Created = { pair, id, ...(system !== undefined ? { system } : {}), body, response: res };
      const cleanupId = id;
      this.t.cleanup(async () =>
        this.call(pair.remove, {
          params: itemParams(this.t.contract, pair.remove, cleanupId, system),
          unchecked: true,
        }),
      );
      return created;
    }
    this.t.api.expectStatus(last!, '2XX', `creating a ${pair.tag} resource from the document's request example`);
    throw new Error('unreachable');
  }

  /** One resource of the pair for the whole file (created on first use). */
  ownResource(pair: ResourcePair): Promise<Created> {
    const key = `${pair.api} ${pair.tag}`;
    let p = this.own.get(key);
    if (!p) {
      p = this.create(pair);
      this.own.set(key, p);
    }
    return p;
  }
}

/** One wave of requests sent at once: when it was sent, when its last answer came, how many. */
export interface Wave {
  sent: number;
  done: number;
  requests: number;
}

/**
 * The most requests that were surely handled within one span of `windowMs`: those of the waves
 * sent at or after its start and answered before its end (each reached the target in between).
 */
export function mostWithin(waves: Wave[], windowMs: number): number {
  let most = 0;
  for (let i = 0; i < waves.length; i++) {
    let n = 0;
    for (let j = i; j < waves.length && waves[j]!.sent < waves[i]!.sent + windowMs; j++)
      if (waves[j]!.done <= waves[i]!.sent + windowMs) n += waves[j]!.requests;
    most = Math.max(most, n);
  }
  return most;
}
