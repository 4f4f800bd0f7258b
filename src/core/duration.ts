// Durations as the controls, the fault rules and the flags write them: a number and a unit, `250ms`,
// `1.5s`, `10m`, `2h`, `30d` (POST /__tusk/clock {advance}, a fault's latency, --rate-limit's window).
const UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
export type DurationUnit = keyof typeof UNITS;

/**
 * ms of a duration: `<number><unit>` (a space between them allowed), a bare number in `bareUnit`
 * when one is given, or a JavaScript number of ms; undefined when it is none (negative, not finite,
 * an unknown unit, anything around it).
 */
export function parseDuration(value: unknown, bareUnit?: DurationUnit): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(value.trim());
  const unit = (m?.[2] as DurationUnit | undefined) ?? bareUnit;
  if (!m || !unit) return undefined;
  const ms = Number(m[1]) * UNITS[unit];
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}
