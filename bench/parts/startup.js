// The start-up part (`--only startup`): each server started --starts times; the median time to its
// first 200 and its resident memory when idle after start-up, into results.startup.
import { setTimeout as sleep } from 'node:timers/promises';
import { median } from '../load.js';
import { log, opts } from '../lib/options.js';
import { rssMb } from '../lib/processes.js';
import { STARTERS } from '../lib/starters.js';

export async function startup(results) {
  results.startup = {};
  for (const name of ['tusk', 'prism', 'bare-hono', 'raw-http']) {
    const ms = [];
    const rss = [];
    for (let i = 0; i < opts.starts; i++) {
      const server = await STARTERS[name]();
      ms.push(server.startMs);
      await sleep(1000); // idle after start-up
      rss.push(rssMb(server.proc.pid));
      await server.proc.stop();
    }
    results.startup[name] = {
      firstOkMs: Math.round(median(ms)),
      idleRssMb: Math.round(median(rss)),
      starts: ms.map(Math.round),
    };
    log(
      `  ${name.padEnd(9)} first 200 after ${results.startup[name].firstOkMs} ms (median of ${ms.length}), idle RSS ${results.startup[name].idleRssMb} MB`,
    );
  }
}
