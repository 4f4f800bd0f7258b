// Builds and starts Tusk: the documents, the validators compiled from them, the registry of stores,
// and one HTTP server per interface.
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import type { Context } from 'hono';
import { loadDocuments, type InterfaceName, type OpenApiDocument } from './openapi/documents.js';
import { SchemaSet } from './openapi/ajv.js';
import { readContractRules } from './openapi/rules.js';
import { Registry, type RegistryOptions } from './store/registry.js';
import { RateLimiter, parseRateLimit } from './http/rate-limit.js';
import { createCustomerApp } from './customer/app.js';
import { createInstanceApp } from './instance/app.js';
import { DEFAULT_ADMIN_KEY, DEFAULT_SEED } from '../fixtures/index.js';

export interface TuskOptions {
  host?: string;
  /** 0 picks a free port. */
  customerPort?: number;
  instancePort?: number;
  /** The seeded account's admin key. */
  apiKey?: string;
  seed?: number;
  provisionDelayMs?: number;
  /** `N/S`: N requests per S seconds and key. */
  rateLimit?: string;
  /** Request log: one line per request as text, as JSON, or none. */
  log?: 'text' | 'json' | 'off';
  registry?: Omit<RegistryOptions, 'seed' | 'adminKey' | 'provisionDelayMs' | 'rules'>;
}

export const DEFAULTS = {
  host: '127.0.0.1',
  customerPort: 4010,
  instancePort: 4011,
  apiKey: DEFAULT_ADMIN_KEY,
  seed: DEFAULT_SEED,
  provisionDelayMs: 1000,
  rateLimit: '1000/1',
  log: 'text',
} as const;

export interface AppDependencies {
  documents: Record<InterfaceName, OpenApiDocument>;
  schemas: SchemaSet;
  registry: () => Registry;
  limiter: RateLimiter;
}

export interface Tusk {
  deps: AppDependencies;
  registry: Registry;
  customer: ReturnType<typeof createCustomerApp>;
  instance: ReturnType<typeof createInstanceApp>;
}

function requestLogger(format: 'text' | 'json', api: InterfaceName) {
  return (c: Context, ms: number) => {
    const line = { api, method: c.req.method, path: c.req.path, status: c.res.status, ms: Math.round(ms * 10) / 10 };
    console.log(format === 'json' ? JSON.stringify(line) : `${api.padEnd(8)} ${line.method.padEnd(6)} ${line.path} ${line.status} ${line.ms}ms`);
  };
}

/** Builds the apps without listening (in-process use: `tusk.customer.fetch(request)`). */
export async function createTusk(options: TuskOptions = {}): Promise<Tusk> {
  const o = { ...DEFAULTS, ...options };
  const documents = await loadDocuments();
  const registry = new Registry({ seed: o.seed, adminKey: o.apiKey, provisionDelayMs: o.provisionDelayMs, rules: readContractRules(documents.instance), ...o.registry });
  const { limit, windowMs } = parseRateLimit(o.rateLimit);
  const deps: AppDependencies = {
    documents,
    schemas: new SchemaSet(documents),
    registry: () => registry,
    limiter: new RateLimiter({ limit, windowMs, clock: registry.clock }),
  };
  const log = o.log === 'off' ? undefined : o.log;
  return {
    deps,
    registry,
    customer: createCustomerApp(deps, log ? { onResponse: requestLogger(log, 'customer') } : {}),
    instance: createInstanceApp(deps, log ? { onResponse: requestLogger(log, 'instance') } : {}),
  };
}

export interface RunningTusk extends Tusk {
  customerUrl: string;
  instanceUrl: string;
  close(): Promise<void>;
}

function listen(fetch: (req: Request) => Response | Promise<Response>, hostname: string, port: number): Promise<ServerType> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, hostname, port }, () => resolve(server));
    server.once('error', reject);
  });
}

const urlOf = (host: string, server: ServerType) => {
  const { port } = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
};

/** Builds Tusk and starts both HTTP servers. */
export async function startTusk(options: TuskOptions = {}): Promise<RunningTusk> {
  const host = options.host ?? DEFAULTS.host;
  const tusk = await createTusk(options);
  const customer = await listen(tusk.customer.fetch, host, options.customerPort ?? DEFAULTS.customerPort);
  let instance: ServerType;
  try {
    instance = await listen(tusk.instance.fetch, host, options.instancePort ?? DEFAULTS.instancePort);
  } catch (err) {
    customer.close();
    throw err;
  }
  const ticker = setInterval(() => tusk.registry.outbox.tick(), 100);
  ticker.unref();
  const close = (s: ServerType) => new Promise<void>((resolve) => {
    s.close(() => resolve());
    (s as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
  });
  return {
    ...tusk,
    customerUrl: urlOf(host, customer),
    instanceUrl: urlOf(host, instance),
    async close() {
      clearInterval(ticker);
      await Promise.all([close(customer), close(instance)]);
      await tusk.registry.outbox.settle();
    },
  };
}
