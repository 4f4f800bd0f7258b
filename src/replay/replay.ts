// `tusk replay`: sends a recording's requests (a HAR file or a go-vcr cassette, src/record/) again
// to a deployment, in order, one at a time, and names each departure of its answers from the
// recorded ones and from the contract.
//
// Carried (carry.ts): the values the recorded answers made (ids, keys, urls, providerids) are
// replaced in later requests by what the live answers had at the same place. The account's key:
// the customer key the recording used most is replaced by --api-key; an instance key that no
// recorded answer gave (a recording that begins with an existing instance) by --instance-key; any
// other key is sent as recorded (a recording of a wrong key's 401 stays one).
//
// Departures, per exchange (the rules are in README.md, "tusk replay"):
// - `status`: another status than the recorded one (the bodies are then not compared);
// - `missing`: a field, or an element of a list, the recorded answer had and the live one has not;
// - `type`: a field of another JSON type;
// - `value`: another value, except where values differ between runs by nature: values the server
//   makes (isIdentifierField: carried instead, and a departure only when a value carried earlier
//   comes back as a third one), times (fields named `*_at`, `*_date`, `*_by`, `date`, `time`, or a
//   string in any of the interfaces' time forms), a backup's `size`, the human `error` message of an
//   Error body, and values the recording redacted; a recorded value that was carried may come back
//   as its carried value, and a text that names one (`db5` of instance 5) as that text naming the
//   carried value (`db6`);
// - `contentType`: another media type, or JSON recorded and something else answered;
// - `contract`: the live answer departs from the documents (src/openapi/exchange.ts);
// - `answer`: no answer (the deployment cannot be reached, or took longer than the timeout);
// - `key`: the request's key was redacted in the recording and nothing tells the live one.
// Fields and list elements the live answer has beyond the recorded ones are not departures (a
// deployment may know more than the recording). Exchanges with the controls (`/__tusk/`) and with
// paths of neither interface are skipped, and said so.
import { parseBasic } from '../core/basic-auth.js';
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import { ExchangeChecker } from '../openapi/exchange.js';
import { headerValue, type RecordedExchange } from '../record/exchange.js';
import { PLACEHOLDER } from '../record/redact.js';
import { Carry, isIdentifierField, type Context, type Place } from './carry.js';

export type DepartureKind = 'status' | 'missing' | 'type' | 'value' | 'contentType' | 'contract' | 'answer' | 'key';

export interface ReplayDeparture {
  kind: DepartureKind;
  /** Where in the answer (`body[2].id`, `body.plan`), or the header. */
  field?: string;
  recorded?: string;
  got?: string;
  message: string;
}

export interface ExchangeResult {
  /** The exchange's place in the recording, from 0. */
  index: number;
  api?: InterfaceName;
  method: string;
  /** The recorded path (and query). */
  path: string;
  /** What was sent, after carrying. */
  sent?: string;
  operationId?: string;
  recordedStatus: number;
  status?: number;
  departures: ReplayDeparture[];
  /** Why it was not sent. */
  skipped?: string;
}

export interface ReplayOptions {
  customerUrl: string;
  instanceUrl: string;
  /** Replaces the customer key the recording used most. */
  apiKey?: string;
  /** Replaces an instance key no recorded answer gave. */
  instanceKey?: string;
  documents: Record<InterfaceName, OpenApiDocument>;
  /** ms an answer may take (default 30 s). */
  timeoutMs?: number;
  /** Called as each exchange is done (progress lines). */
  onResult?: (r: ExchangeResult) => void;
}

/** Not sent again: they belong to the connection, or are made anew by fetch. */
const NOT_SENT = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'accept-encoding',
  'authorization',
  'proxy-authorization',
  'te',
  'upgrade',
]);

const TIME_FIELD = /(_at|_date|_by|^date|^time|timestamp)$/;
/** The interfaces' time forms (openapi/: backup_date, maintenance dates, pit, date-time). */
const TIME_VALUE = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?\s*(Z|UTC|[+-]\d\d:?\d\d)?$/;
/** Server-made values that differ between runs and are not identifiers: compared by type. */
const NATURAL_FIELDS = new Set(['size']);

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const show = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};
const isPlaceholder = (v: unknown) => typeof v === 'string' && PLACEHOLDER.test(v);

