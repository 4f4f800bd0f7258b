// The contract part (`--only contract`): the time of the conformance suite run in-process
// (`npx vitest run contract-tests`) and its exit code, into results.contract.
import { spawn } from 'node:child_process';
import { round1 } from '../lib/measure.js';
import { log } from '../lib/options.js';
import { ROOT } from '../lib/paths.js';

export async function contract(results) {
  const t0 = performance.now();
  const r = await new Promise((resolve) => {
    const p = spawn('npx', ['vitest', 'run', 'contract-tests'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => (out += d));
    p.on('exit', (code) => resolve({ code, out }));
  });
  const seconds = (performance.now() - t0) / 1000;
  const summary = r.out
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((l) => /^\s*(Test Files|Tests)\s/.test(l))
    .map((l) => l.trim());
  results.contract = { seconds: round1(seconds), exitCode: r.code, summary };
  log(
    `  npx vitest run contract-tests: ${seconds.toFixed(1)} s, exit ${r.code}${summary.length ? ` (${summary.join('; ')})` : ''}`,
  );
}
