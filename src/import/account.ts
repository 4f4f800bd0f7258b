// `tusk import`'s reading of one account through its public API (GET requests only: source.ts):
// the instances (list, then each one's record with its instance key), per instance on the instance
// interface with that key its recipients, alarms, log and metrics integrations, backups and
// maintenance; the team; the invoices with their details; the audit log, month by month back from
// the latest until every instance's creation is found or `auditMonths` months were read. A part
// that cannot be read (a role that may not read it: 403) is noted and left out, never guessed;
// only the instance list is required. One progress line per instance.
import { parse } from 'csv-parse/sync';
import type { InterfaceName } from '../openapi/documents.js';
import { Source, SourceError } from './source.js';
import type {
  AccountRead,
  AuditRow,
  InstanceRead,
  InstanceSummary,
  InvoiceDetail,
  InvoiceSummary,
  TeamMember,
} from './read.js';
import { parseExtras, parseTime } from './values.js';

export interface ReadOptions {
  /** Months of the audit log read at most (default 12). */
  auditMonths?: number;
  log: (line: string) => void;
}

/** `yyyy-mm` of a time. */
const monthOf = (t: number) => new Date(t).toISOString().slice(0, 7);
/** The month before `yyyy-mm`. */
function monthBefore(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 1 ? `${y - 1}-12` : `${y}-${String(m - 1).padStart(2, '0')}`;
}

/** The rows of an audit CSV; throws when it is not the documented form. */
export function parseAuditCsv(text: string): { rows: AuditRow[]; unreadable: number } {
  const records = parse(text, { relax_column_count: true, skip_empty_lines: true }) as string[][];
  const [header, ...lines] = records;
  if (!header || header.join(',') !== 'Timestamp,Event,Source,User,Extras')
    throw new Error('the audit log CSV does not start with Timestamp,Event,Source,User,Extras');
  const rows: AuditRow[] = [];
  let unreadable = 0;
  for (const [timestamp = '', event = '', source = '', user = '', extrasText = ''] of lines) {
    const at = parseTime(timestamp);
    const extras = parseExtras(extrasText);
    if (Number.isNaN(at) || !extras) {
      unreadable++;
      continue;
    }
    rows.push({ at, event, source, user, extras });
  }
  return { rows, unreadable };
}

export async function readAccount(source: Source, options: ReadOptions): Promise<AccountRead> {
  const notes: string[] = [];
  const log = options.log;
  /** An optional part: its value, or undefined with a note saying why it was not read. */
  const optional = async <T>(what: string, read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof SourceError)) throw err;
      notes.push(
        `${what}: not read (${err.status ? `${err.status}` : 'no answer'}${err.status === 403 ? ": the key's role may not read it" : ''}); none carried`,
      );
      return undefined;
    }
  };
  const get = <T>(api: InterfaceName, path: string, key?: string) => source.json<T>(api, path, key);

  const summaries = await get<InstanceSummary[]>('customer', '/api/instances');
  log(`tusk import: ${summaries.length} instances`);
  const team = await optional('team', () => get<TeamMember[]>('customer', '/api/team'));
  const invoices = await optional('invoices', async () => {
    const list = await get<InvoiceSummary[]>('customer', '/api/invoices');
    const out: { summary: InvoiceSummary; detail: InvoiceDetail }[] = [];
    for (const summary of list)
      out.push({ summary, detail: await get<InvoiceDetail>('customer', `/api/invoices/${summary.id}`) });
    return out;
  });
  if (invoices) log(`tusk import: ${invoices.length} invoices`);

  // The audit log: the latest month with events, then the months before it.
  const wanted = new Set(summaries.map((s) => s.id));
  const auditMonths: string[] = [];
  const audit: AuditRow[] = [];
  await optional('audit log', async () => {
    const csv = async (query: string) => {
      const answer = await source.get('customer', `/api/auditlog/csv${query}`);
      if (answer.status !== 200)
        throw new SourceError('customer', '/api/auditlog/csv', answer.status, `audit log answered ${answer.status}`);
      const { rows, unreadable } = parseAuditCsv(answer.text);
      if (unreadable)
        notes.push(`audit log: ${unreadable} rows of ${query || 'the latest month'} unreadable; not carried`);
      return rows;
    };
    const latest = await csv('');
    if (!latest.length) return; // no event at all
    let month = monthOf(latest[0]!.at);
    const months = Math.max(1, options.auditMonths ?? 12);
    let rows = latest;
    for (;;) {
      auditMonths.push(month);
      audit.unshift(...rows);
      for (const r of rows)
        if (r.event === 'instance.create') wanted.delete(Number(r.extras.find(([k]) => k === 'instance_id')?.[1]));
      if (wanted.size === 0 || auditMonths.length >= months) break;
      month = monthBefore(month);
      rows = await csv(`?timestamp=${month}`);
    }
    log(`tusk import: audit log, ${auditMonths.length} months, ${audit.length} events`);
  });

  const instances: InstanceRead[] = [];
  for (const [n, summary] of summaries.entries()) {
    const read: InstanceRead = { summary };
    instances.push(read);
    read.detail = await optional(`instance ${summary.id}`, () =>
      get<InstanceRead['detail']>('customer', `/api/instances/${summary.id}`),
    );
    const key = read.detail?.apikey;
    if (key) {
      const part = <T>(what: string, path: string) =>
        optional(`instance ${summary.id} ${what}`, () => get<T>('instance', path, key));
      read.recipients = await part('recipients', '/api/alarms/recipients');
      read.alarms = await part('alarms', '/api/alarms');
      read.logs = await part('log integrations', '/api/integrations/logs');
      read.metrics = await part('metrics integrations', '/api/integrations/metrics');
      read.backups = await part('backups', '/api/backup');
      read.maintenance = await part('maintenance', '/api/maintenance');
    }
    const count = (list: unknown[] | undefined) => (list ? String(list.length) : '?');
    log(
      `tusk import: instance ${n + 1}/${summaries.length} ${summary.name} (id ${summary.id}, ${summary.plan}, ${summary.region}): ` +
        `${count(read.alarms)} alarms, ${count(read.recipients)} recipients, ${count(read.logs)} log + ${count(read.metrics)} metrics integrations, ` +
        `${count(read.backups)} backups, ${count(read.maintenance)} maintenance`,
    );
  }
  return {
    sourceNow: Number.isNaN(source.now) ? Date.now() : source.now,
    localNow: Date.now(),
    instances,
    ...(team ? { team } : {}),
    ...(invoices ? { invoices } : {}),
    ...(auditMonths.length ? { audit, auditMonths } : {}),
    notes,
  };
}
