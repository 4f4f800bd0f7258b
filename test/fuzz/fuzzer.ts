// The fuzz run: fast-check generates requests for every operation of both documents (valid ones
// from the schemas, and invalid ones: mutated fields, malformed JSON, wrong content types, odd form
// encodings, ids that are not numbers, path tricks, bad credentials, wrong methods), sends each to
// an in-process Tusk through app.fetch (no sockets), and checks the properties of issue 9:
//   - never a 5xx;
//   - every response conforms to the documents (Contract.violations is empty), an unknown path is
//     a 404 and a wrong method a 405 with Allow, both with the Error body;
//   - a request the documents' validators reject gets 400 (401 before it for bad credentials, 413
//     for an oversized body), and the Error names the field (`field` member or the message);
//   - a refused request (any 4xx) changes no state: a dump of the account and of the instance the
//     key opens is the same before and after.
// Failures are collected (not thrown) so a run reports all of them with the request that found them.
import fc from 'fast-check';
import { createTusk, type Tusk } from '../../src/server.js';
import type { InterfaceName } from '../../src/openapi/documents.js';
import type { OperationInfo, ParameterInfo } from '../../src/openapi/operations.js';
import { Contract } from '../../contract-tests/harness/contract.js';
import { MAX_BODY_BYTES } from '../../src/core/limits.js';
import { errorField } from '../../src/openapi/ajv.js';
import { deeperThan } from '../../src/openapi/requests.js';
import { TRICKY_STRINGS, type Schema } from './arbitraries.js';
import { Oracle, type BodyInfo } from './oracle.js';

type Obj = Record<string, unknown>;
type Mutate = (base: Obj) => { value: Obj; field: string; kind: string };

type ParamPlan =
  | { kind: 'existing'; pick: number }
  | { kind: 'value'; value: unknown }
  | { kind: 'system' }
  | { kind: 'raw'; text: string };

type BodyPlan =
  | { kind: 'value'; encoding: 'json' | 'form'; base: Obj; mutate?: Mutate }
  | { kind: 'literal'; base: Obj; field: string; literal: string }
  | { kind: 'text'; base: Obj; text: (valid: string) => string; contentType: string | null; what: string }
  | { kind: 'oversize'; encoding: 'json' | 'form'; bytes: number };

type AuthPlan =
  | 'valid'
  | 'none'
  | 'bearer'
  | 'garbage'
  | 'no-colon'
  | 'empty'
  | 'wrong'
  | 'trailing-space'
  | 'lowercase'
  | 'other-interface'
  | 'huge'
  | 'user-field';

export interface Plan {
  op: OperationInfo;
  label: string;
  system?: string;
  params: Record<string, ParamPlan>;
  query: [string, string][];
  body?: BodyPlan;
  auth: AuthPlan;
  method?: string;
  trick?: (path: string) => string;
  instancePick: number;
  hydrate: boolean;
}

export interface Failure {
  label: string;
  api: InterfaceName;
  operationId: string;
  request: string;
  body?: string;
  status: number;
  response: string;
  problems: string[];
}

export interface FuzzReport {
  seed: number;
  requests: number;
  ms: number;
  byLabel: Record<string, number>;
  statuses: Record<string, number>;
  /** Requests the documents' validators accept that the server answered with 2xx. */
  acceptedValid: number;
  failures: Failure[];
  /** Distinct failures (same operation, label and first problem). */
  distinctFailures: number;
}

const RAW_BAD_IDS = [
  'abc',
  '-1',
  '0',
  '1.5',
  '%20',
  '1e999',
  '%D9%A3',
  '0x1f',
  '1,2',
  'null',
  '%00',
  '%ZZ',
  '%2531',
  '99999999999999999999999',
  '-0',
  '+1',
  '%EF%BC%91',
  'x'.repeat(2000),
  '1%2F2',
  '%E2%80%AE1',
];

const PATH_TRICKS: [string, (p: string) => string][] = [
  ['double-slash', (p) => p.replace('/api/', '/api//')],
  ['trailing-slash', (p) => `${p}/`],
  ['dot-dot-encoded', (p) => p.replace('/api/', '/api/%2e%2e/api/')],
  ['dot', (p) => p.replace('/api/', '/api/./')],
  ['escape', () => '/api/%2e%2e/%2e%2e/etc/passwd'],
  ['encoded-slash', (p) => p.replace(/\/([^/]*)$/, '%2F$1')],
  ['upper-case', (p) => p.toUpperCase()],
  ['nul', (p) => `${p}%00`],
  ['many-ampersands', (p) => `${p}?${'&'.repeat(1000)}`],
  ['matrix', (p) => `${p};jsessionid=1`],
  ['dot-dot-tail', (p) => `${p}/..`],
  ['leading-double-slash', (p) => `/${p}`],
  ['backslash', (p) => p.replace(/\//g, '\\')],
  ['fragment', (p) => `${p}#x`],
  ['unicode', (p) => `${p}/%C3%9F`],
];

const FORM = 'application/x-www-form-urlencoded';

const tryDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export function formEncode(body: Obj): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined) continue;
    params.append(k, typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  }
  return params.toString();
}

