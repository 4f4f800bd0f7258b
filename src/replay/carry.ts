// What `tusk replay` carries from the recorded answers into later requests: a value the server made
// (an id, a key, a url, a providerid) is remembered with the value the live answer had at the same
// place, and where that recorded value stands in a later recorded request (a path segment, a query
// value, a body field, the key of the Authorization header) the live one is sent instead. A value
// may have been made in several places (id 5 of an instance, id 5 of an alarm): the place that fits
// the request best wins (the same interface, the same collection, the same field, the same key of
// the instance interface), the latest of equals.
import type { InterfaceName } from '../openapi/documents.js';
import { PLACEHOLDER } from '../record/redact.js';

/** Where a value was made: the exchange, its interface and collection, and the field. */
export interface Place {
  api: InterfaceName;
  /** The operation's path up to its first parameter (`/api/instances`, `/api/alarms/recipients`). */
  collection: string;
  /** The field's name (`id`, `apikey`, `backup_id`). */
  field: string;
  /** The key the request was made with (instance ids are per instance). */
  credential: string;
  index: number;
}

interface Carried extends Place {
  live: unknown;
}

/** What a request's value is looked up with: any part of a Place. */
export type Context = Partial<Omit<Place, 'index'>>;

/**
 * Fields whose values the server makes, and which a replay carries instead of comparing: `id`, any
 * `*_id`, `providerid`, `apikey`, `key`, `password`, `url`, `file_name`.
 */
export function isIdentifierField(field: string): boolean {
  return (
    field === 'id' ||
    field.endsWith('_id') ||
    ['providerid', 'apikey', 'key', 'password', 'url', 'file_name'].includes(field)
  );
}

/** Whether a value is a placeholder the recording put in place of a secret (`<redacted:KIND:N>`): carried as a made value. */
export const isPlaceholder = (v: unknown) => typeof v === 'string' && PLACEHOLDER.test(v);

/** The name of what a collection holds (`/api/alarms/recipients` -> `recipient`, `/api/backup` -> `backup`). */
const noun = (collection: string) => (collection.split('/').pop() ?? '').replace(/s$/, '');

export class Carry {
  private readonly byValue = new Map<string, Carried[]>();

  /** Remembers that the recorded answer had `recorded` where the live one has `live`. */
  add(recorded: unknown, live: unknown, place: Place): void {
    if (recorded === null || recorded === undefined || typeof recorded === 'object') return;
    const key = String(recorded);
    const list = this.byValue.get(key) ?? [];
    list.push({ ...place, live });
    this.byValue.set(key, list);
  }

  /**
   * The live value for a recorded one in this context (undefined: none was carried). `sameApi`:
   * only a value made by the same interface (ids are per interface; keys cross them).
   */
  pick(recorded: unknown, context: Context, sameApi = false): { live: unknown; place: Place } | undefined {
    if (recorded === null || recorded === undefined || typeof recorded === 'object') return undefined;
    const list = (this.byValue.get(String(recorded)) ?? []).filter((c) => !sameApi || c.api === context.api);
    if (!list.length) return undefined;
    const score = (c: Carried) => {
      let s = 0;
      if (context.api && c.api === context.api) s += 8;
      if (context.collection && c.collection === context.collection) s += 4;
      if (context.field) {
        if (c.field === context.field) s += 4;
        else if (context.field.endsWith('_id') && noun(c.collection).startsWith(context.field.slice(0, -3))) s += 4;
        else if (noun(c.collection) && context.field.startsWith(noun(c.collection))) s += 3;
      }
      if (context.credential !== undefined && c.credential === context.credential) s += 2;
      return s;
    };
    let best = list[0]!;
    for (const c of list) if (score(c) >= score(best)) best = c;
    const { live, ...place } = best;
    return { live, place };
  }

  /** Whether `live` is what `recorded` was carried as in some place (a reference to a made value). */
  carriedAs(recorded: unknown, live: unknown): boolean {
    if (recorded === null || recorded === undefined || typeof recorded === 'object') return false;
    return (this.byValue.get(String(recorded)) ?? []).some((c) => c.live === live);
  }

  /**
   * Whether the text `live` is the recorded text with the numbers in it that were carried replaced
   * by what they were carried as (`db5` of instance 5, carried as 6: `db6`).
   */
  carriedWithin(recorded: unknown, live: unknown): boolean {
    if (typeof recorded !== 'string' || typeof live !== 'string') return false;
    const parts = recorded.split(/(\d+)/);
    let texts = [''];
    for (const [i, part] of parts.entries()) {
      const options =
        i % 2 === 1 ? [part, ...new Set((this.byValue.get(part) ?? []).map((c) => String(c.live)))] : [part];
      texts = texts.flatMap((t) => options.map((o) => t + o)).slice(0, 64);
    }
    return texts.includes(live);
  }

  /** Whether a recorded value was made by an answer (its place is known). */
  has(recorded: unknown): boolean {
    return recorded !== null && typeof recorded !== 'object' && this.byValue.has(String(recorded));
  }
}
