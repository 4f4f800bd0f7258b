// The client every contract test uses: it calls an operation of the document by its id, fills the
// path, sends the body as JSON or form data with HTTP Basic, and checks the response against the
// document before the test sees it.
import request from 'supertest';
import type { Response } from 'supertest';
import type { InterfaceName } from '../../src/openapi/documents.js';
import type { Contract } from './contract.js';
import type { Target } from './target.js';

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
  constructor(
    readonly contract: Contract,
    readonly target: Target,
  ) {}

  url(api: InterfaceName, operationId: string, params: Record<string, string | number> = {}): { base: string; method: string; path: string } {
    const op = this.contract.operation(api, operationId);
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
      if (params[name] === undefined) throw new Error(`${operationId} needs the path parameter ${name}`);
      return encodeURIComponent(String(params[name]));
    });
    return { base: api === 'customer' ? this.target.customerUrl : this.target.instanceUrl, method: op.method, path };
  }

  /** Calls a customer operation (admin key by default) and checks the response against the document. */
  customer(operationId: string, call: Call = {}): Promise<Response> {
    return this.call('customer', operationId, { key: this.target.apiKey, ...call });
  }

  /** Calls an instance operation with an instance key and checks the response against the document. */
  instance(operationId: string, key: string | null, call: Omit<Call, 'key'> = {}): Promise<Response> {
    return this.call('instance', operationId, { ...call, key });
  }

  async call(api: InterfaceName, operationId: string, call: Call): Promise<Response> {
    const { base, method, path } = this.url(api, operationId, call.params);
    const res = await this.send(base, method, path, call);
    if (!call.unchecked) this.contract.check(api, operationId, res);
    return res;
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
      if (call.form) return req.type('form').send(formEncode(call.body as Record<string, unknown>)).then((r) => r);
      return req.set('Content-Type', 'application/json').send(JSON.stringify(call.body)).then((r) => r);
    }
    return req.then((r) => r);
  }
}
