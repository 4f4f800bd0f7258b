// The date and time forms of the instance interface, written and read in UTC.
//   backup_date        yyyy-mm-dd hh:mm:ss+0000   (offset directly after the seconds)
//   maintenance dates  yyyy-mm-dd hh:mm:ss +0000  (a space before the offset; any offset on input)
//   pit                yyyy-mm-dd hh:mm           (UTC)
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** ISO 8601 in UTC, as `Date.prototype.toISOString` writes it. */
export const isoTime = (ms: number): string => new Date(ms).toISOString();

/** `yyyy-mm-dd hh:mm:ss` of a time, in UTC. */
function dateTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `yyyy-mm-dd hh:mm:ss UTC` (the audit log's Timestamp column). */
export const auditTimestamp = (ms: number): string => `${dateTime(ms)} UTC`;

/** `yyyy-mm-dd hh:mm:ss+0000` (Backup.backup_date). */
export const formatBackupDate = (ms: number): string => `${dateTime(ms)}+0000`;

/** `yyyy-mm-dd hh:mm:ss +0000` (Maintenance.scheduled_by and required_by). */
export const formatMaintenanceDate = (ms: number): string => `${dateTime(ms)} +0000`;

/** `yyyy-mm-ddThh-mm-ss`: a time as a file-name part. */
export const fileStamp = (ms: number): string => dateTime(ms).replace(' ', 'T').replace(/:/g, '-');

/** The start (00:00 UTC) of the day of a time. */
export const startOfUtcDay = (ms: number): number => Math.floor(ms / DAY) * DAY;

/** The time cut down to whole minutes. */
export const floorToMinute = (ms: number): number => Math.floor(ms / MINUTE) * MINUTE;

/** ms of a UTC calendar time, or undefined when the fields name no real time (2026-02-30). */
function utc(y: number, mo: number, d: number, h: number, mi: number, s: number): number | undefined {
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  const same =
    back.getUTCFullYear() === y &&
    back.getUTCMonth() === mo - 1 &&
    back.getUTCDate() === d &&
    back.getUTCHours() === h &&
    back.getUTCMinutes() === mi &&
    back.getUTCSeconds() === s;
  return same ? ms : undefined;
}

/** Reads `yyyy-mm-dd hh:mm` as UTC; undefined when it is not that form or not a real calendar time. */
export function parsePitMinute(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
  return utc(y, mo, d, h, mi, 0);
}

/** Reads `yyyy-mm-dd hh:mm:ss` as UTC (create-instance's pit); undefined when not that form or not a real time. */
export function parsePitSecond(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return utc(y, mo, d, h, mi, s);
}

/** Reads `yyyy-mm-dd hh:mm:ss ±hhmm` (any offset); undefined when it is not that form or not a real time. */
export function parseMaintenanceDate(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/.exec(text);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const [oh, om] = [Number(m[8]), Number(m[9])];
  if (oh > 23 || om > 59) return undefined;
  const local = utc(y, mo, d, h, mi, s);
  if (local === undefined) return undefined;
  const offset = (m[7] === '-' ? -1 : 1) * (oh * HOUR + om * MINUTE);
  return local - offset;
}

/** `30 minutes`, `1 hour`, `2 hours` of a whole number of minutes. */
export function formatDuration(minutes: number): string {
  if (minutes % 60 === 0) {
    const h = minutes / 60;
    return `${h} ${h === 1 ? 'hour' : 'hours'}`;
  }
  return `${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

/** A month index (year * 12 + month - 1) of `yyyy-mm` or `yyyy/m`. */
export function monthIndexOfYearMonth(text: string): number {
  const [y, m] = text.split(/[-/]/).map(Number) as [number, number];
  return y * 12 + m - 1;
}

/** The month index (year * 12 + month - 1) of a time, in UTC. */
export function monthIndexOfTime(ms: number): number {
  const d = new Date(ms);
  return d.getUTCFullYear() * 12 + d.getUTCMonth();
}
