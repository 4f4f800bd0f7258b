// The client every contract test uses: it calls an operation of the document by its id, fills the
// path, sends the body as JSON or form data with HTTP Basic, and checks the response against the
// document before the test sees it. `customer(opId)` and `instance(opId)` are typed by operationId
// from the types generated from the documents, as openapi-fetch does: an unknown operationId does
// not compile, and the response's body has the type of the operation's success body (tests need no
// record types of their own). `call(api, opId)` is the untyped form, for tests that walk the
// operation table.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import request from 'supertest';
import type { Response } from 'supertest';
import type { InterfaceName } from '../../src/openapi/documents.js';
import { describeError } from '../../src/openapi/ajv.js';
import { ContractViolation, type Contract } from './contract.js';
import { recordKeyRotation, type Target } from './target.js';
import type {
  operations as CustomerOperations,
  components as CustomerComponents,
} from '../../src/generated/customer.js';
import type {
  operations as InstanceOperations,
  components as InstanceComponents,
} from '../../src/generated/instance.js';

export type CustomerOperationId = keyof CustomerOperations;
export type InstanceOperationId = keyof InstanceOperations;
/** The schemas of the two documents, for a test that names a record type (`CustomerSchema<'Plan'>`). */
export type CustomerSchema<N extends keyof CustomerComponents['schemas']> = CustomerComponents['schemas'][N];
export type InstanceSchema<N extends keyof InstanceComponents['schemas']> = InstanceComponents['schemas'][N];

type JsonBody<R> = R extends { content: { 'application/json': infer B } }
  ? B
  : R extends { content: Record<string, infer T> }
    ? T
    : never;
/** The body of an operation's 2XX answers, as its document declares it. */
export type SuccessBody<Op> = Op extends { responses: infer Rs }
  ? { [S in keyof Rs]: S extends 200 | 201 | 202 | 204 ? JsonBody<Rs[S]> : never }[keyof Rs]
  : never;
/** A response whose body has the operation's success type (a test checks the status before it reads the body). */
export type TypedResponse<Op> = Omit<Response, 'body'> & { body: SuccessBody<Op> };

/** The operation and request a response of `Client.call` answered. */
export interface SentRequest {
  api: InterfaceName;
  operationId: string;
  method: string;
  path: string;
}

const sent = new WeakMap<object, SentRequest>();

/** The operation and request behind a response of `Client.call` (undefined for `send`). */
export function sentRequest(res: object): SentRequest | undefined {
  return sent.get(res);
}

/**
 * Records that an (operation, status) pair was observed, as one JSON line in a file of the folder
 * named by TUSK_OBSERVED_DIR (nothing when it is unset). `npm test` reads the folder afterwards to
 * check that every documented status was provoked (scripts/contract-coverage.js).
 */
export function recordObserved(
  line: { api: InterfaceName; operationId: string | null; status: number; path?: string },
  env: NodeJS.ProcessEnv = process.env,
): void {
  const dir = env.TUSK_OBSERVED_DIR;
  if (!dir) return;
  const abs = resolve(dir);
  mkdirSync(abs, { recursive: true });
  appendFileSync(join(abs, `observed-${process.pid}.jsonl`), JSON.stringify(line) + '\n');
}

export interface Call {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  /** Sent as JSON unless `form` is true. */
  body?: unknown;
  /** Send the body as application/x-www-form-urlencoded (arrays and objects as JSON text). */
  form?: boolean;
  /** Raw body text and content type, for malformed input; overrides body. */
  raw?: { text: string; contentType?: string };
  /** The API key; null sends no credentials. Defaults to the target's admin key on the customer interface. */
  key?: string | null;
  /** Skip the contract check (for deliberately off-contract requests, e.g. a wrong method). */
  unchecked?: boolean;
}

export function formEncode(body: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    params.append(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  }
  return params.toString();
}

export class Client {
  /** How far the target's clock runs ahead of this machine's (ms), as its answers tell. */
  private clockOffsetMs = 0;

  constructor(
    readonly contract: Contract,
    readonly target: Target,
  ) {}

  /**
   * The target's time now. A test that picks a time relative to now (a point in time to recover
   * to, a maintenance date) takes it from here, not from this machine: a stand-in whose clock was
   * moved (Tusk's virtual clock, one per account) tells its time in its answers, in `Tusk-Now` and
   * in `Date`. When they agree with this machine within 2 s (a real deployment), its time is used
   * as it is.
   */
  now(): number {
    return Date.now() + this.clockOffsetMs;
  }

  /**
   * Learns the target's time from a successful answer: from `Tusk-Now` (Tusk's own header, ISO 8601
   * with ms, which a reverse proxy passes on), else from `Date` (whole seconds; a proxy in front of
   * the target may have written its own).
   */
  observeDate(res: Pick<Response, 'status' | 'headers'>): void {
    if (res.status >= 400) return;
    const told = Date.parse(String(res.headers['tusk-now'] ?? ''));
    if (Number.isFinite(told)) {
      this.clockOffsetMs = told - Date.now();
      return;
    }
    const date = Date.parse(String(res.headers.date ?? ''));
    if (!Number.isFinite(date)) return;
    const diff = date + 500 - Date.now();
    this.clockOffsetMs = Math.abs(diff) < 2000 ? 0 : diff;
  }

