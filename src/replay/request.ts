// The request `tusk replay` sends for a recorded one (the rules: the first comment of replay.ts):
// the key chosen (carried, --api-key for the account's, --instance-key, or as recorded), and the
// values the recorded answers made carried (carry.ts) into the path's segments, the query's values
// and the body's fields (JSON or a form); the recorded headers but those of the connection.
import { parseBasic } from '../core/basic-auth.js';
import type { InterfaceName } from '../openapi/documents.js';
import { headerValue, type RecordedExchange } from '../record/exchange.js';
import { isIdentifierField, isPlaceholder, type Carry, type Context } from './carry.js';

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

/** The key of an Authorization header as recorded: a redaction placeholder (`Basic <redacted:...>`), or Basic's password (else user). */
export function recordedKey(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const redacted = /^Basic\s+(<redacted:[a-z_]+:\d+>)$/i.exec(header.trim());
  if (redacted) return redacted[1];
  const creds = parseBasic(header);
  return typeof creds === 'object' ? creds.password || creds.user || undefined : undefined;
}

export function parseJson(text: string | undefined): { ok: true; value: unknown } | { ok: false } {
  if (text === undefined || text.trim() === '') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

/** The keys given to the replay: the account's customer key and an instance key. */
export interface GivenKeys {
  apiKey?: string;
  instanceKey?: string;
}

/**
 * The key sent for a recorded one: the key a recorded answer gave, carried; the given key in place
 * of the account's (`accountKey`) or of an instance key no answer gave; else the recorded key,
 * unless it was redacted (undefined: nothing tells the live key) and the recorded answer not a 401.
 */
export function liveKey(
  carry: Carry,
  recorded: string,
  api: InterfaceName,
  recordedStatus: number,
  accountKey: string | undefined,
  given: GivenKeys,
): string | undefined {
  const carried = carry.pick(recorded, { api: 'customer', field: 'apikey' });
  if (carried && typeof carried.live === 'string') return carried.live;
  if (api === 'customer' && recorded === accountKey && given.apiKey) return given.apiKey;
  if (api === 'instance' && given.instanceKey && recordedStatus !== 401) return given.instanceKey;
  if (!isPlaceholder(recorded) || recordedStatus === 401) return recorded;
  return undefined;
}

/** A request as replay sends it. */
export interface CarriedRequest {
  /** The path and query, carried. */
  sent: string;
  headers: Headers;
  body: string;
}

/** The recorded request with the made values carried, sent with `key` (none: no Authorization). */
export function carriedRequest(
  carry: Carry,
  x: RecordedExchange,
  api: InterfaceName,
  credential: string,
  key: string | undefined,
): CarriedRequest {
  const url = new URL(x.url);
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
      const picked = carry.pick(
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
  for (const [k, v] of url.searchParams) query.append(k, carryText(carry, v, { api, field: k, credential }));
  const type = headerValue(x.headers, 'content-type') ?? '';
  let body = x.body;
  if (body && /json/i.test(type)) {
    const parsed = parseJson(body);
    if (parsed.ok) body = JSON.stringify(carryJson(carry, parsed.value, { api, credential }, ''));
  } else if (body && /x-www-form-urlencoded/i.test(type)) {
    const form = new URLSearchParams(body);
    const out = new URLSearchParams();
    for (const [k, v] of form) {
      const field = k.replace(/\[\]$/, '');
      out.append(k, carryText(carry, v, { api, field, credential }, /\[\]$/.test(k) || isIdentifierField(field)));
    }
    body = out.toString();
  }
  const headers = new Headers();
  for (const [name, value] of x.headers) if (!NOT_SENT.has(name.toLowerCase())) headers.append(name, value);
  if (key !== undefined) headers.set('authorization', `Basic ${Buffer.from(`:${key}`).toString('base64')}`);
  const search = query.toString();
  return { sent: `${path}${search ? `?${search}` : ''}`, headers, body };
}

/** A recorded scalar of a request as sent: the value carried for it where it is a made value. */
function carryText(
  carry: Carry,
  value: string,
  context: Context,
  always = isIdentifierField(context.field ?? ''),
): string {
  if (!always && !(value.length >= 8 || isPlaceholder(value))) return value;
  // A key crosses the interfaces (made by the customer one, used on the instance one); ids do not.
  const picked = carry.pick(value, context, !(value.length >= 8 || isPlaceholder(value)));
  return picked ? String(picked.live) : value;
}

/** A JSON request body with the made values carried (identifier fields, lists of ids, long strings). */
function carryJson(carry: Carry, value: unknown, context: Context, field: string, inList = false): unknown {
  if (Array.isArray(value)) return value.map((v) => carryJson(carry, v, context, field, true));
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, carryJson(carry, v, context, k)]),
    );
  const identifier = isIdentifierField(field) || (inList && typeof value === 'number');
  if (typeof value === 'number' && identifier) {
    const picked = carry.pick(value, { ...context, field }, true);
    return picked && typeof picked.live === 'number' ? picked.live : value;
  }
  if (typeof value === 'string') return carryText(carry, value, { ...context, field }, identifier);
  return value;
}
