// How the server process itself is doing (outside the contract):
//   GET    /__tusk/runtime   event-loop delay (p50, p99, max in ms since the last reset: how late a
//                           10 ms timer ran, from perf_hooks.monitorEventLoopDelay), resident
//                           memory, uptime
//   DELETE /__tusk/runtime   restart the delay histogram (204)
// A heavy request blocks every other client of the process for as long as it runs; the delay
// shows it. `npm run bench` reads it around each heavy workload.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Hono } from 'hono';
import type { ControlDeps } from './deps.js';

/** The histogram's timer interval (ms). */
export const RESOLUTION_MS = 10;
/**
 * The delay of one sample in ms: how late the timer ran. The histogram records the whole interval
 * between two runs of its timer (the resolution included: an idle loop reads just over
 * RESOLUTION_MS, see nodejs/node#34661), so the resolution is taken off.
 */
const lateMs = (ns: number) => Math.max(0, Math.round(ns / 1e4 - RESOLUTION_MS * 100) / 100);

export function runtimeRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const delay: IntervalHistogram = deps.eventLoopDelay;
  app.get('/', (c) =>
    c.json({
      event_loop_delay_ms: delay.count
        ? {
            p50: lateMs(delay.percentile(50)),
            p99: lateMs(delay.percentile(99)),
            max: lateMs(delay.max),
            samples: delay.count,
          }
        : { p50: 0, p99: 0, max: 0, samples: 0 },
      rss_mb: Math.round(process.memoryUsage.rss() / 2 ** 20),
      uptime_s: Math.round(process.uptime()),
    }),
  );
  app.delete('/', (c) => {
    delay.reset();
    return c.body(null, 204);
  });
  return app;
}

/** The histogram a control plane keeps (a timer every RESOLUTION_MS, nothing per request). */
export function eventLoopMonitor(): IntervalHistogram {
  const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  h.enable();
  return h;
}
