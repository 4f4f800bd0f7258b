// The heavy-reads part (`--only heavy`): the heavy reads of Tusk against the physical limit, a bare
// route serving the same bytes (bench/servers/same-bytes.js), with Tusk's event-loop delay, into
// results.heavy.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median } from '../load.js';
import { measure, round1 } from '../lib/measure.js';
import { flags, log, opts } from '../lib/options.js';
import { BENCH } from '../lib/paths.js';
import { firstOk, startNode } from '../lib/processes.js';
import { ADMIN_KEY, basic, startTusk } from '../lib/starters.js';
import { prepareTusk } from '../lib/tusk-setup.js';
// Built by npm run build (npm run bench builds first).
import { freePort } from '../../dist/src/core/net.js';

/**
 * The heavy reads against the physical limit: each served by Tusk (1,000 instances, a busy audit
 * month) and by a bare Hono route answering the bytes Tusk sent in this run
 * (bench/servers/same-bytes.js); Tusk's event-loop delay during each (GET /__tusk/runtime).
 */
export async function heavyPart(results) {
  const t = await startTusk({ profile: flags.profile });
  let ref;
  const dir = mkdtempSync(join(tmpdir(), 'tusk-heavy-'));
  try {
    const state = await prepareTusk(t);
    const reads = [
      {
        id: 'listInstances',
        title: 'GET /api/instances (1,000 instances)',
        base: t.customer,
        path: '/api/instances',
        key: ADMIN_KEY,
      },
      { id: 'listBackups', title: 'GET /api/backup', base: t.instance, path: '/api/backup', key: state.getKey },
      {
        id: 'getAuditLogCsv',
        title: `GET /api/auditlog/csv (${state.auditRows} rows this month)`,
        base: t.customer,
        path: '/api/auditlog/csv',
        key: ADMIN_KEY,
      },
      { id: 'listInvoices', title: 'GET /api/invoices', base: t.customer, path: '/api/invoices', key: ADMIN_KEY },
      { id: 'listTeamMembers', title: 'GET /api/team', base: t.customer, path: '/api/team', key: ADMIN_KEY },
    ];
    const bodies = {};
    for (const r of reads) {
      const res = await fetch(r.base + r.path, { headers: { authorization: basic(r.key) } });
      r.bytes = (await res.clone().arrayBuffer()).byteLength;
      bodies[r.path] = { type: res.headers.get('content-type'), body: await res.text() };
    }
    writeFileSync(join(dir, 'bodies.json'), JSON.stringify(bodies));
    const port = await freePort();
    const since = performance.now();
    const proc = startNode([join(BENCH, 'servers', 'same-bytes.js'), String(port), join(dir, 'bodies.json')]);
    ref = { proc, base: `http://127.0.0.1:${port}` };
    await firstOk(`${ref.base}/api/alarms`, {}, proc, since);
    results.heavy = {};
    for (const r of reads) {
      const samples = { tusk: [], limit: [], delay: [] };
      for (let round = 0; round < opts.rounds; round++) {
        await fetch(`${t.customer}/__tusk/runtime`, { method: 'DELETE' });
        samples.tusk.push(
          await measure({ url: r.base + r.path, method: 'GET', headers: { authorization: basic(r.key) } }),
        );
        samples.delay.push((await (await fetch(`${t.customer}/__tusk/runtime`)).json()).event_loop_delay_ms);
        samples.limit.push(await measure({ url: ref.base + r.path, method: 'GET', headers: {} }));
      }
      const fig = (fs) => ({
        rps: Math.round(median(fs.map((f) => f.rps))),
        p50: round1(median(fs.map((f) => f.p50))),
        p99: round1(median(fs.map((f) => f.p99))),
        non2xx: fs.reduce((n, f) => n + f.non2xx, 0),
      });
      const row = {
        title: r.title,
        bytes: r.bytes,
        tusk: fig(samples.tusk),
        limit: fig(samples.limit),
        eventLoopDelayMs: {
          p99: round1(median(samples.delay.map((d) => d.p99))),
          max: round1(Math.max(...samples.delay.map((d) => d.max))),
        },
      };
      row.ratio = Math.round((row.tusk.rps / row.limit.rps) * 100) / 100;
      results.heavy[r.id] = row;
      log(
        `  ${r.title.padEnd(42)} ${String(r.bytes).padStart(8)} B  tusk ${String(row.tusk.rps).padStart(6)} req/s p99 ${row.tusk.p99} ms  limit ${String(row.limit.rps).padStart(6)} req/s  ${row.ratio}x  event-loop delay p99 ${row.eventLoopDelayMs.p99} ms, max ${row.eventLoopDelayMs.max} ms`,
      );
    }
  } finally {
    await t.proc.stop();
    await ref?.proc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