  url(
    api: InterfaceName,
    operationId: string,
    params: Record<string, string | number> = {},
  ): { base: string; method: string; path: string } {
    const op = this.contract.operation(api, operationId);
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (params[name] === undefined) throw new Error(`${operationId} needs the path parameter ${name}`);
      return encodeURIComponent(String(params[name]));
    });
    return { base: api === 'customer' ? this.target.customerUrl : this.target.instanceUrl, method: op.method, path };
  }

  /** Calls a customer operation (admin key by default) and checks the response against the document. */
  customer<K extends CustomerOperationId>(
    operationId: K,
    call: Call = {},
  ): Promise<TypedResponse<CustomerOperations[K]>> {
    return this.call('customer', operationId, { key: this.target.apiKey, ...call }) as Promise<
      TypedResponse<CustomerOperations[K]>
    >;
  }

  /** Calls an instance operation with an instance key and checks the response against the document. */
  instance<K extends InstanceOperationId>(
    operationId: K,
    key: string | null,
    call: Omit<Call, 'key'> = {},
  ): Promise<TypedResponse<InstanceOperations[K]>> {
    return this.call('instance', operationId, { ...call, key }) as Promise<TypedResponse<InstanceOperations[K]>>;
  }

  async call(api: InterfaceName, operationId: string, call: Call): Promise<Response> {
    const { base, method, path } = this.url(api, operationId, call.params);
    const res = await this.send(base, method, path, call);
    this.observeDate(res);
    sent.set(res, { api, operationId, method, path });
    if (!call.unchecked) {
      this.contract.check(api, operationId, res, { method, path });
      recordObserved({ api, operationId, status: res.status });
    }
    // A rotation (the conventions' verb `rotate`) of a key the suite was given replaces that key.
    const fresh = (res.body as { apikey?: unknown } | undefined)?.apikey;
    if (/^rotate/.test(operationId) && res.status < 300 && typeof fresh === 'string' && call.key)
      recordKeyRotation(this.target, call.key, fresh);
    return res;
  }

  /**
   * The body of a 2XX answer whose document leaves it open ("any JSON is accepted"; the reference
   * implementation answers the record), checked to be a record of schema `schema` and typed as one.
   * A test that needs such a body (the id of a created alarm) states here what it relies on.
   */
  record<N extends keyof InstanceComponents['schemas']>(api: 'instance', schema: N, res: Response): InstanceSchema<N>;
  record<N extends keyof CustomerComponents['schemas']>(api: 'customer', schema: N, res: Response): CustomerSchema<N>;
  record(api: InterfaceName, schema: string, res: Response): unknown {
    this.expectStatus(res, '2XX');
    const validate = this.contract.schemas.validator(api, `#/components/schemas/${schema}`);
    if (!validate(res.body)) {
      const req = sentRequest(res);
      throw new ContractViolation(
        req ? `${req.api} ${req.operationId}` : 'a request',
        [`the body is not a ${schema} record: ${describeError(validate.errors![0]!, 'body')}`],
        res,
      );
    }
    return res.body;
  }

  /**
   * Fails with a ContractViolation naming the operation, the request, the expected and the actual
   * status unless the response of `call`/`customer`/`instance` has one of `expected`.
   * `expected` is a status, a list, or a class such as '2XX'.
   */
  expectStatus<R extends Response>(res: R, expected: number | string | (number | string)[], why?: string): R {
    const list = (Array.isArray(expected) ? expected : [expected]).map(String);
    const ok = list.some((e) => (/^[1-5]XX$/i.test(e) ? String(res.status)[0] === e[0] : String(res.status) === e));
    if (ok) return res;
    const req = sentRequest(res);
    const operation = req ? `${req.api} ${req.operationId}` : 'a request';
    const declared = req ? [...this.contract.operation(req.api, req.operationId).responses.keys()] : undefined;
    throw new ContractViolation(
      operation,
      [`${why ? `${why}: ` : ''}expected ${list.join(' or ')}, got ${res.status}`],
      res,
      {
        request: req ? { method: req.method, path: req.path } : undefined,
        declared,
        expected: list.join(' or '),
      },
    );
  }

  /** A raw request: any method and path (for 404/405 checks). */
  send(base: string, method: string, path: string, call: Call): Promise<Response> {
    const agent = request(base) as unknown as Record<string, (path: string) => request.Test>;
    let req = agent[method.toLowerCase()]!(path);
    if (call.key) req = req.auth('', call.key);
    if (call.query) req = req.query(call.query);
    if (call.raw) {
      if (call.raw.contentType) req = req.set('Content-Type', call.raw.contentType);
      return req.send(call.raw.text).then((r) => r);
    }
    if (call.body !== undefined) {
      if (call.form)
        return req
          .type('form')
          .send(formEncode(call.body as Record<string, unknown>))
          .then((r) => r);
      return req
        .set('Content-Type', 'application/json')
        .send(JSON.stringify(call.body))
        .then((r) => r);
    }
    return req.then((r) => r);
  }
}
