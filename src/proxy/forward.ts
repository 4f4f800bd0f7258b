// How the validating proxy (proxy.ts) passes an exchange on: the client's body read whole (at most
// MAX_REQUEST_BYTES), the request sent to the interface's target unchanged but for the hop-by-hop
// headers and Host, over kept-alive connections (once more on a new connection when the target
// closed an idle one under it), and the answer streamed back unchanged, or read whole first when
// its departures are to be named in a header; its text kept for the checks up to
// MAX_CHECKED_RESPONSE_BYTES. A target that cannot be reached is a 502, one that does not answer
// in time a 504.
import {
  request as httpRequest,
  Agent as HttpAgent,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import type { InterfaceName } from '../openapi/documents.js';
import type { Departure } from '../openapi/exchange.js';
import { departureHeader } from './departures.js';

/** Largest request body read (and forwarded); a larger one is a 413, as at the stand-in. */
export const MAX_REQUEST_BYTES = 1024 * 1024;
/** Largest response body checked; a larger one is forwarded unchecked past this size. */
const MAX_CHECKED_RESPONSE_BYTES = 8 * 1024 * 1024;
/** Hop-by-hop headers, never forwarded (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-authenticate',
]);

/** A client's request, read, to pass on to its interface's target. */
export interface Outgoing {
  api: InterfaceName;
  target: URL;
  method: string;
  /** The client's url (its path and query are sent below the target's path). */
  url: URL;
  headers: IncomingHttpHeaders;
  body: Uint8Array;
  /** Where the answer goes. */
  res: ServerResponse;
}

/** What the proxy does with an exchange's outcome. */
export interface Outcome {
  /** Read the answer whole and name its departures in `Tusk-Departures`. */
  annotate: boolean;
  /** The answer came (its text undefined when larger than is checked): its departures. */
  answered: (answer: IncomingMessage, text: string | undefined, size: number) => Departure[];
  /** No answer: 502 (the target cannot be reached) or 504 (not in time), and why. */
  failed: (status: 502 | 504, why: string) => void;
}

export class Forwarder {
  /** Kept-alive connections to the targets; one left idle for 4 s is closed (before a common 5 s keep-alive timeout of the target's closes it under a request). */
  private readonly agents = {
    http: new HttpAgent({ keepAlive: true, maxSockets: 256, timeout: 4_000 }),
    https: new HttpsAgent({ keepAlive: true, maxSockets: 256, timeout: 4_000 }),
  };

  /** `timeoutMs`: how long a target may take to answer. */
  constructor(private readonly timeoutMs: number) {}

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** Sends the request to its target and the answer back to the client. */
  forward(out: Outgoing, outcome: Outcome): void {
    const { api, target, method, url, body, res } = out;
    const upstreamPath = target.pathname.replace(/\/$/, '') + url.pathname + url.search;
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(out.headers))
      if (v !== undefined && !HOP_BY_HOP.has(k) && k !== 'host') headers[k] = v;
    headers.host = target.host;
    if (body.byteLength > 0 || headers['content-length'] !== undefined)
      headers['content-length'] = String(body.byteLength);
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const dispatch = (again: boolean) => {
      const upstream = send({
        protocol: target.protocol,
        hostname: target.hostname,
        port: target.port,
        method,
        path: upstreamPath,
        headers,
        agent: target.protocol === 'https:' ? this.agents.https : this.agents.http,
      });
      const timeout = setTimeout(
        () => upstream.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })),
        this.timeoutMs,
      );
      upstream.on('error', (err: NodeJS.ErrnoException) => {
        clearTimeout(timeout);
        if (res.headersSent) return void res.destroy();
        // A kept-alive connection that the target closed while it was idle (its keep-alive timeout
        // passing as the request went out) fails before the target read the request: sent once
        // more, on a new connection, as Node's documentation advises (not a 502 of the target's).
        if (!again && upstream.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE'))
          return void dispatch(true);
        const status = err.code === 'ETIMEDOUT' ? 504 : 502;
        outcome.failed(
          status,
          `the ${api} target ${target.origin} ${status === 504 ? 'did not answer in time' : `cannot be reached (${err.code ?? err.message})`}`,
        );
      });
      res.on('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      upstream.on('response', (answer) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const outHeaders: Record<string, string | string[]> = {};
        for (const [k, v] of Object.entries(answer.headers))
          if (v !== undefined && !HOP_BY_HOP.has(k)) outHeaders[k] = v;
        const finish = () => {
          clearTimeout(timeout);
          const text = size <= MAX_CHECKED_RESPONSE_BYTES ? Buffer.concat(chunks).toString('utf8') : undefined;
          return outcome.answered(answer, text, size);
        };
        if (outcome.annotate) {
          // The header goes before the body: the answer is read whole first.
          answer.on('data', (c: Buffer) => {
            size += c.byteLength;
            chunks.push(c);
          });
          answer.on('end', () => {
            const found = finish();
            const buffered = Buffer.concat(chunks);
            if ('content-length' in outHeaders) outHeaders['content-length'] = String(buffered.byteLength);
            if (found.length) outHeaders['tusk-departures'] = departureHeader(found);
            res.writeHead(answer.statusCode ?? 502, outHeaders);
            res.end(buffered);
          });
        } else {
          res.writeHead(answer.statusCode ?? 502, outHeaders);
          answer.on('data', (c: Buffer) => {
            size += c.byteLength;
            if (size <= MAX_CHECKED_RESPONSE_BYTES) chunks.push(c);
            res.write(c);
          });
          answer.on('end', () => {
            res.end();
            finish();
          });
        }
        answer.on('error', () => res.destroy());
      });
      upstream.end(body);
    };
    dispatch(false);
  }
}

/** The request's body, read whole; 'too large' past MAX_REQUEST_BYTES, 'aborted' when the client went away. */
export async function readBody(req: IncomingMessage): Promise<Uint8Array | 'too large' | 'aborted'> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.byteLength;
      if (size > MAX_REQUEST_BYTES) return 'too large';
      chunks.push(chunk);
    }
  } catch {
    return 'aborted';
  }
  return Buffer.concat(chunks);
}
