// The contract as the tests see it: both bundled documents, their operation tables, and one check
// that any HTTP response honours the document for its operation (declared status, content type,
// body schema, required headers).
import { loadDocuments, type InterfaceName, type OpenApiDocument } from '../../src/openapi/documents.js';
import { readOperations, type OperationInfo } from '../../src/openapi/operations.js';
import { SchemaSet } from '../../src/openapi/ajv.js';

/** The parts of an HTTP response the check reads (supertest's Response fits). */
export type { ResponseLike } from '../../src/openapi/exchange.js';
import { responseDepartures, type ResponseLike } from '../../src/openapi/exchange.js';

/** The request a response answered, as the summary of a run names it. */
export interface RequestLine {
  method: string;
  path: string;
}

export interface ViolationDetails {
  /** The request that got the response (method and filled path). */
  request?: RequestLine;
  /** The statuses the document declares for the operation. */
  declared?: string[];
  /** What the test expected, in words (`400`, `404 or 410`, a status the document declares, ...). */
  expected?: string;
  /** What came back, in words, where the response's status and content type do not say it (rows read from a database). */
  got?: string;
}

/**
 * A departure from the contract: the operation, the request, what was expected and what came back.
 * Thrown by `Contract.check` (the response is not what the document allows) and by
 * `expectStatus` (the document allows the response, but the test provoked another outcome).
 */
export class ContractViolation extends Error {
  readonly request?: RequestLine;
  readonly declared?: string[];
  readonly expected: string;
  readonly got: string;

  constructor(
    readonly operation: string,
    readonly violations: string[],
    readonly response: ResponseLike,
    details: ViolationDetails = {},
  ) {
    const expected =
      details.expected ??
      (details.declared ? `a declared response (${details.declared.join(', ')})` : 'a declared response');
    const got = details.got ?? `${response.status}${contentTypeOf(response) ? ` ${contentTypeOf(response)}` : ''}`;
    const request = details.request ? ` (${details.request.method.toUpperCase()} ${details.request.path})` : '';
    super(
      `${operation} departs from the contract${request}:\n  - ${violations.join('\n  - ')}\n  expected ${expected}, got ${got}\n  response ${response.status}: ${(response.text ?? '').slice(0, 500)}`,
    );
    this.name = 'ContractViolation';
    this.request = details.request;
    this.declared = details.declared;
    this.expected = expected;
    this.got = got;
  }
}

function contentTypeOf(res: ResponseLike): string {
  const v = res.headers['content-type'];
  return (Array.isArray(v) ? v.join(', ') : (v ?? '')).split(';')[0]!.trim();
}

export class Contract {
  readonly operations: Record<InterfaceName, Map<string, OperationInfo>>;
  readonly schemas: SchemaSet;

  constructor(readonly documents: Record<InterfaceName, OpenApiDocument>) {
    this.schemas = new SchemaSet(documents);
    this.operations = {
      customer: new Map(readOperations('customer', documents.customer).map((o) => [o.operationId, o])),
      instance: new Map(readOperations('instance', documents.instance).map((o) => [o.operationId, o])),
    };
  }

  static async load(): Promise<Contract> {
    return new Contract(await loadDocuments());
  }

  operation(api: InterfaceName, operationId: string): OperationInfo {
    const op = this.operations[api].get(operationId);
    if (!op) throw new Error(`the ${api} document has no operation ${operationId}`);
    return op;
  }

  /** Every way the response departs from the document; empty when it conforms (src/openapi/exchange.ts, shared with the proxy). */
  violations(api: InterfaceName, operationId: string, res: ResponseLike): string[] {
    return responseDepartures(this.schemas, this.operation(api, operationId), res).map((d) => d.message);
  }

  /** Throws a ContractViolation naming every departure; returns the response for chaining. */
  check<R extends ResponseLike>(api: InterfaceName, operationId: string, res: R, request?: RequestLine): R {
    const violations = this.violations(api, operationId, res);
    if (violations.length) {
      throw new ContractViolation(`${api} ${operationId}`, violations, res, {
        request,
        declared: this.declaredStatuses(api, operationId),
      });
    }
    return res;
  }

  /** The response statuses the document declares for an operation, in document order. */
  declaredStatuses(api: InterfaceName, operationId: string): string[] {
    return [...this.operation(api, operationId).responses.keys()];
  }
}
