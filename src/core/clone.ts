// A deep copy of JSON data (what JSON.parse gives: objects, arrays, strings, numbers, booleans,
// null), for the stores that hand out copies of stored request bodies (integration configs,
// recipient options). structuredClone gives the same result for such data but goes through V8's
// serializer, which costs more than walking the value, on every create, read and list.

/** A deep copy of `value`, JSON data only (an own `__proto__` key stays a key, as JSON.parse made it). */
export function cloneJson<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneJson) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = cloneJson((value as Record<string, unknown>)[key]);
    if (key === '__proto__')
      Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out as T;
}
