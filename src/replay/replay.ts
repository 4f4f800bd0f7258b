// `tusk replay`: sends a recording's requests (a HAR file or a go-vcr cassette, src/record/) again
// to a deployment, in order, one at a time, and names each departure of its answers from the
// recorded ones and from the contract.
//
// Carried (carry.ts; the request sent: request.ts): the values the recorded answers made (ids, keys,
// urls, providerids) are replaced in later requests by what the live answers had at the same place.
// The account's key: the customer key the recording used most is replaced by --api-key; an
// instance key that no recorded answer gave (a recording that begins with an existing instance) by
// --instance-key; any other key is sent as recorded (a recording of a wrong key's 401 stays one).
//
// Departures, per exchange (the rules are in README.md, "tusk replay"; the bodies are compared in
// compare.ts):
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
import type { InterfaceName, OpenApiDocument } from '../openapi/documents.js';
import { ExchangeChecker } from '../openapi/exchange.js';
import { headerValue, type RecordedExchange } from '../record/exchange.js';
import { Carry } from './carry.js';
import { compareJson, show, type ReplayDeparture } from './compare.js';
import { carriedRequest, liveKey, parseJson, recordedKey } from './request.js';

export type { DepartureKind, ReplayDeparture } from './compare.js';

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
      key = liveKey(this.carry, recorded, api, x.status, accountKey, this.options);
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
    const { sent, headers, body } = carriedRequest(this.carry, x, api, credential, key);
    const base = (api === 'customer' ? this.options.customerUrl : this.options.instanceUrl).replace(/\/+$/, '');
    result.sent = sent;

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
          compareJson(this.carry, before.value, after.value, 'body', '', {
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
}
