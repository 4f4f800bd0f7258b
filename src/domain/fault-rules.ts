// Injected faults, as the server and each account keep them: the rules (per operation or for all
// of them: added latency, fixed or a range; an error status at a rate; a connection reset at a
// rate), their flag form (`tusk serve --fault RULE`) and what they decide for one request. Set
// at start-up and through the control API (GET/PUT/DELETE /__tusk/faults). Deterministic: every
// rule draws from its own PRNG (mulberry32) seeded from the server's --seed and the rule's
// position, restarted whenever the rules are set, so the same requests see the same faults in
// every run. Never Math.random. The pipeline step that applies a decision is src/http/fault-step.ts.
import type { InterfaceName } from '../openapi/documents.js';
import { parseDuration, type DurationUnit } from '../core/duration.js';
import type { OperationInfo } from '../openapi/operations.js';

/** A fault rule as the control API takes and shows it. */
export interface FaultRule {
  /** An operationId; absent or `*`: every operation (of `api`, when given). */
  operation?: string;
  /** Only this interface; absent: both. */
  api?: InterfaceName;
  /** Added before the request is handled: `200ms`, `1.5s`, or a range `100-300ms` (uniform). */
  latency?: string;
  /** Answer this declared status instead, at `rate` (0 to 1, default 1). */
  error?: { status: number; rate?: number };
  /** Close the connection without an answer, at `rate` (0 to 1, default 1). */
  reset?: { rate?: number };
}

/** The most latency a rule may add. */
export const MAX_LATENCY_MS = 120_000;

/** mulberry32: a small, fast, seeded 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `200ms`, `1.5s`, `1m`, a range `100-300ms`, `1-2s`, `500ms-1s` (the low end in the high end's unit unless it has one) -> [min, max] in ms. */
export function parseLatency(text: string): [number, number] {
  const [low, high, ...more] = text.split('-');
  const unit = /(ms|s|m|h|d)\s*$/.exec(high ?? low ?? '')?.[1] as DurationUnit | undefined;
  const hi = parseDuration(high ?? low);
  const lo = high === undefined ? hi : parseDuration(low, unit);
  if (more.length || lo === undefined || hi === undefined)
    throw new Error(`latency must look like 200ms, 1.5s, 1m or 100-300ms, got "${text}"`);
  if (hi < lo) throw new Error(`latency range ${text} goes down`);
  if (hi > MAX_LATENCY_MS) throw new Error(`latency ${text} is more than ${MAX_LATENCY_MS} ms`);
  return [lo, hi];
}

function parseRate(text: string | undefined, what: string): number {
  if (text === undefined) return 1;
  const rate = /%$/.test(text) ? Number(text.slice(0, -1)) / 100 : Number(text);
  if (!/^\d+(\.\d+)?%?$/.test(text) || !(rate >= 0 && rate <= 1))
    throw new Error(`${what} rate must be 0 to 1 (or 0% to 100%), got "${text}"`);
  return rate;
}

/**
 * Reads the flag form: `[api/]operation:effect[,effect...]` where operation is an operationId or
 * `*` and an effect is `latency=200ms`, `latency=100-300ms`, `error=500`, `error=429@0.2`, `reset`
 * or `reset@0.1`. Examples: `listAlarms:latency=200ms`, `*:error=500@0.1`, `instance/*:reset@5%`.
 */
