// A real nginx in front of servers under test: the balancer users put before a stand-in (Debian's
// nginx, `apt-get install nginx-light`; .ci/run installs it). Its configuration is written to a
// temporary folder of the test: one loopback port per upstream, proxy_pass with nginx's defaults
// (HTTP/1.0 to the upstream, the upstream's Date and Server replaced by nginx's own), `daemon off`,
// logs on stderr. It runs in a process group of its own and is stopped when the test finishes,
// whatever the outcome (./processes.ts).
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from '../../src/core/net.js';
import { start, type StartOptions, type Started } from './processes.js';
import { tempDir } from './temp.js';

/** The nginx binary: on PATH, or Debian's /usr/sbin/nginx (not on a non-root user's PATH). */
export function nginxBinary(): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin'];
  const found = dirs.map((d) => join(d, 'nginx')).find((p) => existsSync(p));
  if (!found) throw new Error('nginx is not installed: apt-get install nginx-light (.ci/run installs it)');
  return found;
}

export interface RunningNginx {
  /** The URL nginx serves each upstream at, by the name it was given. */
  urls: Record<string, string>;
  process: Started;
  /** Its configuration's folder. */
  dir: string;
}

/**
 * Starts nginx proxying a loopback port of its own to each of `upstreams` (name -> base URL, or
 * several: round-robin over them, a refused connection or a timeout tried on the next, for any
 * method: `proxy_next_upstream error timeout non_idempotent`), and resolves once every port answers
 * (at most `timeoutMs`). Call it inside a test, or pass `options.onFinished` and stop it yourself. A port another process took between freePort() and
 * nginx's start is tried again with other ports, twice.
 */
export async function startNginx(
  upstreams: Record<string, string | string[]>,
  timeoutMs = 15_000,
  options: StartOptions = {},
): Promise<RunningNginx> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await tryNginx(upstreams, timeoutMs, options);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === 3) throw err;
    }
  }
}

class PortTaken extends Error {}

async function tryNginx(
  upstreams: Record<string, string | string[]>,
  timeoutMs: number,
  options: StartOptions,
): Promise<RunningNginx> {
  // Started outside a test (options.onFinished), the caller removes the folder (RunningNginx.dir).
  const dir = options.onFinished ? mkdtempSync(join(tmpdir(), 'tusk-nginx-')) : tempDir('tusk-nginx-');
  const ports = await Promise.all(Object.keys(upstreams).map(() => freePort()));
  const groups: string[] = [];
  const servers = Object.entries(upstreams).map(([name, upstream], i) => {
    if (typeof upstream === 'string')
      return `  server { listen 127.0.0.1:${ports[i]}; location / { proxy_pass ${upstream}; } }`;
    groups.push(`  upstream ${name} { ${upstream.map((u) => `server ${new URL(u).host};`).join(' ')} }`);
    const retry = 'proxy_next_upstream error timeout non_idempotent;';
    return `  server { listen 127.0.0.1:${ports[i]}; location / { proxy_pass http://${name}; ${retry} } }`;
  });
  const urls = Object.fromEntries(Object.keys(upstreams).map((name, i) => [name, `http://127.0.0.1:${ports[i]}`]));
  return runNginx(dir, [...groups, ...servers].join('\n'), urls, timeoutMs, options);
}

/**
 * Starts nginx with `httpLines` (upstreams and servers, as a user writes them) in the `http` block
 * of a configuration otherwise the same as startNginx's, and resolves once each of `urls` answers.
 */
export function startNginxWith(
  httpLines: string,
  urls: Record<string, string>,
  timeoutMs = 15_000,
  options: StartOptions = {},
): Promise<RunningNginx> {
  const dir = options.onFinished ? mkdtempSync(join(tmpdir(), 'tusk-nginx-')) : tempDir('tusk-nginx-');
  return runNginx(dir, httpLines, urls, timeoutMs, options);
}

async function runNginx(
  dir: string,
  httpLines: string,
  urls: Record<string, string>,
  timeoutMs: number,
  options: StartOptions,
): Promise<RunningNginx> {
  // As root (CI), the workers run as root too: they use the test's temporary folder, which only its owner may enter.
  const user = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(
    join(dir, 'nginx.conf'),
    `${user}worker_processes 1;
daemon off;
pid ${join(dir, 'nginx.pid')};
error_log stderr;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path ${join(dir, 'body')};
  proxy_temp_path ${join(dir, 'proxy')};
  fastcgi_temp_path ${join(dir, 'fastcgi')};
  uwsgi_temp_path ${join(dir, 'uwsgi')};
  scgi_temp_path ${join(dir, 'scgi')};
${httpLines}
}
`,
  );
  const nginx = start(nginxBinary(), ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', 'stderr'], options);
  const until = Date.now() + timeoutMs;
  for (const url of Object.values(urls)) {
    for (;;) {
      if (nginx.exited()) {
        const message = `nginx exited before it listened:\n${nginx.output()}`;
        throw /Address already in use/.test(nginx.output()) ? new PortTaken(message) : new Error(message);
      }
      const answered = await fetch(url).then(
        () => true,
        () => false,
      );
      if (answered) break;
      if (Date.now() > until)
        throw new Error(`nginx did not listen on ${url} within ${timeoutMs} ms:\n${nginx.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return { urls, process: nginx, dir };
}
