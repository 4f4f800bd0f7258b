// The date and time forms of the instance interface, written and read in UTC.
//   backup_date        yyyy-mm-dd hh:mm:ss+0000   (offset directly after the seconds)
//   maintenance dates  yyyy-mm-dd hh:mm:ss +0000  (a space before the offset; any offset on input)
//   pit                yyyy-mm-dd hh:mm           (UTC)
export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

// The calendar by arithmetic, not through Date objects: maintenance writes, notifications and
// listings format and read dates on every request, and `new Date(ms)` with six getUTC* calls cost
// more than the rest of such a request's store work (issue 20's profiles). Same results as Date's
// proleptic Gregorian UTC calendar (test/store/dates.test.ts checks them against Date).

/** Two digits (or more, for a number over 99). */
const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/** The largest time a Date holds (ms from the epoch, either way). */
const MAX_TIME = 8.64e15;

/** The UTC date of a day number (days since 1970-01-01); m and d from 1 (H. Hinnant's civil_from_days). */
function civil(days: number): { y: number; m: number; d: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097; // [0, 146096]
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365); // [0, 399]
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100)); // [0, 365]
  const mp = Math.floor((5 * doy + 2) / 153); // [0, 11], from March
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d };
}

/** `yyyy-mm-dd hh:mm:ss` of a time, in UTC. */
function dateTime(ms: number): string {
  if (!(Math.abs(ms) <= MAX_TIME)) return dateTimeOfDate(new Date(ms)); // NaN and beyond Date's range: as Date writes them
  const days = Math.floor(ms / DAY);
  const { y, m, d } = civil(days);
  const secs = Math.floor((ms - days * DAY) / SECOND);
  return `${y}-${two(m)}-${two(d)} ${two(Math.floor(secs / 3600))}:${two(Math.floor(secs / 60) % 60)}:${two(secs % 60)}`;
}

function dateTimeOfDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** `new Date(ms).toISOString()`, without the Date for the years 0 to 9999 (a RangeError for an invalid time, as Date's). */
export function isoTime(ms: number): string {
  if (!(Math.abs(ms) <= MAX_TIME)) return new Date(ms).toISOString();
  const days = Math.floor(ms / DAY);
  const { y, m, d } = civil(days);
  if (y < 0 || y > 9999) return new Date(ms).toISOString(); // the extended ±yyyyyy form
  const inDay = ms - days * DAY;
  const secs = Math.floor(inDay / SECOND);
  const milli = inDay - secs * SECOND;
  const year = y < 1000 ? String(y).padStart(4, '0') : `${y}`;
  return `${year}-${two(m)}-${two(d)}T${two(Math.floor(secs / 3600))}:${two(Math.floor(secs / 60) % 60)}:${two(secs % 60)}.${milli < 10 ? `00${milli}` : milli < 100 ? `0${milli}` : milli}Z`;
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

const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const leap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);

/**
 * ms of a UTC calendar time, or undefined when the fields name no real time (2026-02-30). The
 * fields are whole numbers from the parsers' digits. Years before 100 are refused: Date.UTC reads
 * them as 1900 to 1999.
 */
function utc(y: number, mo: number, d: number, h: number, mi: number, s: number): number | undefined {
  if (y < 100 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  if (d > (mo === 2 && leap(y) ? 29 : MONTH_DAYS[mo - 1]!)) return undefined;
  return Date.UTC(y, mo - 1, d, h, mi, s);
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
