// The operations part (`--only operations`): every operation of both documents measured by
// bench/operations.js against Tusk and one `prism mock` per document in the same run, the figures
// rounded into results.operations.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { operationsBench } from '../operations.js';
import { round1 } from '../lib/measure.js';
import { flags, log, opts, tool } from '../lib/options.js';
import { CUSTOMER_DOC, INSTANCE_DOC, ROOT } from '../lib/paths.js';
import { cpuMs, settle } from '../lib/processes.js';
import { ADMIN_KEY, startPrism, startTusk } from '../lib/starters.js';

/**
 * Every operation of both documents (bench/operations.js): Tusk and Prism (one `prism mock` per
 * document) in the same run, a fixed number of requests each.
 */
export async function operationsPart(results) {
  const ids = ['customer', 'instance'].flatMap((api) => {
    const doc = JSON.parse(readFileSync(join(ROOT, 'dist', 'openapi', `${api}.json`), 'utf8'));
    return Object.values(doc.paths).flatMap((item) =>
      Object.values(item).flatMap((op) => (op && typeof op === 'object' && op.operationId ? [op.operationId] : [])),
    );
  });
  const only = flags.operation ? flags.operation.split(',').map((x) => x.trim()) : undefined;
  const t = await startTusk({ profile: flags.profile });
  const pc = await startPrism({ doc: CUSTOMER_DOC });
  const pi = await startPrism({ doc: INSTANCE_DOC });
  try {
    const rows = await operationsBench({
      t: { customer: t.customer, instance: t.instance },
      prism: { customer: pc.instance, instance: pi.instance },
      adminKey: ADMIN_KEY,
      operationIds: only ?? ids,
      count: opts.opRequests,
      deletes: opts.opRequests,
      seconds: opts.opSeconds,
      warmup: opts.opWarmup,
      rounds: opts.opRounds,
      concurrency: opts.connections,
      useWrk: tool === 'wrk',
      settle: () => Promise.all([t, pc, pi].map((server) => settle(server.proc.pid))),
      tuskCpuMs: () => cpuMs(t.proc.pid),
      log,
    });
    results.operations = {
      requests: opts.opRequests,
      rows: rows.map((r) => ({
        ...r,
        tusk: roundFigures(r.tusk),
        ...(r.prism ? { prism: roundFigures(r.prism), ratio: round1(r.ratio) } : {}),
      })),
    };
  } finally {
    await Promise.all([t.proc.stop(), pc.proc.stop(), pi.proc.stop()]);
  }
}

const roundFigures = (f) => ({
  rps: Math.round(f.rps),
  p50: round1(f.p50),
  p99: round1(f.p99),
  non2xx: f.non2xx,
  ...(f.eventLoopDelayMs ? { eventLoopDelayMs: f.eventLoopDelayMs } : {}),
  ...(f.cpuUs !== undefined ? { cpuUs: f.cpuUs } : {}),
  ...(f.rounds ? { rounds: f.rounds } : {}),
  ...(f.firstBad ? { firstBad: f.firstBad } : {}),
});
