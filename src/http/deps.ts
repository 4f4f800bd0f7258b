// What the apps of both interfaces and the control plane are built from (src/server.ts builds it):
// the documents, the validators compiled from them, the registry of stores, the rate limiter, the
// injected faults and, when on, the databases behind the instances.
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import type { SchemaSet } from '../openapi/ajv.js';
import type { Registry } from '../store/registry.js';
import type { Databases } from '../databases/databases.js';
import type { RateLimiter } from './rate-limit.js';
import type { AccountFaults, Faults } from './faults.js';
import type { CoverageRecorder } from '../openapi/coverage.js';

export interface AppDependencies {
  documents: Record<InterfaceName, OpenApiDocument>;
  schemas: SchemaSet;
  registry: Registry;
  limiter: RateLimiter;
  /** Injected faults of the whole server (GET/PUT/DELETE /__tusk/faults, --fault). */
  faults: Faults;
  /** Injected faults of single accounts (the same controls, scoped to an account). */
  accountFaults: AccountFaults;
  /** What the clients' requests exercised, per operation and status (GET /__tusk/coverage). */
  coverage: CoverageRecorder;
  /** The real databases behind the instances, when a database engine is on. */
  databases?: Databases;
}
