// HAR 1.2 (the HTTP Archive format browsers and HTTP tools read and write): the types of the parts
// Tusk writes and reads, the file `tusk proxy --record FILE` appends to, and the reader `tusk replay`
// uses. The file is a whole HAR document after every entry: it is written once with an empty
// `entries` array, and each entry is written with one positional write over the document's closing
// characters (`\n]}}\n`), which it writes again after the entry, so a process killed between two
// writes leaves a document that parses. A kill during a write can tear it (Linux stops a write of
// several pages at a page when a fatal signal comes), as can a power cut (no sync per entry): each
// entry is one line, so the reader drops a torn last line and reads the entries before it. Entries carry `_api` (customer or instance), a custom field as HAR allows (fields
// starting with `_`), so that a replay needs no guess about which interface an entry went to.
import { closeSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { InterfaceName } from '../openapi/documents.js';

export interface HarNameValue {
  name: string;
  value: string;
}

export interface HarRequest {
  method: string;
  url: string;
  httpVersion: string;
  cookies: HarNameValue[];
  headers: HarNameValue[];
  queryString: HarNameValue[];
  postData?: { mimeType: string; text: string; params?: HarNameValue[] };
  headersSize: number;
  bodySize: number;
}

export interface HarResponse {
  status: number;
  statusText: string;
  httpVersion: string;
  cookies: HarNameValue[];
  headers: HarNameValue[];
  content: { size: number; mimeType: string; text?: string; encoding?: string; comment?: string };
  redirectURL: string;
  headersSize: number;
  bodySize: number;
}

export interface HarEntry {
  startedDateTime: string;
  time: number;
  request: HarRequest;
  response: HarResponse;
  cache: Record<string, never>;
  timings: { send: number; wait: number; receive: number };
  /** Tusk's: the interface the exchange went to. */
  _api?: InterfaceName;
  comment?: string;
}

export interface HarLog {
  log: {
    version: string;
    creator: { name: string; version: string };
    entries: HarEntry[];
    comment?: string;
  };
}

/** The characters that close the document; each append writes over them and writes them again. */
const TAIL = '\n]}}\n';

/** A HAR file written entry by entry, a whole document after each (see the first comment). */
export class HarWriter {
  private readonly fd: number;
  /** Where TAIL starts. */
  private end: number;
  private entries = 0;
  readonly path: string;

  /** Creates (or empties) `file`, mode 0600: a recording may hold what a reader should not see. */
  constructor(file: string, creator: { name: string; version: string }, comment?: string) {
    this.path = resolve(file);
    mkdirSync(dirname(this.path), { recursive: true });
    this.fd = openSync(this.path, 'w', 0o600);
    const head = `{"log":{"version":"1.2","creator":${JSON.stringify(creator)},${comment ? `"comment":${JSON.stringify(comment)},` : ''}"entries":[`;
    const bytes = Buffer.from(head + TAIL);
    writeSync(this.fd, bytes, 0, bytes.length, 0);
    this.end = bytes.length - TAIL.length;
  }

  get count(): number {
    return this.entries;
  }

  /** Appends one entry (one positional write: the entry and the closing characters after it). */
  append(entry: HarEntry): void {
    const bytes = Buffer.from(`${this.entries ? ',' : ''}\n${JSON.stringify(entry)}${TAIL}`);
    writeSync(this.fd, bytes, 0, bytes.length, this.end);
    this.end += bytes.length - TAIL.length;
    this.entries++;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** Headers as HAR lists them: one name and value per line, repeated headers repeated. */
export function harHeaders(headers: Record<string, string | string[] | undefined>): HarNameValue[] {
  const out: HarNameValue[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push({ name, value: v });
  }
  return out;
}

/** Reads a HAR document; throws an Error naming what is wrong. */
export function readHar(text: string): HarEntry[] {
  const doc = parseRecording(text) as Partial<HarLog> | null;
  const entries = doc?.log?.entries;
  if (!Array.isArray(entries)) throw new Error('not a HAR document: no log.entries array');
  entries.forEach((e, i) => {
    if (!e?.request?.method || typeof e.request.url !== 'string' || typeof e.response?.status !== 'number')
      throw new Error(`entry ${i}: a HAR entry needs request.method, request.url and response.status`);
  });
  return entries;
}

/** The document; of a recording whose last write was torn, the entries before the torn line. */
function parseRecording(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    const cut = text.lastIndexOf('\n');
    if (cut > 0) {
      try {
        return JSON.parse(text.slice(0, cut).replace(/,$/, '') + TAIL);
      } catch {
        /* not a torn recording: the first error says what is wrong */
      }
    }
    throw err;
  }
}

/** readHar of a file. */
export const readHarFile = (file: string): HarEntry[] => readHar(readFileSync(file, 'utf8'));
