// The types every resource app is written against: the Hono env of the pipeline, whose principal is
// what the request's key opens (a customer key: its account and key record; an instance key: its
// account and instance; the registry finds them, src/accounts/registry.ts), and the operations of
// the generated types.
import type { PipelineEnv } from '../http/pipeline.js';
import type { AccountStore } from './account.js';
import type { InstanceStore } from './instances/instance.js';
import type { ApiKeyRecord } from '../domain/types.js';

/** What a customer key opens. */
export interface CustomerPrincipal {
  kind: 'customer';
  account: AccountStore;
  key: ApiKeyRecord;
}

/** What an instance key opens. */
export interface InstancePrincipal {
  kind: 'instance';
  account: AccountStore;
  instance: InstanceStore;
}

export type CustomerEnv = PipelineEnv<CustomerPrincipal>;
export type InstanceEnv = PipelineEnv<InstancePrincipal>;
export type { operations as CustomerOperations } from '../generated/customer.js';
export type { operations as InstanceOperations } from '../generated/instance.js';
