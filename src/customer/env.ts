// The types every resource app of the customer interface is written against: the Hono env of the
// pipeline (its principal is a customer key of an account) and the operations of the generated types.
import type { PipelineEnv } from '../http/pipeline.js';
import type { CustomerPrincipal } from '../store/registry.js';

export type CustomerEnv = PipelineEnv<CustomerPrincipal>;
export type { operations as CustomerOperations } from '../generated/customer.js';
