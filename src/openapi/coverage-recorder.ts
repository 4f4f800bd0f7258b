// API coverage of a client's traffic: per operation of the documents and per documented
// response status, how often a client's requests were answered with it. The documents' operations
// and statuses are the denominator; traffic outside the contract (a path no operation has, a method
// a path does not take, a status an operation does not declare) is listed apart. Counts are kept
// per account (a CI job sees its own client's coverage) and summed for the whole server. The
// stand-in records what it answered; the proxy (src/proxy/) what the target answered.
import type { InterfaceName } from './documents.js';
import type { OperationInfo } from './operations.js';
import type { components } from '../generated/control.js';

// The report's shapes are the control document's (GET /__tusk/coverage), generated from it.
type S = components['schemas'];
/** One documented status of an operation and how often it was answered. */
export type StatusCoverage = S['StatusCount'];
export type InterfaceCoverage = S['InterfaceCoverage'];
export type OperationCoverage = InterfaceCoverage['by_operation'][number];
export type OutsideTraffic = S['Coverage']['outside'][number];
export type CoverageReport = Omit<S['Coverage'], 'interfaces'> & {
  interfaces: Record<InterfaceName, InterfaceCoverage>;
};

/** The documented response key (`404`, `4XX`, `default`) a status falls under, if any. */
export function documentedKey(op: OperationInfo, status: number): string | undefined {
  const exact = String(status);
  if (op.responses.has(exact)) return exact;
  const range = `${exact[0]}XX`;
  if (op.responses.has(range)) return range;
  return op.responses.has('default') ? 'default' : undefined;
}

const percent = (part: number, whole: number) => (whole === 0 ? 100 : Math.round((part / whole) * 1000) / 10);

/** Counts answers per account, operation and status; reads them back as a CoverageReport. */
export class CoverageRecorder {
  private readonly operations: Record<InterfaceName, OperationInfo[]>;
  private readonly byId: Record<InterfaceName, Map<string, OperationInfo>>;
  /** account ('' for none) -> `api operationId status` -> count */
  private readonly counts = new Map<string, Map<string, number>>();
  /** account -> `api method path status` -> count */
  private readonly outside = new Map<string, Map<string, number>>();
  /** Distinct outside entries kept per account at most (a scanner must not grow memory without bound). */
  private static readonly MAX_OUTSIDE = 1000;

  /** @param operations every operation of both interfaces (readOperations of each document) */
  constructor(operations: readonly OperationInfo[]) {
    this.operations = {
      customer: operations.filter((o) => o.api === 'customer'),
      instance: operations.filter((o) => o.api === 'instance'),
    };
    this.byId = {
      customer: new Map(this.operations.customer.map((o) => [o.operationId, o])),
      instance: new Map(this.operations.instance.map((o) => [o.operationId, o])),
    };
  }

  /** The operation of an interface by its id, if the document has it. */
  operation(api: InterfaceName, operationId: string): OperationInfo | undefined {
    return this.byId[api].get(operationId);
  }

  /** Counts one answer of `operationId` (undefined: a request no operation took, then `method` and `path` name it). */
  record(
    api: InterfaceName,
    operationId: string | undefined,
    status: number,
    account: string | undefined,
    request?: { method: string; path: string },
  ): void {
    const acc = account ?? '';
    if (operationId !== undefined && this.byId[api].has(operationId)) {
      let m = this.counts.get(acc);
      if (!m) this.counts.set(acc, (m = new Map()));
      const key = `${api} ${operationId} ${status}`;
      m.set(key, (m.get(key) ?? 0) + 1);
      return;
    }
    let m = this.outside.get(acc);
    if (!m) this.outside.set(acc, (m = new Map()));
    const key = `${api} ${request?.method ?? '?'} ${request?.path ?? '?'} ${status}`;
    if (m.has(key) || m.size < CoverageRecorder.MAX_OUTSIDE) m.set(key, (m.get(key) ?? 0) + 1);
  }

  /** Forgets every count, or one account's. */
  clear(account?: string): void {
    if (account === undefined) {
      this.counts.clear();
      this.outside.clear();
    } else {
      this.counts.delete(account);
      this.outside.delete(account);
    }
  }

  /** The report of all traffic, or of one account's. */
  report(account?: string): CoverageReport {
    const pick = <T>(m: Map<string, T>) =>
      account === undefined ? [...m.values()] : m.has(account) ? [m.get(account)!] : [];
    const counts = new Map<string, number>();
    let requests = 0;
    for (const m of pick(this.counts))
      for (const [k, n] of m) {
        counts.set(k, (counts.get(k) ?? 0) + n);
        requests += n;
      }
    const outside = new Map<string, number>();
    for (const m of pick(this.outside))
      for (const [k, n] of m) {
        outside.set(k, (outside.get(k) ?? 0) + n);
        requests += n;
      }
    const interfaces = {} as Record<InterfaceName, InterfaceCoverage>;
    for (const api of ['customer', 'instance'] as const) interfaces[api] = this.interfaceCoverage(api, counts);
    return {
      ...(account !== undefined ? { account } : {}),
      requests,
      interfaces,
      outside: [...outside]
        .map(([k, count]) => {
          const [api, method, path, status] = k.split(' ') as [InterfaceName, string, string, string];
          return { api, method, path, status: Number(status), count };
        })
        .sort(
          (a, b) =>
            a.api.localeCompare(b.api) ||
            a.path.localeCompare(b.path) ||
            a.method.localeCompare(b.method) ||
            a.status - b.status,
        ),
    };
  }

  private interfaceCoverage(api: InterfaceName, counts: Map<string, number>): InterfaceCoverage {
    const rows: OperationCoverage[] = this.operations[api].map((op) => {
      const documented = new Map<string, number>([...op.responses.keys()].map((k) => [k, 0]));
      const undocumented = new Map<string, number>();
      const prefix = `${api} ${op.operationId} `;
      for (const [k, n] of counts) {
        if (!k.startsWith(prefix)) continue;
        const status = Number(k.slice(prefix.length));
        const key = documentedKey(op, status);
        if (key !== undefined) documented.set(key, documented.get(key)! + n);
        else undocumented.set(String(status), (undocumented.get(String(status)) ?? 0) + n);
      }
      return {
        operation_id: op.operationId,
        method: op.method.toUpperCase(),
        path: op.path,
        statuses: [...documented].map(([status, count]) => ({ status, count })),
        undocumented: [...undocumented].map(([status, count]) => ({ status, count })),
      };
    });
    const rank = (r: OperationCoverage) =>
      r.statuses.every((s) => s.count === 0) && r.undocumented.length === 0
        ? 0
        : r.statuses.some((s) => s.count === 0)
          ? 1
          : 2;
    const exercised = rows.filter((r) => rank(r) > 0).length;
    const statuses = rows.reduce((n, r) => n + r.statuses.length, 0);
    const seen = rows.reduce((n, r) => n + r.statuses.filter((s) => s.count > 0).length, 0);
    return {
      operations: rows.length,
      operations_exercised: exercised,
      statuses,
      statuses_exercised: seen,
      operations_percent: percent(exercised, rows.length),
      statuses_percent: percent(seen, statuses),
      by_operation: rows
        .map((r, i) => ({ r, i }))
        .sort((a, b) => rank(a.r) - rank(b.r) || a.i - b.i)
        .map(({ r }) => r),
    };
  }
}
