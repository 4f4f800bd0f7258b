// Shared by scripts/soak.js and scripts/crash.js: starts `tusk serve` as a child process on free
// loopback ports, and a small HTTP/1.1 keep-alive client (node:http, one agent) that records every
// request's status and latency. Traffic goes to 127.0.0.1 only.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const TUSK_BIN = join(ROOT, 'bin', 'tusk.js');

/** Starts `tusk serve` with `args`; resolves once it printed both URLs and `ready`. */
export function startServer(args, { adminKey = 'load-admin-key', timeoutMs = 60_000, quiet = true } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        TUSK_BIN,
        'serve',
        ...(quiet ? ['--quiet'] : []),
        '--databases',
        'off',
        '--customer-port',
        '0',
        '--instance-port',
        '0',
        '--host',
        '127.0.0.1',
        '--api-key',
        adminKey,
        ...args,
      ],
      {
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`tusk serve was not ready after ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const onData = (d) => {
      out += d.toString();
      if (/tusk: ready/.test(out)) {
        clearTimeout(timer);
        const customerUrl = /customer API\s+(http:\/\/\S+)/.exec(out)?.[1];
        const instanceUrl = /instance API\s+(http:\/\/\S+)/.exec(out)?.[1];
        resolve({ child, customerUrl, instanceUrl, adminKey, output: () => out });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => {
      out += d.toString();
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`tusk serve exited (${code ?? signal}) before it was ready:\n${out}`));
    });
  });
}

/** Resident memory of a process in MiB (Linux /proc), or null. */
export function rssMiB(pid) {
  try {
    const kb = Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
    return Math.round((kb / 1024) * 10) / 10;
  } catch {
    return null;
  }
}

export class Client {
  constructor({ maxSockets = 64 } = {}) {
    // Idle sockets are dropped after 4 s, before the server's 5 s keep-alive timeout closes them:
    // reusing a socket the server is closing at that moment is a client-side ECONNRESET.
    this.agent = new Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets, timeout: 4000 });
    this.requests = 0;
    this.latencies = [];
    this.statuses = {};
    this.networkErrors = 0;
  }

  /** One request; resolves { status, json, text, ms } (status 0 on a network error). */
  send(base, method, path, key, body) {
    const url = new URL(path, base);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = { authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` };
    if (payload !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(payload);
    }
    const started = performance.now();
    return new Promise((resolve) => {
      const req = request(
        { host: url.hostname, port: url.port, path: url.pathname + url.search, method, headers, agent: this.agent },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => {
            const ms = performance.now() - started;
            const text = Buffer.concat(chunks).toString('utf8');
            this.record(res.statusCode, ms);
            let json;
            try {
              json = text ? JSON.parse(text) : undefined;
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode, json, text, ms });
          });
          res.on('error', () => {
            this.networkErrors++;
            this.record(0, performance.now() - started);
            resolve({ status: 0, json: undefined, text: '', ms: performance.now() - started });
          });
        },
      );
      req.on('error', (err) => {
        this.networkErrors++;
        this.record(0, performance.now() - started);
        resolve({ status: 0, json: undefined, text: String(err), ms: performance.now() - started });
      });
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  record(status, ms) {
    this.requests++;
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    // A bounded reservoir is enough for percentiles.
    if (this.latencies.length < 200_000) this.latencies.push(ms);
    else this.latencies[Math.floor(Math.random() * this.latencies.length)] = ms;
  }

  percentile(p) {
    if (!this.latencies.length) return 0;
    const sorted = [...this.latencies].sort((a, b) => a - b);
    return Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10;
  }

  close() {
    this.agent.destroy();
  }
}

/** A seeded pseudo-random generator (the server's own mulberry32, built by `npm run build`), so a run can be repeated. */
export { mulberry32 as random } from '../dist/src/domain/fault-rules.js';
