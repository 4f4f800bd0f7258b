#!/usr/bin/env node
// `npm run bench`: Tusk against Prism (`prism mock`, static examples, on the same bundled documents)
// and two references (a bare Hono route, a raw node:http handler) answering the same GET with the
// same JSON. One server at a time on loopback, several rounds alternating the servers, medians and
// the ratios of the same run; start-up to the first 200, resident memory idle and with 10,000
// instances, the per-request cost at 10 and at 10,000 instances, the contract suite's time, and a
// replica of a team's Tusk (one Postgres, three replicas) against the in-memory default on the same read.
// Prints every target with PASS/FAIL, writes bench/results/latest.json and the table of BENCHMARKS.md.
//
// Needs `npm run build` (npm run bench does it). Load generator: wrk when it is on PATH, else
// autocannon (npm). Flags: --quick (3 s per measurement, one round), --duration S, --warmup S,
// --rounds N, --connections N, --starts N, --tool wrk|autocannon, --only a,b (throughput, startup,
// scale, contract, heavy, operations, team), --profile DIR (Tusk under --cpu-prof), --label NAME (also
// bench/results/NAME.json), --write (update BENCHMARKS.md even with --quick), --prism-quiet (Prism
// with its request log off), --op-requests N (per operation that makes or uses up a resource,
// default 5000), --op-seconds S / --op-warmup S (per repeatable operation), --op-rounds N (Tusk
// and Prism in turn, medians; default 3, 1 with --quick), --operation a,b (only these), --from
// FILE (write BENCHMARKS.md's blocks again from a results file, no run), --team-before DIR (the team
// part also measures a replica of another built checkout, DIR, in the same rounds: before and after).

// The parts of the run are in bench/parts/ (one file each, by their --only name), what they share in
// bench/lib/ (the options, the servers, the measurement, Tusk's set-up) and the report in
// bench/lib/report.js.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem, release, platform } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { hasWrk } from './load.js';
import { flags, log, opts, quick, tool } from './lib/options.js';
import { BENCH, INSTANCE_DOC, ROOT } from './lib/paths.js';
import { renderFrom, targets, writeBenchmarksMd, writeOperationsMd, writeTeamMd } from './lib/report.js';
import { contract } from './parts/contract.js';
import { operationsPart } from './parts/every-operation.js';
import { heavyPart } from './parts/heavy.js';
import { scale } from './parts/scale.js';
import { startup } from './parts/startup.js';
import { REPLICAS, teamPart } from './parts/team.js';
import { throughput } from './parts/throughput.js';

if (flags.help) {
  process.stdout.write(
    readFileSync(fileURLToPath(import.meta.url), 'utf8')
      .split('\n')
      .slice(1)
      .filter((l, i, all) => all.slice(0, i + 1).every((x) => x.startsWith('//')))
      .map((l) => l.replace(/^\/\/ ?/, ''))
      .join('\n') + '\n',
  );
  process.exit(0);
}
if (tool === 'wrk' && !hasWrk) throw new Error('--tool wrk: wrk is not on PATH');

async function main() {
  if (flags.from) return renderFrom(flags.from);
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli.js')) || !existsSync(INSTANCE_DOC))
    throw new Error('run `npm run build` first (npm run bench does)');
  const cpu = cpus();
  const toolVersion =
    tool === 'wrk'
      ? spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0].trim()
      : `autocannon ${JSON.parse(readFileSync(join(ROOT, 'node_modules', 'autocannon', 'package.json'), 'utf8')).version}`;
  const results = {
    date: new Date().toISOString(),
    machine: {
      cpu: cpu[0]?.model.trim() ?? 'unknown',
      cores: cpu.length,
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      os: `${platform()} ${release()}`,
    },
    tool: toolVersion,
    options: {
      ...opts,
      parts: [...opts.parts],
      quick,
      prism: flags['prism-quiet'] ? 'prism mock -v error' : 'prism mock',
    },
  };
  log(
    `tusk bench: ${results.machine.cpu}, ${results.machine.cores} cores, Node ${process.version}, ${toolVersion}, ${opts.connections} connections, ${opts.duration} s (+${opts.warmup} s warm-up) x ${opts.rounds} round(s)`,
  );
  if (opts.parts.has('throughput')) await throughput(results);
  if (opts.parts.has('startup')) {
    log(`\nstart-up (${opts.starts} starts each)`);
    await startup(results);
  }
  if (opts.parts.has('scale')) {
    log(`\nscale: 10 vs ${opts.scaleInstances} instances`);
    await scale(results);
  }
  if (opts.parts.has('contract')) {
    log('\ncontract suite');
    await contract(results);
  }
  if (opts.parts.has('heavy')) {
    log('\nheavy reads against a bare route serving the same bytes');
    await heavyPart(results);
  }
  if (opts.parts.has('operations')) {
    log(`\nevery operation (${opts.opRequests} requests each)`);
    await operationsPart(results);
  }
  if (opts.parts.has('team')) {
    log(`\na team's Tusk: one Postgres, ${REPLICAS} replicas, against the in-memory process`);
    await teamPart(results);
  }
  results.targets = targets(results);
  log('\ntargets');
  for (const t of results.targets)
    log(
      `  ${t.pass == null ? '----' : t.pass ? 'PASS' : 'FAIL'}  ${t.name}: ${t.value ?? '-'}${t.value != null ? ` ${t.unit}` : ''}`,
    );
  if (results.throughput) {
    const ga = results.throughput['get-alarms'];
    const pa = results.throughput['post-alarms'];
    const r = (a, b) => (a && b ? (a.rps / b.rps).toFixed(2) : '-');
    log(
      `\nratios (same run): GET /api/alarms Tusk/Prism ${r(ga?.tusk, ga?.prism)}, Tusk/bare-Hono ${r(ga?.tusk, ga?.['bare-hono'])}, Tusk/raw-http ${r(ga?.tusk, ga?.['raw-http'])}; POST /api/alarms Tusk/Prism ${r(pa?.tusk, pa?.prism)}`,
    );
  }
  mkdirSync(join(BENCH, 'results'), { recursive: true });
  // latest.json and BENCHMARKS.md keep complete runs only: --quick and --only write elsewhere.
  const complete =
    !quick &&
    ['throughput', 'startup', 'scale', 'contract', 'heavy', 'operations', 'team'].every((p) => opts.parts.has(p));
  const name = complete ? 'latest' : quick ? 'quick' : 'partial';
  writeFileSync(join(BENCH, 'results', `${name}.json`), JSON.stringify(results, null, 2) + '\n');
  if (flags.label)
    writeFileSync(join(BENCH, 'results', `${flags.label}.json`), JSON.stringify(results, null, 2) + '\n');
  // --write: the "Latest run" block only when a part of it ran (heavy, operations and team have blocks of their own).
  const md = complete || (flags.write && ['throughput', 'startup', 'scale', 'contract'].some((p) => opts.parts.has(p)));
  if (md) writeBenchmarksMd(results);
  if ((results.operations || results.heavy) && (complete || flags.write)) writeOperationsMd(results);
  if (results.team && (complete || flags.write)) writeTeamMd(results);
  log(
    `\nwrote bench/results/${name}.json${flags.label ? ` and bench/results/${flags.label}.json` : ''}${md || ((results.team || results.heavy || results.operations) && flags.write) ? ' and BENCHMARKS.md' : ''}`,
  );
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
