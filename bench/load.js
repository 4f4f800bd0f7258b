// The load generators of `npm run bench`. For a time: a list of requests sent in turn over
// `connections` kept-alive connections, by wrk (C, one thread: the least CPU taken from the servers
// on a 2-core machine) when it is on PATH, else by autocannon (npm). For a fixed number of requests
// (operations that make or use up a resource): connectedLoad, over connections opened before the
// clock starts. Each resolves { rps, p50, p99 (ms), total, non2xx, errors, tool }; rps counts
// 2xx/3xx answers only. Also the median the parts take of their measurements.
//
// Used by bench/lib/measure.js, the parts in bench/parts/ and bench/operations.js.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The median of the finite numbers in `xs` (null when there are none). */
export const median = (xs) => {
  const s = xs.filter((x) => typeof x === 'number' && Number.isFinite(x)).sort((a, b) => a - b);
  if (!s.length) return null;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const hasWrk = spawnSync('wrk', ['--version'], { encoding: 'utf8' }).error === undefined;

/** A request: { method, path, headers?, body? (string) }. */

const luaString = (s) => `[==[${s}]==]`;

/** `requests` for `seconds` with wrk; each is formatted once in init(), request() picks the next. */
export async function wrkLoad({ origin, requests, seconds, connections }) {
  const dir = mkdtempSync(join(tmpdir(), 'tusk-bench-'));
  const script = join(dir, 'w.lua');
  const table = requests
    .map(
      (r) =>
        `{ ${luaString(r.method)}, ${luaString(r.path)}, { ${Object.entries(r.headers ?? {})
          .map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(String(v))}`)
          .join(', ')} }, ${r.body === undefined ? 'nil' : luaString(r.body)} }`,
    )
    .join(',\n');
  writeFileSync(
    script,
    `local specs = {
${table}
}
local reqs = {}
local i = 0
init = function(args)
  for k, s in ipairs(specs) do
    reqs[k] = wrk.format(s[1], s[2], s[3], s[4])
  end
