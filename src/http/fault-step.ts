// The pipeline step that applies injected faults (the rules and what they decide are
// src/domain/fault-rules.ts). It runs first in an operation's pipeline, before authentication:
// latency, then a reset, then an error. An injected error or reset never reaches the stores, so
// nothing changes; an injected error is the operation's declared response for the status (an Error
// body and the declared headers, e.g. Retry-After for 429) plus `Tusk-Fault: error`.
import type { Context, MiddlewareHandler, Next } from 'hono';
import type { OpenApiDocument } from '../openapi/documents.js';
import type { OperationInfo } from '../openapi/operations.js';
import type { FaultDecision, Faults } from '../domain/fault-rules.js';
import { exampleHeaders, responseKeyFor, responseObject } from './examples.js';

/** Raised to close a connection without an answer; the apps' error handler lets it through. */
export class ConnectionReset extends Error {
  constructor() {
    super('tusk: connection reset by an injected fault');
    this.name = 'ConnectionReset';
  }
}

/** The answer of an injected error: the declared response of the status with an Error body. */
export function faultResponse(doc: OpenApiDocument, op: OperationInfo, status: number, rule: number): Response {
  const key = responseKeyFor(op, status);
  const declared = key ? responseObject(doc, op, key) : undefined;
  const headers = new Headers(declared ? exampleHeaders(doc, declared) : {});
  headers.set('content-type', 'application/json');
  headers.set('Tusk-Fault', 'error');
  const body = {
    error: `Injected fault: HTTP ${status} for ${op.operationId} (fault rule ${rule + 1}, see /__tusk/faults)`,
  };
  return new Response(JSON.stringify(body), { status, headers });
}

export interface FaultStepOptions {
  /** The document of the operation's interface (the declared answer of an injected error). */
  doc: OpenApiDocument;
  op: OperationInfo;
  /** The rules of the whole server, which every request meets. */
  server: () => Faults | undefined;
  /**
   * The rules of the account the request's key belongs to (its home's), which decide first: a
   * request of an account meets its account's faults and the server's, never another account's.
   */
  account?: (c: Context) => Faults | undefined;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The fault step of one operation. */
export function faultStep(options: FaultStepOptions): MiddlewareHandler {
  const { doc, op } = options;
  // Not async: with no fault decided the step passes on synchronously (see composeSteps).
  return (c, next) => {
    const mine = options.account?.(c)?.decide(op.api, op.operationId);
    if (mine) return inject(c, next, mine);
    const d = options.server()?.decide(op.api, op.operationId);
    return d ? inject(c, next, d) : next();
  };
  async function inject(c: Context, next: Next, d: FaultDecision) {
    if (d.latencyMs > 0) await sleep(d.latencyMs);
    if (d.reset) {
      // With @hono/node-server the Node request is c.env.incoming: close its socket. In-process
      // (app.fetch without a server) the ConnectionReset rejects the fetch instead.
      const incoming = (c.env as { incoming?: { socket?: { destroy(): void } } } | undefined)?.incoming;
      incoming?.socket?.destroy();
      throw new ConnectionReset();
    }
    if (d.error) return faultResponse(doc, op, d.error.status, d.error.rule);
    return next();
  }
}