/** The key of an Authorization header as recorded: a redaction placeholder (`Basic <redacted:...>`), or Basic's password (else user). */
export function recordedKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const redacted = /^Basic\s+(<redacted:[a-z_]+:\d+>)$/i.exec(header.trim());
  if (redacted) return redacted[1];
  const creds = parseBasic(header);
  return typeof creds === 'object' ? creds.password || creds.user || undefined : undefined;
}

function parseJson(text: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (text === undefined || text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The path of an operation up to its first parameter. */
const collectionOf = (template: string) => template.split('/{')[0]!.replace(/\/$/, '');

export class Replayer {
  private readonly checker: ExchangeChecker;
  private readonly carry = new Carry();

  constructor(private readonly options: ReplayOptions) {
    this.checker = new ExchangeChecker(options.documents);
  }

  /** Replays every exchange in order; one result each. */
  async run(exchanges: readonly RecordedExchange[]): Promise<ExchangeResult[]> {
    const apis = this.interfaces(exchanges);
    const accountKey = this.mostUsedKey(exchanges, apis, 'customer');
    const results: ExchangeResult[] = [];
    for (const x of exchanges) {
      const result = await this.one(x, apis.get(x.index), accountKey);
      results.push(result);
      this.options.onResult?.(result);
    }
    return results;
  }

  /** The interface of each exchange: the recording's word, else the documents' paths, else its origin's. */
  private interfaces(exchanges: readonly RecordedExchange[]): Map<number, InterfaceName> {
    const out = new Map<number, InterfaceName>();
    const byOrigin = new Map<string, InterfaceName>();
    for (const x of exchanges) {
      const url = new URL(x.url);
      const api =
        x.api ??
        (['customer', 'instance'] as const).find((a) => this.checker.match(a, x.method, url.pathname) !== undefined);
      if (api) {
        out.set(x.index, api);
        byOrigin.set(url.origin, api);
      }
    }
    for (const x of exchanges) {
      const url = new URL(x.url);
      if (!out.has(x.index) && !url.pathname.startsWith('/__tusk/') && byOrigin.has(url.origin))
        out.set(x.index, byOrigin.get(url.origin)!);
    }
    return out;
  }

  /** The key used most on an interface by requests not answered 401 (the account's key). */
  private mostUsedKey(
    exchanges: readonly RecordedExchange[],
    apis: Map<number, InterfaceName>,
    api: InterfaceName,
  ): string | undefined {
    const counts = new Map<string, number>();
    for (const x of exchanges) {
      if (apis.get(x.index) !== api || x.status === 401) continue;
      const key = recordedKey(headerValue(x.headers, 'authorization'));
      if (key) counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
  }

  private async one(
    x: RecordedExchange,
    api: InterfaceName | undefined,
    accountKey: string | undefined,
  ): Promise<ExchangeResult> {
    const url = new URL(x.url);
    const result: ExchangeResult = {
      index: x.index,
      method: x.method,
      path: url.pathname + url.search,
      recordedStatus: x.status,
      departures: [],
    };
    if (url.pathname.startsWith('/__tusk/'))
      return { ...result, skipped: 'a control of the stand-in, outside the contract' };
    if (!api) return { ...result, skipped: 'a path of neither interface' };
    result.api = api;
    const match = this.checker.match(api, x.method, url.pathname);
    if (match) result.operationId = match.op.operationId;

    // The key.
    const recorded = recordedKey(headerValue(x.headers, 'authorization'));
    let key: string | undefined;
    if (recorded !== undefined) {
      const carried = this.carry.pick(recorded, { api: 'customer', field: 'apikey' });
      if (carried && typeof carried.live === 'string') key = carried.live;
      else if (api === 'customer' && recorded === accountKey && this.options.apiKey) key = this.options.apiKey;
      else if (api === 'instance' && this.options.instanceKey && x.status !== 401) key = this.options.instanceKey;
      else if (!isPlaceholder(recorded) || x.status === 401) key = recorded;
      if (key === undefined) {
        result.departures.push({
          kind: 'key',
          field: 'Authorization',
          message: `the recorded key ${recorded} is redacted and no recorded answer gave it: give ${api === 'customer' ? '--api-key' : '--instance-key'}`,
        });
        return result;
      }
    }
    const credential = recorded ?? '';
    const collection = match ? collectionOf(match.op.path) : url.pathname;

    // The request, carried.
    const segments = url.pathname.split('/');
    const path = segments
      .map((seg, i) => {
        if (i < 3 || !seg) return seg;
        let decoded = seg;
        try {
          decoded = decodeURIComponent(seg);
        } catch {
          /* as it is */
        }
        const picked = this.carry.pick(
          decoded,
          {
            api,
            collection: segments.slice(0, i).join('/'),
            credential,
          },
          true,
        );
        return picked ? encodeURIComponent(String(picked.live)) : seg;
      })
      .join('/');
    const query = new URLSearchParams();
    for (const [k, v] of url.searchParams) query.append(k, this.carryText(v, { api, field: k, credential }));
    const type = headerValue(x.headers, 'content-type') ?? '';
    let body = x.body;
    if (body && /json/i.test(type)) {
      const parsed = parseJson(body);
      if (parsed.ok) body = JSON.stringify(this.carryJson(parsed.value, { api, credential }, ''));
    } else if (body && /x-www-form-urlencoded/i.test(type)) {
      const form = new URLSearchParams(body);
      const out = new URLSearchParams();
      for (const [k, v] of form) {
        const field = k.replace(/\[\]$/, '');
        out.append(k, this.carryText(v, { api, field, credential }, /\[\]$/.test(k) || isIdentifierField(field)));
      }
      body = out.toString();
    }
    const headers = new Headers();
    for (const [name, value] of x.headers) if (!NOT_SENT.has(name.toLowerCase())) headers.append(name, value);
    if (key !== undefined) headers.set('authorization', `Basic ${Buffer.from(`:${key}`).toString('base64')}`);
    const base = (api === 'customer' ? this.options.customerUrl : this.options.instanceUrl).replace(/\/+$/, '');
    const search = query.toString();
    result.sent = `${path}${search ? `?${search}` : ''}`;

    let res: Response;
    let text: string;
    try {
      res = await fetch(`${base}${result.sent}`, {
        method: x.method,
        headers,
        ...(body && x.method !== 'GET' && x.method !== 'HEAD' ? { body } : {}),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
      text = await res.text();
    } catch (err) {
      const cause =
        (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message;
      result.departures.push({ kind: 'answer', message: `no answer from ${base}: ${cause}` });
      return result;
    }
    result.status = res.status;
    const d = result.departures;
    if (res.status !== x.status)
      d.push({
        kind: 'status',
        recorded: String(x.status),
        got: String(res.status),
        message: `status ${res.status}, recorded ${x.status}`,
      });

    const liveHeaders: Record<string, string> = {};
    res.headers.forEach((v, k) => (liveHeaders[k] = v));
    const liveType = (liveHeaders['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const recordedType = (headerValue(x.responseHeaders, 'content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (res.status === x.status) {
      const before = parseJson(x.responseBody);
      if (recordedType && liveType && recordedType !== liveType)
        d.push({
          kind: 'contentType',
          recorded: recordedType,
          got: liveType,
          message: `content type ${liveType}, recorded ${recordedType}`,
        });
      else if (before.ok) {
        const after = parseJson(text);
        if (!after.ok)
          d.push({ kind: 'contentType', message: `the recorded answer was JSON, this one is not: ${show(text)}` });
        else
          this.compare(before.value, after.value, 'body', '', {
            api,
            collection,
            credential,
            index: x.index,
            create: x.method === 'POST',
            error: x.status >= 400,
            departures: d,
          });
      }
    }
    if (match)
      for (const c of this.checker.responseDepartures(
        match.op,
        { status: res.status, headers: liveHeaders, text },
        { head: x.method === 'HEAD' },
      ))
        d.push({ kind: 'contract', ...(c.field ? { field: c.field } : {}), message: `${c.rule}: ${c.message}` });
    return result;
  }

  /** A recorded scalar of a request as sent: the value carried for it where it is a made value. */
  private carryText(value: string, context: Context, always = isIdentifierField(context.field ?? '')): string {
    if (!always && !(value.length >= 8 || isPlaceholder(value))) return value;
    // A key crosses the interfaces (made by the customer one, used on the instance one); ids do not.
    const picked = this.carry.pick(value, context, !(value.length >= 8 || isPlaceholder(value)));
    return picked ? String(picked.live) : value;
  }

  /** A JSON request body with the made values carried (identifier fields, lists of ids, long strings). */
  private carryJson(value: unknown, context: Context, field: string, inList = false): unknown {
    if (Array.isArray(value)) return value.map((v) => this.carryJson(v, context, field, true));
    if (value && typeof value === 'object')
      return Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, this.carryJson(v, context, k)]),
      );
    const identifier = isIdentifierField(field) || (inList && typeof value === 'number');
    if (typeof value === 'number' && identifier) {
      const picked = this.carry.pick(value, { ...context, field }, true);
      return picked && typeof picked.live === 'number' ? picked.live : value;
    }
    if (typeof value === 'string') return this.carryText(value, { ...context, field }, identifier);
    return value;
  }

  /** Compares a recorded answer's JSON with the live one (see the first comment), carrying made values. */
  private compare(
    rec: unknown,
    live: unknown,
    where: string,
    field: string,
    ctx: Omit<Place, 'field'> & { create: boolean; error: boolean; departures: ReplayDeparture[] },
  ): void {
    const d = ctx.departures;
    if (live === undefined) {
      d.push({
        kind: 'missing',
        field: where,
        recorded: show(rec),
        message: `${where} is missing (recorded ${show(rec)})`,
      });
      return;
    }
    if (typeOf(rec) !== typeOf(live)) {
      d.push({
        kind: 'type',
        field: where,
        recorded: typeOf(rec),
        got: typeOf(live),
        message: `${where} is ${typeOf(live)} ${show(live)}, recorded ${typeOf(rec)} ${show(rec)}`,
      });
      return;
    }
    if (Array.isArray(rec)) {
      const list = live as unknown[];
      const used = new Set<number>();
      rec.forEach((r, i) => {
        let j = i;
        const id = r && typeof r === 'object' && !Array.isArray(r) ? (r as Record<string, unknown>).id : undefined;
        if (id !== undefined) {
          const carried = this.carry.pick(id, {
            api: ctx.api,
            collection: ctx.collection,
            field: 'id',
            credential: ctx.credential,
          });
          const wanted = carried ? carried.live : id;
          const found = list.findIndex(
            (l, k) => !used.has(k) && l && typeof l === 'object' && (l as Record<string, unknown>).id === wanted,
          );
          if (found >= 0) j = found;
          else if (carried || used.has(i)) j = -1;
        }
        if (j < 0 || j >= list.length) {
          d.push({
            kind: 'missing',
            field: `${where}[${i}]`,
            recorded: show(r),
            message: `${where}[${i}] is missing (recorded ${show(r)})`,
          });
          return;
        }
        used.add(j);
        this.compare(r, list[j], `${where}[${i}]`, field, ctx);
      });
      return;
    }
    if (rec && typeof rec === 'object') {
      for (const [k, v] of Object.entries(rec as Record<string, unknown>))
        this.compare(v, (live as Record<string, unknown>)[k], `${where}.${k}`, k, ctx);
      return;
    }
    // A scalar.
    if (isIdentifierField(field) || isPlaceholder(rec)) {
      const earlier = ctx.create
        ? undefined
        : this.carry.pick(rec, { api: ctx.api, collection: ctx.collection, field, credential: ctx.credential });
      if (
        earlier &&
        earlier.place.collection === ctx.collection &&
        earlier.place.field === field &&
        earlier.live !== live &&
        live !== rec &&
        !isPlaceholder(rec)
      )
        d.push({
          kind: 'value',
          field: where,
          recorded: show(rec),
          got: show(live),
          message: `${where} is ${show(live)}: recorded ${show(rec)}, carried as ${show(earlier.live)}`,
        });
      this.carry.add(rec, live, {
        api: ctx.api,
        collection: ctx.collection,
        field,
        credential: ctx.credential,
        index: ctx.index,
      });
      return;
    }
    if (rec === live) return;
    if (TIME_FIELD.test(field) || (typeof rec === 'string' && TIME_VALUE.test(rec))) return;
    if (NATURAL_FIELDS.has(field)) return;
    if (ctx.error && field === 'error') return;
    if (this.carry.carriedAs(rec, live) || this.carry.carriedWithin(rec, live)) return;
    d.push({
      kind: 'value',
      field: where,
      recorded: show(rec),
      got: show(live),
      message: `${where} is ${show(live)}, recorded ${show(rec)}`,
    });
  }
}