end
request = function()
  i = i + 1
  return reqs[((i - 1) % #reqs) + 1]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('\\nBENCH {"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"non2xx":%d,"errors":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status, e.connect + e.read + e.write + e.timeout))
end
`,
  );
  const out = await new Promise((resolve, reject) => {
    // wrk takes whole seconds.
    const p = spawn(
      'wrk',
      [
        '-t1',
        `-c${connections}`,
        `-d${Math.max(1, Math.round(seconds))}s`,
        '--timeout',
        '10s',
        '-s',
        script,
        origin + requests[0].path,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let text = '';
    p.stdout.on('data', (d) => (text += d));
    p.stderr.on('data', (d) => (text += d));
    p.on('error', reject);
    p.on('exit', () => resolve(text));
  });
  rmSync(dir, { recursive: true, force: true });
  const m = /BENCH (\{.*\})/.exec(out);
  if (!m) throw new Error(`wrk printed no result:\n${out}`);
  const r = JSON.parse(m[1]);
  const secs = r.duration_us / 1e6;
  return {
    rps: (r.requests - r.non2xx) / secs,
    p50: r.p50_us / 1000,
    p99: r.p99_us / 1000,
    total: r.requests,
    non2xx: r.non2xx,
    errors: r.errors,
    tool: 'wrk',
  };
}

/** `requests` in turn for `seconds` with autocannon (when wrk is not on PATH). */
export async function autocannonLoad({ origin, requests, seconds, connections }) {
  const { default: autocannon } = await import('autocannon');
  let next = 0;
  const template = {
    method: requests[0].method,
    path: requests[0].path,
    setupRequest: (r) => {
      const q = requests[next++ % requests.length];
      return { ...r, method: q.method, path: q.path, headers: { ...(q.headers ?? {}) }, body: q.body };
    },
  };
  const r = await autocannon({ url: origin, connections, duration: seconds, requests: [template], timeout: 10 });
  const total = r.requests.total;
  return {
    rps: (total - r.non2xx) / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    tool: 'autocannon',
  };
}

/**
 * A fixed number of requests over connections opened before the clock starts (wrk and autocannon
 * open theirs with the first requests, and with a few thousand requests that start is most of the
 * p99). `make(i, previousBody)` gives the i-th request; `chain`: one connection, each request made
 * from the previous answer (the last answer's body is returned as `last`). A minimal HTTP/1.1 client: a prebuilt request per write, answers read by
 * Content-Length (or chunked), latency per request from performance.now().
 */
export async function connectedLoad({ origin, make, amount, connections, chain = false }) {
  const { connect } = await import('node:net');
  const url = new URL(origin);
  const width = chain ? 1 : Math.min(connections, amount);
  const sockets = await Promise.all(
    Array.from(
      { length: width },
      () =>
        new Promise((resolve, reject) => {
          const s = connect({ host: url.hostname, port: Number(url.port), noDelay: true }, () => resolve(s));
          s.once('error', reject);
        }),
    ),
  );
  // Let the server take the connections in before the first request.
  await new Promise((r) => setTimeout(r, 50));
  const latencies = new Float64Array(amount);
  let next = 0;
  let done = 0;
  let non2xx = 0;
  let errors = 0;
  let firstBad;
  let previous;
  const host = `${url.hostname}:${url.port}`;
  const bytesOf = (r) => {
    const body = r.body === undefined ? undefined : Buffer.from(r.body);
    const head = [
      `${r.method} ${r.path} HTTP/1.1`,
      `host: ${host}`,
      ...Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
      ...(body ? [`content-length: ${body.length}`] : r.method === 'GET' ? [] : ['content-length: 0']),
      '',
      '',
    ].join('\r\n');
    return body ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
  };
  const started = performance.now();
  let finished = started;
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise((resolve) => {
          let buf = Buffer.alloc(0);
          let t0 = 0;
          let i = -1;
          const send = () => {
            if (next >= amount) return resolve();
            i = next++;
            const bytes = bytesOf(make(i, previous));
            t0 = performance.now();
            s.write(bytes);
          };
          const answered = (status, body) => {
            const now = performance.now();
            latencies[i] = now - t0;
            finished = now;
            done++;
            if (status < 200 || status >= 400) {
              non2xx++;
              firstBad ??= `${status} ${body.toString().slice(0, 160)}`;
            }
            if (chain) previous = body.toString();
            send();
          };
          s.on('data', (chunk) => {
            buf = buf.length ? Buffer.concat([buf, chunk]) : chunk;
            for (;;) {
              const end = buf.indexOf('\r\n\r\n');
              if (end < 0) return;
              const head = buf.subarray(0, end).toString('latin1');
              const status = Number(head.slice(9, 12));
              const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
              let bodyEnd;
              let body;
              if (length) {
                bodyEnd = end + 4 + Number(length[1]);
                if (buf.length < bodyEnd) return;
                body = buf.subarray(end + 4, bodyEnd);
              } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
                const last = buf.indexOf('\r\n0\r\n\r\n', end);
                const empty = buf.indexOf('0\r\n\r\n', end + 4) === end + 4;
                if (last < 0 && !empty) return;
                bodyEnd = empty ? end + 9 : last + 7;
                body = buf.subarray(end + 4, bodyEnd); // chunk framing left in: only the key of a chain is read from it
              } else {
                bodyEnd = end + 4;
                body = Buffer.alloc(0);
              }
              buf = buf.subarray(bodyEnd);
              answered(status, body);
            }
          });
          s.on('error', () => {
            errors++;
            resolve();
          });
          send();
        }),
    ),
  );
  for (const s of sockets) s.destroy();
  const measured = Array.from(latencies.subarray(0, done)).sort((a, b) => a - b);
  const pct = (p) =>
    measured.length ? measured[Math.min(measured.length - 1, Math.floor((p / 100) * measured.length))] : null;
  return {
    rps: (done - non2xx) / ((finished - started) / 1000),
    p50: pct(50),
    p99: pct(99),
    total: done,
    non2xx,
    errors,
    tool: 'node client',
    ...(firstBad ? { firstBad } : {}),
    ...(chain ? { last: previous } : {}),
  };
}