export function parseFaultFlag(text: string): FaultRule {
  const colon = text.indexOf(':');
  if (colon < 0)
    throw new Error(`a fault rule looks like "listAlarms:latency=200ms" or "*:error=500@0.1", got "${text}"`);
  let target = text.slice(0, colon).trim();
  const rule: FaultRule = {};
  const slash = target.indexOf('/');
  if (slash >= 0) {
    const api = target.slice(0, slash);
    if (api !== 'customer' && api !== 'instance')
      throw new Error(`fault rule "${text}": the interface must be customer or instance, got "${api}"`);
    rule.api = api;
    target = target.slice(slash + 1);
  }
  if (target && target !== '*') rule.operation = target;
  const effects = text
    .slice(colon + 1)
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  if (!effects.length) throw new Error(`fault rule "${text}" names no effect (latency=, error=, reset)`);
  for (const effect of effects) {
    const [name, value] = effect.split('=', 2) as [string, string | undefined];
    if (name === 'latency' && value) rule.latency = value;
    else if (name === 'error' && value) {
      const [status, rate] = value.split('@', 2);
      if (!/^\d{3}$/.test(status ?? ''))
        throw new Error(`fault rule "${text}": error needs a status like error=500 or error=429@0.2`);
      rule.error = { status: Number(status), rate: parseRate(rate, 'error') };
    } else if (name.startsWith('reset') && value === undefined) {
      const [, rate] = name.split('@', 2);
      if (name !== 'reset' && !name.startsWith('reset@'))
        throw new Error(`fault rule "${text}": unknown effect "${effect}"`);
      rule.reset = { rate: parseRate(rate, 'reset') };
    } else
      throw new Error(
        `fault rule "${text}": unknown effect "${effect}" (latency=200ms, latency=100-300ms, error=500, error=500@0.1, reset, reset@0.1)`,
      );
  }
  return rule;
}

interface CompiledRule {
  rule: FaultRule;
  latency?: [number, number];
  errorRate: number;
  resetRate: number;
  random: () => number;
}

/** What happens to one request. */
export interface FaultDecision {
  latencyMs: number;
  reset: boolean;
  /** The status to answer instead, and the index of the rule that chose it. */
  error?: { status: number; rule: number };
}

export class Faults {
  private compiled: CompiledRule[] = [];
  private readonly operations: Map<InterfaceName, Map<string, OperationInfo>>;
  /** The seed of the rules in force (the server's, unless the last set() gave one). */
  private seed: number;

  /**
   * @param operations every operation of both interfaces (the ones rules may name)
   * @param serverSeed the server's seed; every rule's random sequence starts from it
   */
  constructor(
    operations: OperationInfo[],
    /** The server's seed: every rule's random sequence starts from it unless set() gives another. */
    readonly serverSeed: number,
    rules: (FaultRule | string)[] = [],
  ) {
    this.seed = serverSeed;
    this.operations = new Map([
      ['customer', new Map()],
      ['instance', new Map()],
    ]);
    for (const op of operations) this.operations.get(op.api)!.set(op.operationId, op);
    this.set(rules);
  }

  /** The rules in force, in the form the control API takes. */
  list(): FaultRule[] {
    return this.compiled.map((c) => structuredClone(c.rule));
  }

  get currentSeed(): number {
    return this.seed;
  }

  get active(): boolean {
    return this.compiled.length > 0;
  }

  /**
   * Checks and replaces every rule (objects, or strings in the flag form); the random sequences
   * start again, from `seed` when given, else from the server's seed. Throws an Error naming the
   * first bad rule; nothing changes then.
   */
  set(rules: (FaultRule | string)[], seed?: number): FaultRule[] {
    if (!Array.isArray(rules)) throw new Error('rules must be an array of fault rules');
    const base = seed ?? this.serverSeed;
    const compiled = rules.map((r, i) => this.compile(typeof r === 'string' ? parseFaultFlag(r) : r, i, base));
    this.compiled = compiled;
    this.seed = base;
    return this.list();
  }

  clear(): void {
    this.compiled = [];
    this.seed = this.serverSeed;
  }

