// Durations of the clock control: `10m`, `1.5h`, `250ms`, `30d`, or a number of ms.
const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** ms of a duration; undefined when it is not one (negative, not finite, unknown unit). */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(value.trim());
  if (!m) return undefined;
  const ms = Number(m[1]) * UNITS[m[2]!]!;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}
