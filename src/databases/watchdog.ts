// The watchdog of an embedded server: a small process beside it that outlives its owner (this Tusk
// process). While the owner lives, it leaves everything to the owner; once the owner is gone
// (killed with SIGKILL, which no handler sees), it shuts the server down and removes its data
// directory. On Linux it is a `sh` loop reading /proc (about 1 MB); where there is no /proc or no
// `sh` (macOS, Windows, a slim container), a detached Node process doing the same with signals.
import { spawn, type ChildProcess } from 'node:child_process';
import { detectHost, type Host } from './host.js';

/**
 * The shell watchdog (`sh -c WATCHDOG sh OWNER SERVER DATA`): while the server is the child of its
 * owner, it checks once a second. When the server has stopped or crashed under a living owner, it
 * exits: the owner restarts or removes it. When the owner is gone, it shuts the server down (fast,
 * then a kill after 5 s) and removes its data directory (DATA: empty for a kept one). Processes are
 * read from /proc: the state and parent pid follow the command name, which may hold spaces, in
 * parentheses.
 */
const WATCHDOG = `
owner=$1 server=$2 data=$3
look() { read -r line < "/proc/$1/stat" || return 1; rest=\${line##*) }; state=\${rest%% *}; rest=\${rest#* }; parent=\${rest%% *}; }
running() { look "$1" 2>/dev/null && [ "$state" != Z ]; }
while running "$server" && [ "$parent" = "$owner" ]; do sleep 1; done
if running "$owner"; then exit 0; fi
if running "$server"; then
  kill -INT "$server"
  i=0
  while running "$server" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
  kill -KILL "$server" 2>/dev/null
fi
[ -z "$data" ] || rm -rf -- "$data"
`;

/**
 * The same in Node (`node -e NODE_WATCHDOG tusk-watchdog OWNER SERVER DATA`), from signals alone:
 * `kill(pid, 0)` tells whether a process exists. Checks once a second; an exit of the server under
 * a living owner ends it, as above.
 */
const NODE_WATCHDOG = `
const [owner, server, data] = process.argv.slice(2);
const alive = (pid) => { try { process.kill(Number(pid), 0); return true; } catch (e) { return e.code === 'EPERM'; } };
const signal = (pid, s) => { try { process.kill(Number(pid), s); } catch {} };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
(async () => {
  while (alive(server) && alive(owner)) await sleep(1000);
  if (alive(owner)) return;
  if (alive(server)) {
    signal(server, 'SIGINT');
    for (let i = 0; i < 50 && alive(server); i++) await sleep(100);
    signal(server, 'SIGKILL');
  }
  if (data) require('node:fs').rmSync(data, { recursive: true, force: true, maxRetries: 3 });
})();
`;

/**
 * Starts the watchdog of the server `pid`, a child of `owner`: it outlives its owner. `dataDir`:
 * what it removes once the owner is gone (none for a kept one). The shell loop where /proc and
 * `sh` are, the Node one elsewhere; undefined when neither can start (a killed run's server is then
 * cleared at the next start instead).
 */
export function watchdog(
  pid: number,
  dataDir: string | undefined,
  owner = process.pid,
  host: Host = detectHost(),
): ChildProcess | undefined {
  const ids = [String(owner), String(pid), dataDir ?? ''];
  const [command, args] =
    host.proc && host.sh
      ? ['sh', ['-c', WATCHDOG, 'sh', ...ids]]
      : [process.execPath, ['-e', NODE_WATCHDOG, 'tusk-watchdog', ...ids]];
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.once('error', () => undefined);
    child.unref();
    return child;
  } catch {
    return undefined;
  }
}
