// go-vcr cassettes: the YAML files in which Go clients (the provider's Terraform provider and CLI,
// under test/fixtures/vcr/) keep their recorded exchanges, read and written here. go-vcr v1 writes
// `version: 1` with `interactions: [{request: {body, form, headers, url, method}, response: {body,
// headers, status, code}}]`; v2 to v4 write `version: 2` with the same fields and more
// (`id`, `proto`, `host`, `content_length`, ..., and the response's `duration`, a Go duration such
// as `1.5s`). Headers are maps of lists (`Content-Type: [application/json]`); `form` holds a form
// request's fields as lists too. Both versions are read; version 2 is written.
import { readFileSync } from 'node:fs';
import { parse, stringify } from 'yaml';
import type { RecordedExchange } from './exchange.js';

interface CassetteRequest {
  body?: string;
  form?: Record<string, string[]> | null;
  headers?: Record<string, string[] | string> | null;
  url?: string;
  method?: string;
}

interface CassetteResponse {
  body?: string;
  headers?: Record<string, string[] | string> | null;
  status?: string;
  code?: number;
  duration?: string | number;
}

interface Cassette {
  version?: number;
  interactions?: { id?: number; request?: CassetteRequest; response?: CassetteResponse }[] | null;
}

const pairs = (headers: CassetteRequest['headers']): [string, string][] =>
  Object.entries(headers ?? {}).flatMap(([name, v]) =>
    (Array.isArray(v) ? v : [v]).map((value) => [name, String(value)] as [string, string]),
  );

/** Reads a cassette's text; throws an Error naming what is wrong. */
export function readCassette(text: string): RecordedExchange[] {
  const doc = parse(text) as Cassette | null;
  if (!doc || typeof doc !== 'object' || !('interactions' in doc))
    throw new Error('not a go-vcr cassette: no interactions');
  if (doc.version !== undefined && doc.version !== 1 && doc.version !== 2)
    throw new Error(`go-vcr cassette version ${String(doc.version)} is not known (1 and 2 are)`);
  return (doc.interactions ?? []).map((it, index) => {
    const req = it.request;
    const res = it.response;
    if (!req?.method || typeof req.url !== 'string' || typeof res?.code !== 'number')
      throw new Error(`interaction ${index}: needs request.method, request.url and response.code`);
    const headers = pairs(req.headers);
    let body = req.body ?? '';
    // A form request recorded by its fields only: sent as the form it was.
    if (!body && req.form && Object.keys(req.form).length) {
      const form = new URLSearchParams();
      for (const [k, values] of Object.entries(req.form)) for (const v of values ?? []) form.append(k, String(v));
      body = form.toString();
      if (!headers.some(([n]) => n.toLowerCase() === 'content-type'))
        headers.push(['Content-Type', 'application/x-www-form-urlencoded']);
    }
    return {
      index,
      method: req.method.toUpperCase(),
      url: req.url,
      headers,
      body,
      status: res.code,
      responseHeaders: pairs(res.headers),
      responseBody: res.body ?? '',
    };
  });
}

export const readCassetteFile = (file: string): RecordedExchange[] => readCassette(readFileSync(file, 'utf8'));

/** A Go duration (`1.5s`, `250ms`) for a number of ms. */
const goDuration = (ms: number) => (ms >= 1000 ? `${ms / 1000}s` : `${ms}ms`);

/** A cassette as go-vcr v4 writes it (`version: 2`), for these exchanges. */
export function writeCassette(exchanges: readonly RecordedExchange[]): string {
  const group = (list: [string, string][]) => {
    const out: Record<string, string[]> = {};
    for (const [name, value] of list) (out[name] ??= []).push(value);
    return out;
  };
  const cassette = {
    version: 2,
    interactions: exchanges.map((x, id) => {
      const url = new URL(x.url);
      const type = x.headers.find(([n]) => n.toLowerCase() === 'content-type')?.[1] ?? '';
      const form: Record<string, string[]> = {};
      if (type.includes('x-www-form-urlencoded'))
        for (const [k, v] of new URLSearchParams(x.body)) (form[k] ??= []).push(v);
      return {
        id,
        request: {
          proto: 'HTTP/1.1',
          proto_major: 1,
          proto_minor: 1,
          content_length: Buffer.byteLength(x.body),
          transfer_encoding: [],
          trailer: {},
          host: url.host,
          remote_addr: '',
          request_uri: '',
          body: x.body,
          form,
          headers: group(x.headers),
          url: x.url,
          method: x.method,
        },
        response: {
          proto: 'HTTP/1.1',
          proto_major: 1,
          proto_minor: 1,
          transfer_encoding: [],
          trailer: {},
          content_length: Buffer.byteLength(x.responseBody ?? ''),
          uncompressed: false,
          body: x.responseBody ?? '',
          headers: group(x.responseHeaders),
          status: `${x.status} ${x.statusText ?? ''}`.trim(),
          code: x.status,
          duration: goDuration(x.ms ?? 0),
        },
      };
    }),
  };
  return `---\n${stringify(cassette, { lineWidth: 0 })}`;
}
