// One attempt of an outbox delivery: a POST of the entry's body as JSON, with the entry's id in
// `Tusk-Delivery` (the same for every attempt and, in a team, every replica), and its outcome. The
// default sender is one POST over node:http(s), without keep-alive: fetch leaves the connection of
// an aborted request open for seconds, so a hanging target piled up connections beyond the
// deliveries in flight; here a timeout closes the connection at once, and so does dropping the
// response body. Fetch-shaped (status, body.cancel); tests may pass a real fetch instead.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

export const postJson = ((url: string | URL, init: RequestInit = {}) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const signal = init.signal ?? undefined;
    const req = (target.protocol === 'https:' ? httpsRequest : httpRequest)(
      target,
      { method: init.method ?? 'POST', headers: init.headers as Record<string, string>, agent: false },
      (res) => {
        resolve({ status: res.statusCode ?? 0, body: { cancel: async () => void res.destroy() } });
      },
    );
    const abort = () => {
      req.destroy();
      reject(signal!.reason);
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    req.on('close', () => signal?.removeEventListener('abort', abort));
    req.on('error', (err) => reject(Object.assign(new Error(err.message), { cause: err })));
    req.end(typeof init.body === 'string' ? init.body : undefined);
  })) as unknown as typeof fetch;

/** What one attempt learnt: the HTTP status or the error, and whether the target took it (2xx). */
export interface Attempt {
  result: string;
  delivered: boolean;
}

/** One attempt to POST `entry`'s body to its target, abandoned after `timeoutMs`. */
export async function attempt(
  send: typeof fetch,
  entry: { id: number; target: string; body: unknown },
  timeoutMs: number,
): Promise<Attempt> {
  try {
    const res = await send(entry.target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'tusk-mock', 'tusk-delivery': String(entry.id) },
      body: JSON.stringify(entry.body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: 'manual',
    });
    await res.body?.cancel().catch(() => undefined);
    return { result: `HTTP ${res.status}`, delivered: res.status >= 200 && res.status < 300 };
  } catch (err) {
    const result =
      (err as Error).name === 'TimeoutError'
        ? `timeout after ${timeoutMs} ms`
        : String((err as Error).cause ?? (err as Error).message);
    return { result, delivered: false };
  }
}
