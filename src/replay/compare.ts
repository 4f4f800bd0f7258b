// How `tusk replay` compares a recorded answer's JSON with the live one, field by field and element
// by element (the rules of `missing`, `type` and `value`: the first comment of replay.ts): made
// values are carried (carry.ts) rather than compared, a list's elements are matched by their
// carried ids, and the values that differ between runs by nature (times, sizes, an Error's
// message, redacted ones, texts naming a carried value) are let pass.
import { isIdentifierField, isPlaceholder, type Carry, type Place } from './carry.js';

export type DepartureKind = 'status' | 'missing' | 'type' | 'value' | 'contentType' | 'contract' | 'answer' | 'key';

export interface ReplayDeparture {
  kind: DepartureKind;
  /** Where in the answer (`body[2].id`, `body.plan`), or the header. */
  field?: string;
  recorded?: string;
  got?: string;
  message: string;
}

/** Where the answers compared were made, and where their departures go. */
export type Comparison = Omit<Place, 'field'> & { create: boolean; error: boolean; departures: ReplayDeparture[] };

const TIME_FIELD = /(_at|_date|_by|^date|^time|timestamp)$/;
/** The interfaces' time forms (openapi/: backup_date, maintenance dates, pit, date-time). */
const TIME_VALUE = /^\d{4}-\d\d-\d\d[ T]\d\d:\d\d(:\d\d(\.\d+)?)?\s*(Z|UTC|[+-]\d\d:?\d\d)?$/;
/** Server-made values that differ between runs and are not identifiers: compared by type. */
const NATURAL_FIELDS = new Set(['size']);

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);

/** A value as a departure's message quotes it (at most 80 characters). */
export const show = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
};

/** Compares a recorded answer's JSON with the live one (see the first comment), carrying made values. */
export function compareJson(
  carry: Carry,
  rec: unknown,
  live: unknown,
  where: string,
  field: string,
  ctx: Comparison,
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
        const carried = carry.pick(id, {
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
      compareJson(carry, r, list[j], `${where}[${i}]`, field, ctx);
    });
    return;
  }
  if (rec && typeof rec === 'object') {
    for (const [k, v] of Object.entries(rec as Record<string, unknown>))
      compareJson(carry, v, (live as Record<string, unknown>)[k], `${where}.${k}`, k, ctx);
    return;
  }
  // A scalar.
  if (isIdentifierField(field) || isPlaceholder(rec)) {
    const earlier = ctx.create
      ? undefined
      : carry.pick(rec, { api: ctx.api, collection: ctx.collection, field, credential: ctx.credential });
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
    carry.add(rec, live, {
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
  if (carry.carriedAs(rec, live) || carry.carriedWithin(rec, live)) return;
  d.push({
    kind: 'value',
    field: where,
    recorded: show(rec),
    got: show(live),
    message: `${where} is ${show(live)}, recorded ${show(rec)}`,
  });
}
