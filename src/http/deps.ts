// What the apps of both interfaces and the control plane are built from (src/server.ts builds it):
// the documents, the validators compiled from them, the registry (every account's home, and the
// server's faults, journal and coverage), the rate limiter and, when on, the databases behind the
// instances.
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import type { SchemaSet } from '../openapi/ajv.js';
import type { Registry } from '../store/registry.js';
import type { Databases } from '../databases/instance-databases.js';
import type { RateLimiter } from './rate-limit.js';

export interface AppDependencies {
  documents: Record<InterfaceName, OpenApiDocument>;
  schemas: SchemaSet;
  registry: Registry;
  limiter: RateLimiter;
  /** The real databases behind the instances, when a database engine is on. */
  databases?: Databases;
}
