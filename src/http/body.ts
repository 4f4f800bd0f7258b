// A request body's bytes, read within a limit before anything parses them: the APIs' body parsing
// step (pipeline.ts, parseBody) and the control plane's bodies (src/control/body.ts) read through
// it. Over the limit is a 413, refused by the declared Content-Length before any byte is read, or as
// soon as that many bytes arrived; a body the client aborts is a 400.
import { ApiError } from '../core/errors.js';
import { MAX_BODY_BYTES } from '../core/limits.js';

/** A body over `limit` bytes (413): refused by its Content-Length, or as soon as that many bytes arrived. */
export const payloadTooLarge = (limit = MAX_BODY_BYTES) =>
  new ApiError(413, `Payload too large: a request body may have at most ${limit} bytes (${inWords(limit)})`, {
    field: 'body',
    rule: 'maxBytes',
  });

/** The body's bytes, read no further than `limit` (the APIs' MAX_BODY_BYTES), before anything parses them. */
export async function readLimitedBody(req: Request, limit = MAX_BODY_BYTES): Promise<Uint8Array> {
  const length = req.headers.get('content-length');
  const declared = Number(length ?? 0);
  if (declared > limit) throw payloadTooLarge(limit);
  if (length !== null && /^\d+$/.test(length)) {
    // A declared length within the limit: the body is read whole, on @hono/node-server's direct
    // path from the socket (req.body would build a web stream and a full Request for it).
    const whole = new Uint8Array(
      await req.arrayBuffer().catch(() => {
        throw aborted();
      }),
    );
    if (whole.byteLength > limit) throw payloadTooLarge(limit);
    return whole;
  }
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read().catch(() => {
      throw aborted();
    });
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel().catch(() => undefined);
      throw payloadTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** A size in KiB, or in MiB from 1 MiB. */
const inWords = (bytes: number) => (bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MiB` : `${bytes / 1024} KiB`);

const aborted = () =>
  new ApiError(400, 'body: the request body could not be read (the client aborted it)', {
    field: 'body',
    rule: 'aborted',
  });