/** encodeURIComponent, with a lone surrogate sent as the (invalid UTF-8) bytes of its code unit. */
const encodeText = (s: string) => {
  try {
    return encodeURIComponent(s);
  } catch {
    return '%ED%A0%80';
  }
};

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

// ---------------------------------------------------------------------------------------------
// Plans: what to send, generated from the documents

export class Planner {
  constructor(
    readonly contract: Contract,
    readonly oracle: Oracle,
  ) {}

  private paramValue(op: OperationInfo, p: ParameterInfo): fc.Arbitrary<ParamPlan> {
    const schema = p.schema as Schema;
    const types = this.oracle.derive[op.api].typesOf(schema);
    if (Array.isArray(schema.enum)) return fc.constant({ kind: 'system' as const });
    const valid = this.oracle.derive[op.api].valid(schema).map((value) => ({ kind: 'value' as const, value }));
    if (types.includes('integer') || schema.format === 'uuid')
      return fc.oneof(
        {
          arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((pick) => ({ kind: 'existing' as const, pick })),
          weight: 4,
        },
        { arbitrary: valid, weight: 1 },
      );
    return valid;
  }

  private validQuery(op: OperationInfo): fc.Arbitrary<[string, string][]> {
    const qs = op.parameters.filter((p) => p.in === 'query');
    if (!qs.length) return fc.constant([]);
    return fc
      .tuple(...qs.map((p) => fc.tuple(fc.boolean(), this.oracle.derive[op.api].valid(p.schema))))
      .map((vs) =>
        vs.flatMap(([use, v], i) => (use || qs[i]!.required ? [[qs[i]!.name, String(v)] as [string, string]] : [])),
      );
  }

  /** A valid body for the operation, with the system its path must name (integration bodies). */
  private validBody(op: OperationInfo, info: BodyInfo): fc.Arbitrary<{ base: Obj; system?: string; schema: Schema }> {
    const derive = this.oracle.derive[op.api];
    const variants = info.branches.flatMap((b) => derive.variants(b.schema).map((v) => ({ v, system: b.system })));
    return fc
      .constantFrom(...variants)
      .chain(({ v, system }) =>
        derive
          .valid(v)
          .map((base) => ({ base: (isObject(base) ? base : {}) as Obj, schema: v, ...(system ? { system } : {}) })),
      );
  }