  /** What happens to a request of `operationId` (undefined: nothing). Draws from the matching rules' PRNGs. */
  decide(api: InterfaceName, operationId: string): FaultDecision | undefined {
    if (!this.compiled.length) return undefined;
    let decision: FaultDecision | undefined;
    this.compiled.forEach((c, index) => {
      if ((c.rule.api && c.rule.api !== api) || (c.rule.operation && c.rule.operation !== operationId)) return;
      decision ??= { latencyMs: 0, reset: false };
      if (c.latency) {
        const [lo, hi] = c.latency;
        decision.latencyMs += lo === hi ? lo : lo + Math.floor(c.random() * (hi - lo + 1));
      }
      if (c.rule.reset) {
        const hit = c.random() < c.resetRate;
        if (hit && !decision.error) decision.reset = true;
      }
      if (c.rule.error) {
        const hit = c.random() < c.errorRate;
        if (hit && !decision.reset && !decision.error) decision.error = { status: c.rule.error.status, rule: index };
      }
    });
    return decision;
  }

  private compile(input: FaultRule, index: number, seed: number): CompiledRule {
    const where = `fault rule ${index + 1}`;
    if (typeof input !== 'object' || input === null || Array.isArray(input))
      throw new Error(`${where} must be an object or a string like "listAlarms:latency=200ms"`);
    const known = ['operation', 'api', 'latency', 'error', 'reset'];
    const extra = Object.keys(input).filter((k) => !known.includes(k));
    if (extra.length) throw new Error(`${where}: unknown field ${extra[0]} (fields: ${known.join(', ')})`);
    const rule: FaultRule = {};
    if (input.api !== undefined) {
      if (input.api !== 'customer' && input.api !== 'instance')
        throw new Error(`${where}: api must be customer or instance`);
      rule.api = input.api;
    }
    if (input.operation !== undefined && input.operation !== '*') {
      if (typeof input.operation !== 'string') throw new Error(`${where}: operation must be an operationId`);
      const apis = rule.api ? [rule.api] : (['customer', 'instance'] as const);
      if (!apis.some((a) => this.operations.get(a)!.has(input.operation!))) {
        throw new Error(
          `${where}: no operation ${input.operation} in the ${rule.api ?? 'customer or instance'} document`,
        );
      }
      rule.operation = input.operation;
    }
    const out: CompiledRule = {
      rule,
      errorRate: 0,
      resetRate: 0,
      random: mulberry32(seed ^ Math.imul(index + 1, 0x9e3779b1)),
    };
    if (input.latency !== undefined) {
      if (typeof input.latency !== 'string')
        throw new Error(`${where}: latency must be a string like 200ms or 100-300ms`);
      out.latency = parseLatency(input.latency);
      rule.latency = input.latency;
    }
    if (input.error !== undefined) {
      const { status, rate = 1 } = (input.error ?? {}) as { status?: unknown; rate?: unknown };
      if (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)
        throw new Error(`${where}: error.status must be a 4xx or 5xx status`);
      if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))
        throw new Error(`${where}: error.rate must be a number from 0 to 1`);
      // The status must be one the document declares for every operation the rule covers.
      const covered = [...this.operations.entries()]
        .filter(([a]) => !rule.api || rule.api === a)
        .flatMap(([, ops]) => [...ops.values()])
        .filter((o) => !rule.operation || o.operationId === rule.operation);
      const undeclared = covered.filter((o) => !o.responses.has(String(status))).map((o) => o.operationId);
      if (undeclared.length) {
        throw new Error(
          `${where}: status ${status} is not declared for ${undeclared.slice(0, 5).join(', ')}${undeclared.length > 5 ? ` and ${undeclared.length - 5} more` : ''} (every operation declares 401, 405, 429 and 500)`,
        );
      }
      rule.error = { status, rate };
      out.errorRate = rate;
    }
    if (input.reset !== undefined) {
      const { rate = 1 } = (input.reset ?? {}) as { rate?: unknown };
      if (typeof rate !== 'number' || !(rate >= 0 && rate <= 1))
        throw new Error(`${where}: reset.rate must be a number from 0 to 1`);
      rule.reset = { rate };
      out.resetRate = rate;
    }
    if (!rule.latency && !rule.error && !rule.reset)
      throw new Error(`${where} has no effect: give latency, error or reset`);
    return out;
  }
}
