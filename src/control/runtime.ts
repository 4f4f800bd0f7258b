// How the server process itself is doing (outside the contract; issue 20):
//   GET    /__tusk/runtime   event-loop delay (p50, p99, max in ms since the last reset, from
//                           perf_hooks.monitorEventLoopDelay), resident memory, uptime
//   DELETE /__tusk/runtime   restart the delay histogram (204)
// A heavy request blocks every other client of the process for as long as it runs; the delay
// shows it. `npm run bench` reads it around each heavy workload.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Hono } from 'hono';
import type { ControlDeps } from './deps.js';

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

export function runtimeRoutes(deps: ControlDeps): Hono {
  const app = new Hono();
  const delay: IntervalHistogram = deps.eventLoopDelay;
  app.get('/', (c) =>
    c.json({
      event_loop_delay_ms: delay.count ? { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), samples: delay.count } : { p50: 0, p99: 0, max: 0, samples: 0 },
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

/** The histogram a control plane keeps (10 ms resolution: a timer every 10 ms, nothing per request). */
export function eventLoopMonitor(): IntervalHistogram {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  return h;
}
