// One recorded exchange, whatever file it came from (a HAR of `tusk proxy --record`, of a browser or
// an HTTP tool, or a go-vcr cassette): what `tusk replay` sends again and compares against, and
// what the tests write cassettes from (read.ts reads either file).
import type { InterfaceName } from '../openapi/documents.js';
import type { HarEntry } from './har.js';

export interface RecordedExchange {
  /** Its place in the file, from 0. */
  index: number;
  /** The interface it went to, when the file says (HAR entries of `tusk proxy --record`). */
  api?: InterfaceName;
  method: string;
  /** The absolute URL as recorded. */
  url: string;
  headers: [string, string][];
  body: string;
  status: number;
  statusText?: string;
  responseHeaders: [string, string][];
  /** undefined: not recorded (too large). */
  responseBody: string | undefined;
  /** How long the answer took, ms. */
  ms?: number;
}

export function fromHar(entries: readonly HarEntry[]): RecordedExchange[] {
  return entries.map((e, index) => {
    const headers = (e.request.headers ?? []).map(({ name, value }) => [name, value] as [string, string]);
    let body = e.request.postData?.text ?? '';
    if (!body && e.request.postData?.params?.length) {
      body = new URLSearchParams(
        e.request.postData.params.map((p): [string, string] => [p.name, p.value ?? '']),
      ).toString();
    }
    const content = e.response.content;
    const responseBody =
      content?.text === undefined
        ? undefined
        : content.encoding === 'base64'
          ? Buffer.from(content.text, 'base64').toString('utf8')
          : content.text;
    return {
      index,
      ...(e._api === 'customer' || e._api === 'instance' ? { api: e._api } : {}),
      method: e.request.method.toUpperCase(),
      url: e.request.url,
      headers,
      body,
      status: e.response.status,
      statusText: e.response.statusText,
      responseHeaders: (e.response.headers ?? []).map(({ name, value }) => [name, value] as [string, string]),
      responseBody,
      ms: e.time,
    };
  });
}

/** A header's value (the first of its name, any case). */
export function headerValue(headers: readonly [string, string][], name: string): string | undefined {
  const lower = name.toLowerCase();
  return headers.find(([n]) => n.toLowerCase() === lower)?.[1];
}
