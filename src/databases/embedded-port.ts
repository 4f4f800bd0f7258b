// The embedded server's port. A kept data directory (`--state`) listens where it listened before, so
// an instance's url stays the same while the instance lives, restarts of Tusk included; the port is
// remembered beside the data directory (DIR.port). When another process has taken it, the server
// moves to a free port, and a line says that the urls changed: at a start, and when a port the
// server was about to listen on was taken meanwhile (a start, or a start again after a loss).
import { readFileSync } from 'node:fs';
import { freePort } from '../core/net.js';
import { PortTaken, type EmbeddedServer } from './embedded.js';
import type { EngineLog } from './engine-spec.js';

/** The port a kept data directory's server listened on last (`DIR.port`, beside it), if any. */
export function keptPort(kept: string): number | undefined {
  try {
    const port = Number(readFileSync(`${kept}.port`, 'utf8').trim());
    return Number.isInteger(port) && port > 0 && port < 65536 ? port : undefined;
  } catch {
    return undefined;
  }
}

/** The port for an embedded server: the one its kept data directory had, while it is free; else a free one. */
export async function embeddedPort(dataDir: string | undefined, log: EngineLog): Promise<number> {
  const kept = dataDir ? keptPort(dataDir) : undefined;
  const port = await freePort('127.0.0.1', kept);
  if (kept && port !== kept)
    log(
      'warn',
      `tusk: databases: port ${kept}, where the embedded server of this state listened before, is taken by another process: it listens on ${port} now, ${URLS_CHANGED}`,
    );
  return port;
}

const URLS_CHANGED = "so the instances' urls changed (GET /api/instances/{id} gives the new ones)";

/** The line that says the server moved off a port taken meanwhile (`why`), to `port`. */
export const movedLine = (port: number, why: string): string =>
  `tusk: databases: ${why}; the embedded server listens on ${port} instead, ${URLS_CHANGED}`;

/**
 * Runs `start` (a boot, or a start again after a loss) of the embedded server; when another
 * process took its port meanwhile, moves it to a free one (`moved` learns the port and why) and
 * starts it again, up to three times.
 */
export async function listening(
  server: EmbeddedServer,
  start: () => Promise<void>,
  moved: (port: number, why: string) => void,
): Promise<void> {
  for (let moves = 0; ; moves++) {
    try {
      await (moves === 0 ? start() : server.start());
      return;
    } catch (err) {
      if (!(err instanceof PortTaken) || moves >= 3) throw err;
      server.port = await freePort();
      moved(server.port, err.message);
    }
  }
}