  plans(op: OperationInfo): fc.Arbitrary<Plan> {
    const info = this.oracle.body(op);
    const pathParams = op.parameters.filter((p) => p.in === 'path');
    const params = fc.record(
      Object.fromEntries(pathParams.map((p) => [p.name, this.paramValue(op, p)])),
    ) as fc.Arbitrary<Record<string, ParamPlan>>;
    const common = fc.record({
      params,
      query: this.validQuery(op),
      instancePick: fc.double({ min: 0, max: 1, noNaN: true }),
      hydrate: fc.boolean(),
    });
    const body = info ? this.validBody(op, info) : fc.constant(undefined);
    const plan = (
      label: string,
      extra: (b: { base: Obj; system?: string; schema: Schema } | undefined) => fc.Arbitrary<Partial<Plan>>,
    ) =>
      fc.tuple(common, body).chain(([c, b]) =>
        extra(b).map((x): Plan => ({
          op,
          label,
          auth: 'valid',
          ...c,
          ...(b?.system ? { system: b.system } : {}),
          ...(b ? { body: { kind: 'value', encoding: 'json', base: b.base } } : {}),
          ...x,
        })),
      );
    const choices: fc.WeightedArbitrary<Plan>[] = [
      { weight: 6, arbitrary: plan('valid', () => fc.constant({})) },
      {
        weight: 1,
        arbitrary: plan('auth', () =>
          fc
            .constantFrom<AuthPlan>(
              'none',
              'bearer',
              'garbage',
              'no-colon',
              'empty',
              'wrong',
              'trailing-space',
              'lowercase',
              'other-interface',
              'huge',
              'user-field',
            )
            .map((auth) => ({ auth, label: `auth:${auth}` })),
        ),
      },
      {
        weight: 1,
        arbitrary: plan('wrong-method', () =>
          fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD').map((method) => ({ method })),
        ),
      },
      {
        weight: 1,
        arbitrary: plan('path-trick', () =>
          fc.constantFrom(...PATH_TRICKS).map(([name, trick]) => ({ trick, label: `path-trick:${name}` })),
        ),
      },
    ];
    if (info) {
      choices.push(
        {
          weight: 3,
          arbitrary: plan('valid-form', (b) =>
            fc.constant({ body: { kind: 'value', encoding: 'form', base: b!.base } as BodyPlan }),
          ),
        },
        {
          weight: 8,
          arbitrary: fc
            .tuple(common, body, fc.constantFrom<'json' | 'form'>('json', 'json', 'form'))
            .chain(([c, b, encoding]) =>
              this.oracle.derive[op.api].mutation(b!.schema).map((mutate): Plan => ({
                op,
                label: `${encoding === 'form' ? 'form-' : ''}mutation`,
                auth: 'valid',
                ...c,
                ...(b!.system ? { system: b!.system } : {}),
                body: { kind: 'value', encoding, base: b!.base, mutate },
              })),
            ),
        },
        {
          weight: 3,
          arbitrary: plan('body-text', (b) =>
            fc.oneof(
              fc
                .constantFrom<[string, (v: string) => string]>(
                  ['truncated', (v) => v.slice(0, Math.max(1, v.length - 2))],
                  ['trailing-garbage', (v) => `${v}}`],
                  ['single-quotes', (v) => v.replace(/"/g, "'")],
                  ['comment', (v) => `/* c */${v}`],
                  ['trailing-comma', (v) => v.replace(/}$/, ',}')],
                  ['bom', (v) => `\ufeff${v}`],
                  ['nan', () => '{"a": NaN}'],
                  ['null', () => 'null'],
                  ['array', (v) => `[${v}]`],
                  ['string', () => '"text"'],
                  ['number', () => '12'],
                  ['empty', () => ''],
                  ['whitespace', () => ' \n\t '],
                  ['deep', () => '['.repeat(5000) + ']'.repeat(5000)],
                  ['deep-object', () => '{"options":'.repeat(3000) + '{}' + '}'.repeat(3000)],
                  ['duplicate-keys', (v) => v.replace(/^{/, '{"type":"x",')],
                  ['deep-field', (v) => deepField(v, 5000)],
                  ['deep-field-32', (v) => deepField(v, 33)],
                )
                .map(([what, text]) => ({
                  body: { kind: 'text', base: b!.base, text, contentType: 'application/json', what } as BodyPlan,
                  label: `json:${what}`,
                })),
              fc
                .constantFrom(
                  'text/plain',
                  null,
                  'application/xml',
                  'application/json-patch+json',
                  'application/JSON',
                  'application/json; charset=latin1',
                  'multipart/form-data',
                  'application/x-www-form-urlencoded; charset=utf-8',
                )
                .map((ct) => ({
                  body: {
                    kind: 'text',
                    base: b!.base,
                    text: (v: string) => v,
                    contentType: ct,
                    what: `content-type ${ct}`,
                  } as BodyPlan,
                  label: `content-type:${ct ?? 'none'}`,
                })),
              fc
                .constantFrom<[string, (v: string) => string]>(
                  ['duplicate', (v) => `${formOf(v)}&${formOf(v)}`],
                  ['plus-space', (v) => formOf(v).replace(/%20/g, '+')],
                  ['bad-percent', (v) => `${formOf(v)}&x=%ZZ`],
                  ['no-equals', (v) => `${formOf(v)}&flag`],
                  ['empty-key', (v) => `${formOf(v)}&=x`],
                  ['semicolons', (v) => formOf(v).replace(/&/g, ';')],
                  ['unicode-key', (v) => `${formOf(v)}&%C3%9F=1`],
                  ['proto', (v) => `${formOf(v)}&__proto__=x&constructor=y`],
                )
                .map(([what, text]) => ({
                  body: { kind: 'text', base: b!.base, text, contentType: FORM, what } as BodyPlan,
                  label: `form:${what}`,
                })),
            ),
          ),
        },
        {
          weight: 1,
          arbitrary: plan('json-literal', (b) => {
            const numeric = Object.keys(b!.base);
            return fc
              .tuple(
                fc.constantFrom(...(numeric.length ? numeric : ['fuzz'])),
                fc.constantFrom(
                  '1e400',
                  '-1e400',
                  '-0',
                  '12345678901234567890123456789',
                  '1.0',
                  '1E2',
                  '0.1e1',
                  '-',
                  '01',
                  '.5',
                  'Infinity',
                  '0x10',
                  '1_000',
                ),
              )
              .map(([field, literal]) => ({
                body: { kind: 'literal', base: b!.base, field, literal } as BodyPlan,
                label: 'json-literal',
              }));
          }),
        },
        {
          weight: 1,
          arbitrary: plan('oversize', () =>
            fc
              .tuple(
                fc.constantFrom<'json' | 'form'>('json', 'form'),
                fc.constantFrom(MAX_BODY_BYTES + 1, MAX_BODY_BYTES * 4),
              )
              .map(([encoding, bytes]) => ({
                body: { kind: 'oversize', encoding, bytes } as BodyPlan,
                label: 'oversize',
              })),
          ),
        },
      );
    }
    const paramsWithText = op.parameters.filter(
      (p) => (p.in === 'path' && !Array.isArray((p.schema as Schema).enum)) || p.in === 'query',
    );
    if (paramsWithText.length) {
      choices.push({
        weight: 3,
        arbitrary: plan('param', () =>
          fc
            .tuple(
              fc.constantFrom(...paramsWithText),
              fc.oneof(fc.constantFrom(...RAW_BAD_IDS), fc.constantFrom(...TRICKY_STRINGS).map(encodeText)),
            )
            .map(([p, text]) => ({
              label: `${p.in}-param`,
              ...(p.in === 'path' ? {} : {}),
              __param: p,
              __text: text,
            })),
        ).map((pl) => {
          const { __param: p, __text: text, ...rest } = pl as Plan & { __param: ParameterInfo; __text: string };
          if (p.in === 'path') return { ...rest, params: { ...rest.params, [p.name]: { kind: 'raw', text } } } as Plan;
          return { ...rest, query: [...rest.query.filter(([k]) => k !== p.name), [p.name, tryDecode(text)]] } as Plan;
        }),
      });
    }
    return fc.oneof(...choices);
  }

  all(): fc.Arbitrary<Plan> {
    const ops = [...this.contract.operations.customer.values(), ...this.contract.operations.instance.values()];
    return fc.constantFrom(...ops).chain((op) => this.plans(op));
  }
}

/** The JSON object's text with its free-form member (else its first) nested `depth` levels deep. */
function deepField(jsonText: string, depth: number): string {
  const v = JSON.parse(jsonText) as Obj;
  const field = 'options' in v ? 'options' : (Object.keys(v)[0] ?? 'options');
  return JSON.stringify({ ...v, [field]: '__DEEP__' }).replace(
    '"__DEEP__"',
    '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1),
  );
}

/** A JSON object's text as form fields (for the form variants of a body-text plan). */
function formOf(jsonText: string): string {
  try {
    const v = JSON.parse(jsonText) as unknown;
    return isObject(v) ? formEncode(v) : '';
  } catch {
    return '';
  }
}

// ---------------------------------------------------------------------------------------------
// The world: one in-process Tusk, its current keys, ids and state dumps

const noNetwork = (async () => {
  throw new Error('fuzz: no network');
}) as typeof fetch;

export class World {
  private constructor(readonly tusk: Tusk) {}

  static async create(): Promise<World> {
    const tusk = await createTusk({
      log: 'off',
      rateLimit: '1000000000/1',
      provisionDelayMs: 0,
      registry: { outbox: { fetch: noNetwork } },
    });
    const w = new World(tusk);
    tusk.registry.clock.pin(tusk.registry.clock.now());
    return w;
  }

  get account() {
    return [...this.tusk.registry.allHomes()].map((h) => h.records)[0]!;
  }

  /** The current admin key; a fresh world when the fuzz removed every admin. */
  adminKey(): string {
    let admin = this.account.apiKeys.list().find((k) => k.role === 'admin');
    if (!admin || this.account.instances.list().length === 0) {
      this.reset();
      admin = this.account.apiKeys.list().find((k) => k.role === 'admin')!;
    }
    return admin.key;
  }

  reset(): void {
    const at = this.tusk.registry.clock.now();
    this.tusk.registry.reset();
    this.tusk.registry.clock.pin(at);
  }

  instance(pick: number): { id: number; key: string } {
    this.adminKey();
    const list = this.account.instances.list();
    const id = list[Math.min(list.length - 1, Math.floor(pick * list.length))]!.id;
    return { id, key: this.account.instanceStore(id)!.apikey };
  }

  /** A dump of what a request may change: the account (its instances' summaries, team, keys, audit) and one instance. */
  snapshot(instanceId?: number): string {
    const a = this.account;
    const store = instanceId === undefined ? undefined : a.instanceStore(instanceId);
    return JSON.stringify({
      instances: a.instances.list(),
      team: a.team.list().map((m) => ({ ...m, tags: a.team.tags(m.id) })),
      keys: a.apiKeys.list(),
      audit: a.audit.rows().length,
      outbox: this.tusk.registry.outbox.list().length,
      instance:
        store &&
        (typeof store.toJSON === 'function'
          ? store.toJSON()
          : {
              key: store.apikey,
              url: store.url,
              alarms: store.alarms.list(),
              recipients: store.recipients.list(),
              logs: store.integrations['logs'].list(),
              metrics: store.integrations['metrics'].list(),
              maintenance: store.maintenance.list(),
              backups: store.backups.list().map((b) => b.id),
            }),
    });
  }

  async call(api: InterfaceName, method: string, path: string, key: string): Promise<unknown> {
    const res = await this.tusk[api].fetch(
      new Request(`http://fuzz${path}`, { method, headers: { authorization: basic(key) } }),
    );
    return res.status === 200 ? res.json() : undefined;
  }
}

const basic = (key: string, user = '') => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

// ---------------------------------------------------------------------------------------------
// Running one plan

interface Expectation {
  /** Statuses the documents allow for this request; undefined: any declared status. */
  statuses?: number[];
  /** The field the 400 must name (or one of `also`). */
  field?: string;
  also?: string[];
  why: string;
}

export class Runner {
  readonly report: FuzzReport;
  private readonly seen = new Set<string>();
  private readonly errorValidator;

  constructor(
    readonly world: World,
    readonly oracle: Oracle,
    seed: number,
  ) {
    this.report = {
      seed,
      requests: 0,
      ms: 0,
      byLabel: {},
      statuses: {},
      acceptedValid: 0,
      failures: [],
      distinctFailures: 0,
    };
    this.errorValidator = oracle.validator('customer', '#/components/schemas/Error');
  }

  /** The ids a path parameter may take: the `id`s listed by the collection above it. */
  private async existingIds(op: OperationInfo, p: ParameterInfo, key: string, system?: string): Promise<string[]> {
    let path = op.path.slice(0, op.path.indexOf(`{${p.name}}`)).replace(/\/$/, '');
    let list: OperationInfo | undefined;
    while (path.startsWith('/api/')) {
      list = [...this.oracle.contract.operations[op.api].values()].find((o) => o.method === 'get' && o.path === path);
      if (list) break;
      path = path.replace(/\/[^/]*$/, '');
    }
    if (!list) return [];
    const items = await this.world.call(op.api, 'GET', path, key);
    if (!Array.isArray(items)) return [];
    return items
      .filter((i) => isObject(i) && (system === undefined || i.type === undefined || i.type === system))
      .map((i) => String((i as Obj).id));
  }

  private async hydrate(api: InterfaceName, body: Obj, key: string): Promise<Obj> {
    const out = { ...body };
    const pickFrom = async (path: string, field: string, useApi: InterfaceName = api) => {
      const items = await this.world.call(useApi, 'GET', path, useApi === 'customer' ? this.world.adminKey() : key);
      return Array.isArray(items) ? items.map((i) => (i as Obj)[field]) : [];
    };
    if (api === 'instance' && Array.isArray(out.recipients))
      out.recipients = (await pickFrom('/api/alarms/recipients', 'id')).slice(0, 3);
    if (api === 'instance' && 'backup_id' in out)
      out.backup_id = (await pickFrom('/api/backup', 'id'))[0] ?? out.backup_id;
    if (api === 'customer' && 'instance_id' in out)
      out.instance_id = (await pickFrom('/api/instances', 'id'))[0] ?? out.instance_id;
    return out;
  }

  async run(plan: Plan): Promise<void> {
    const { op } = plan;
    const api = op.api;
    const admin = this.world.adminKey();
    const inst = this.world.instance(plan.instancePick);
    const key = api === 'customer' ? admin : inst.key;
    const otherKey = api === 'customer' ? inst.key : admin;

    // The path, with each parameter's text as the router will decode it.
    const decoded: Record<string, string> = {};
    let path = op.path;
    for (const p of op.parameters.filter((x) => x.in === 'path')) {
      const pp = plan.params[p.name] ?? { kind: 'existing', pick: 0 };
      let segment: string;
      if (pp.kind === 'raw') segment = pp.text;
      else if (pp.kind === 'system')
        segment = encodeURIComponent(plan.system ?? String(((p.schema as Schema).enum as unknown[])[0]));
      else if (pp.kind === 'value') segment = encodeText(String(pp.value));
      else {
        const ids = await this.existingIds(op, p, key, plan.system);
        segment = encodeURIComponent(
          ids.length ? ids[Math.min(ids.length - 1, Math.floor(pp.pick * ids.length))]! : '1',
        );
      }
      decoded[p.name] = tryDecode(segment);
      path = path.replace(`{${p.name}}`, segment);
    }
    const query = new URLSearchParams(plan.query);
    let url = path + (plan.query.length ? `?${query.toString()}` : '');
    if (plan.trick) url = plan.trick(url);
    const method = plan.method ?? op.method.toUpperCase();

    // The body.
    let text: string | undefined;
    let contentType: string | null = null;
    let targeted: { field: string; baseValid: boolean } | undefined;
    const b = plan.body;
    if (b?.kind === 'value') {
      let base = b.base;
      if (plan.hydrate) base = await this.hydrate(api, base, key);
      let value: Obj = base;
      if (b.mutate) {
        const m = b.mutate(base);
        value = m.value;
        targeted = { field: m.field, baseValid: this.bodyVerdict(op, base, decoded, inst.id).ok };
      }
      text = b.encoding === 'json' ? JSON.stringify(value) : formEncode(value);
      contentType = b.encoding === 'json' ? 'application/json' : FORM;
    } else if (b?.kind === 'literal') {
      text = JSON.stringify({ ...b.base, [b.field]: '__LITERAL__' }).replace('"__LITERAL__"', b.literal);
      contentType = 'application/json';
    } else if (b?.kind === 'text') {
      text = b.text(JSON.stringify(plan.hydrate ? await this.hydrate(api, b.base, key) : b.base));
      contentType = b.contentType;
    } else if (b?.kind === 'oversize') {
      text = b.encoding === 'json' ? `{"name":"${'x'.repeat(b.bytes)}"}` : `name=${'x'.repeat(b.bytes)}`;
      contentType = b.encoding === 'json' ? 'application/json' : FORM;
    }

    const headers: Record<string, string> = {};
    const auth = this.authHeader(plan.auth, key, otherKey, api);
    if (auth !== undefined) headers.authorization = auth;
    if (contentType) headers['content-type'] = contentType;
    const sendsBody = text !== undefined && method !== 'GET' && method !== 'HEAD';

    const expectation = this.expect(plan, method, url, decoded, text, contentType, inst.id, targeted);
    const before = this.world.snapshot(api === 'instance' ? inst.id : undefined);
    let res: Response;
    let responseText: string;
    try {
      res = await this.world.tusk[api].fetch(
        new Request(`http://fuzz${url.startsWith('/') ? '' : '/'}${url}`, {
          method,
          headers,
          ...(sendsBody ? { body: text } : {}),
        }),
      );
      responseText = await res.text();
    } catch (err) {
      this.fail(plan, method, url, text, 0, String(err), [
        `the app threw instead of answering: ${(err as Error).stack?.split('\n').slice(0, 3).join(' | ')}`,
      ]);
      return;
    }
    this.report.requests++;
    this.report.byLabel[plan.label] = (this.report.byLabel[plan.label] ?? 0) + 1;
    this.report.statuses[res.status] = (this.report.statuses[res.status] ?? 0) + 1;

    const problems: string[] = [];
    const status = res.status;
    if (status >= 500) problems.push(`answered ${status}`);
    const headersObj = Object.fromEntries(res.headers.entries());
    const like = { status, headers: headersObj, text: method === 'HEAD' ? '' : responseText };
    const pathname = new URL(`http://fuzz${url.startsWith('/') ? '' : '/'}${url}`).pathname;
    let routedPath: string;
    try {
      routedPath = decodeURI(pathname);
    } catch {
      routedPath = pathname;
    }
    const route = this.oracle.route(api, method, routedPath);
    let body: unknown;
    try {
      body = responseText ? JSON.parse(responseText) : undefined;
    } catch {
      body = undefined;
    }
    if (!pathname.startsWith('/api/')) {
      // Outside the interfaces' paths (/docs, /openapi.json, /__tusk): only "never a 5xx".
    } else if (!route) {
      if (status !== 404) problems.push(`no document path matches ${routedPath}, expected 404, got ${status}`);
      if (!this.errorValidator(body)) problems.push('the 404 body is not the Error schema');
    } else if (!route.op) {
      if (status !== 405) problems.push(`${method} is not a method of ${route.path}, expected 405, got ${status}`);
      // A HEAD response has no body: only its status and headers are checked.
      if (method !== 'HEAD') problems.push(...this.oracle.contract.violations(api, route.ops[0]!.operationId, like));
      else if (!headersObj.allow) problems.push('405 without Allow');
    } else if (method !== 'HEAD') {
      problems.push(...this.oracle.contract.violations(api, route.op.operationId, like));
    }
    if (route?.op === op && !plan.trick && !plan.method) {
      if (expectation.statuses && !expectation.statuses.includes(status))
        problems.push(`expected ${expectation.statuses.join(' or ')} (${expectation.why}), got ${status}`);
      if (
        status === 400 &&
        expectation.field !== undefined &&
        ![expectation.field, ...(expectation.also ?? [])].some((f) => namesField(body, f))
      ) {
        problems.push(`the 400 does not name the field ${expectation.field} (${expectation.why})`);
      }
      if (status === 401 && !String(headersObj['www-authenticate'] ?? '').startsWith('Basic'))
        problems.push('401 without WWW-Authenticate: Basic');
      if (
        expectation.statuses === undefined &&
        status === 200 &&
        (plan.label === 'valid' || plan.label === 'valid-form')
      )
        this.report.acceptedValid++;
    }
    if (status === 400 && method !== 'HEAD' && !namesSomeField(body))
      problems.push('the 400 names no field (neither a `field` member nor a "<field>: ..." message)');
    if (status >= 400 && status !== 429) {
      const after = this.world.snapshot(api === 'instance' ? inst.id : undefined);
      if (after !== before)
        problems.push(`a refused request (${status}) changed the state: ${firstDifference(before, after)}`);
    }
    if (problems.length) this.fail(plan, method, url, text, status, responseText, problems);
  }

  private authHeader(auth: AuthPlan, key: string, otherKey: string, api: InterfaceName): string | undefined {
    switch (auth) {
      case 'valid':
        return basic(key);
      case 'none':
        return undefined;
      case 'bearer':
        return `Bearer ${key}`;
      case 'garbage':
        return 'Basic !!!not-base64!!!';
      case 'no-colon':
        return `Basic ${Buffer.from(key).toString('base64')}`;
      case 'empty':
        return basic('');
      case 'wrong':
        return basic(`${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`);
      case 'trailing-space':
        return basic(`${key} `);
      case 'lowercase':
        return `basic ${Buffer.from(`:${key}`).toString('base64')}`;
      case 'other-interface':
        return basic(otherKey);
      case 'huge':
        return `Basic ${'A'.repeat(12_000)}`;
      case 'user-field':
        return api === 'instance' ? basic('', key) : basic('', key);
    }
  }

  private authValid(auth: AuthPlan, api: InterfaceName): boolean {
    return auth === 'valid' || auth === 'lowercase' || (auth === 'user-field' && api === 'instance');
  }

  /** Whether a body value is valid for the operation (its branch), by the document. */
  private bodyVerdict(
    op: OperationInfo,
    value: unknown,
    params: Record<string, string>,
    instanceId: number,
  ): { ok: boolean; field?: string; notFound?: boolean; errorFields?: string[] } {
    const info = this.oracle.body(op);
    if (!info) return { ok: true };
    // Every body has a form encoding, which carries only fields: a body is an object, nested at
    // most 32 levels deep (the shared BadRequest response).
    if (!isObject(value) || deeperThan(value, 32)) return { ok: false, field: 'body' };
    let stored: string | undefined;
    const systemParam = Object.values(params).find((v) => info.branches.some((b) => b.system === v));
    if (info.bySystem && systemParam === undefined) {
      // Update by id: the stored integration's system picks the schema; a missing id is a 404.
      if (!isObject(value)) return { ok: false, field: 'body' };
      const kind = op.path.includes('/logs') ? 'logs' : 'metrics';
      const id = Number(params.system_or_int_id ?? params.int_id);
      const found = this.world.account
        .instanceStore(instanceId)
        ?.integrations[kind].list()
        .find((i) => i.id === id);
      if (!found) return { ok: true, notFound: true };
      stored = found.type;
    }
    const ref = this.oracle.branchRef(op, info, params, stored);
    if (!ref) return { ok: true };
    // The request-body convention first: fields no schema names are ignored, a field of another
    // branch with a value that is not its zero value is a 400 naming it, "" for a defaulted field is absent.
    let normal: unknown;
    try {
      normal = info.rules.apply(value, {
        ...((systemParam ?? stored) ? { system: (systemParam ?? stored)! } : {}),
      }).value;
    } catch (err) {
      const field = (err as { detail?: { field?: string } }).detail?.field;
      return { ok: false, field: field ?? 'body' };
    }
    const validate = this.oracle.validator(op.api, ref);
    return validate(normal)
      ? { ok: true }
      : { ok: false, errorFields: (validate.errors ?? []).map((e) => errorField(e) ?? 'body') };
  }

  /** What the documents allow for the request, in the pipeline's documented order. */
  private expect(
    plan: Plan,
    method: string,
    url: string,
    params: Record<string, string>,
    text: string | undefined,
    contentType: string | null,
    instanceId: number,
    targeted?: { field: string; baseValid: boolean },
  ): Expectation {
    const { op } = plan;
    if (!this.authValid(plan.auth, op.api)) return { statuses: [401], why: `credentials: ${plan.auth}` };
    const info = this.oracle.body(op);
    if (info && text !== undefined && Buffer.byteLength(text) > MAX_BODY_BYTES)
      return { statuses: [413], why: `a body of ${Buffer.byteLength(text)} bytes` };
    // Body parsing: malformed JSON is a 400 naming the body, before the parameters are validated.
    let value: unknown = {};
    let parsed = true;
    const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    if (info && text !== undefined && text.trim() !== '') {
      if (type === 'application/json') {
        try {
          // Bodies are read as UTF-8 text, which drops a leading byte order mark.
          value = JSON.parse(text.replace(/^\ufeff/, ''));
        } catch {
          return { statuses: [400], field: 'body', why: 'malformed JSON' };
        }
      } else if (type === 'multipart/form-data') parsed = false;
      else value = this.oracle.formValue(info, [...new URLSearchParams(text)]);
    }
    for (const p of op.parameters.filter((x) => x.in === 'path' || x.in === 'query')) {
      const q = new URL(`http://fuzz${url}`).searchParams;
      const raw = p.in === 'path' ? params[p.name] : (q.getAll(p.name).at(-1) ?? undefined);
      const verdict = this.oracle.parameter(op, p, raw);
      if (!verdict.ok)
        return {
          statuses: [400],
          field: p.name,
          why: `${p.in} parameter ${p.name}=${JSON.stringify(raw)?.slice(0, 40)}`,
        };
    }
    if (!info || !parsed) return { why: 'valid parameters' };
    const duplicateKeys =
      type !== 'application/json' &&
      text !== undefined &&
      new Set([...new URLSearchParams(text)].map(([k]) => k)).size !== [...new URLSearchParams(text)].length;
    if (duplicateKeys) return { why: 'a form with a repeated field (the documents do not say which value counts)' };
    const verdict = this.bodyVerdict(op, value, params, instanceId);
    if (verdict.notFound) return { statuses: [404], why: 'update of an integration id the instance does not have' };
    if (verdict.ok) return { why: 'valid by the documents' };
    const field = verdict.field ?? (targeted?.baseValid ? targeted.field : undefined);
    // A cross-field rule (if/then, one of several required) may be reported at its other field.
    const also = verdict.field ? [] : (verdict.errorFields ?? []);
    return {
      statuses: [400],
      ...(field !== undefined ? { field, also } : {}),
      why: `body invalid by the document${targeted ? ` (${targeted.field} broken)` : ''}`,
    };
  }

  private fail(
    plan: Plan,
    method: string,
    url: string,
    body: string | undefined,
    status: number,
    response: string,
    problems: string[],
  ): void {
    const key = `${plan.op.api} ${plan.op.operationId} ${plan.label} ${problems[0]!.replace(/\d+/g, 'N').slice(0, 80)}`;
    if (!this.seen.has(key)) {
      this.seen.add(key);
      this.report.distinctFailures++;
    }
    if (this.report.failures.length < 200) {
      this.report.failures.push({
        label: plan.label,
        api: plan.op.api,
        operationId: plan.op.operationId,
        request: `${method} ${url.slice(0, 300)}`,
        ...(body !== undefined ? { body: body.slice(0, 300) } : {}),
        status,
        response: response.slice(0, 300),
        problems,
      });
    }
  }
}

/** The 400 names the field: in its `field` member or in the `error` text. */
export function namesField(body: unknown, field: string): boolean {
  if (!isObject(body)) return false;
  const last = field.split('.').pop()!;
  const f = body.field;
  return (
    (typeof f === 'string' && (f === field || f.split('.').includes(last) || f.startsWith(`${field}.`))) ||
    (typeof body.error === 'string' && body.error.includes(last))
  );
}

function namesSomeField(body: unknown): boolean {
  if (!isObject(body) || typeof body.error !== 'string') return false;
  return (typeof body.field === 'string' && body.field.length > 0) || /^[^\s:]+: /.test(body.error);
}

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `…${a.slice(Math.max(0, i - 60), i + 60)}… became …${b.slice(Math.max(0, i - 60), i + 60)}…`;
}

/** Runs `requests` generated requests from `seed`; resets the world every `resetEvery` requests. */
export async function runFuzz(options: { seed: number; requests: number; resetEvery?: number }): Promise<FuzzReport> {
  const started = performance.now();
  const contract = await Contract.load();
  const oracle = new Oracle(contract);
  const world = await World.create();
  const runner = new Runner(world, oracle, options.seed);
  const planner = new Planner(contract, oracle);
  let n = 0;
  await fc.assert(
    fc.asyncProperty(planner.all(), async (plan) => {
      if (options.resetEvery && n > 0 && n % options.resetEvery === 0) world.reset();
      n++;
      await runner.run(plan);
      return true;
    }),
    { seed: options.seed, numRuns: options.requests, endOnFailure: true },
  );
  runner.report.ms = Math.round(performance.now() - started);
  return runner.report;
}
