// The types every resource app of the instance interface is written against: the Hono env of the
// pipeline (its principal is an instance) and the operations of the generated types.
import type { PipelineEnv } from '../http/pipeline.js';
import type { InstancePrincipal } from '../store/registry.js';

export type InstanceEnv = PipelineEnv<InstancePrincipal>;
export type { operations as InstanceOperations } from '../generated/instance.js';
