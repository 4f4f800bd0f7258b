// The report of a bench run: the targets (each figure against its limit, PASS or FAIL) and
// BENCHMARKS.md's blocks written from the results (the latest complete run; every operation and
// the heavy reads; a team's replica against the in-memory process), also again from a results file
// alone (--from).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log } from './options.js';
import { ROOT } from './paths.js';

/** The heavy reads, whose p99 target is 50 ms instead of 25. */
const HEAVY_READS = new Set(['listInstances', 'listBackups', 'getAuditLogCsv', 'listInvoices', 'listTeamMembers']);

export function targets(res) {
  const t = res.throughput ?? {};
  const ga = t['get-alarms'] ?? {};
  const pa = t['post-alarms'] ?? {};
  const ratio = (a, b) => (a && b ? Math.round((a.rps / b.rps) * 100) / 100 : null);
  const list = [];
  const add = (name, value, unit, pass) => list.push({ name, value, unit, pass: value == null ? null : pass });
  if (res.throughput) {
    add('GET /api/alarms: Tusk/Prism >= 8x', ratio(ga.tusk, ga.prism), 'x', ratio(ga.tusk, ga.prism) >= 8);
    add(
      'GET /api/alarms: Tusk/bare Hono >= 0.6x',
      ratio(ga.tusk, ga['bare-hono']),
      'x',
      ratio(ga.tusk, ga['bare-hono']) >= 0.6,
    );
    add('GET /api/alarms: p99 < 15 ms', ga.tusk?.p99 ?? null, 'ms', ga.tusk?.p99 < 15);
    add('POST /api/alarms: Tusk/Prism >= 6x', ratio(pa.tusk, pa.prism), 'x', ratio(pa.tusk, pa.prism) >= 6);
    add('POST /api/alarms: p99 < 20 ms', pa.tusk?.p99 ?? null, 'ms', pa.tusk?.p99 < 20);
  }
  if (res.startup) {
    add('start-up to first 200 < 400 ms', res.startup.tusk?.firstOkMs ?? null, 'ms', res.startup.tusk?.firstOkMs < 400);
    add('idle RSS < 120 MB', res.startup.tusk?.idleRssMb ?? null, 'MB', res.startup.tusk?.idleRssMb < 120);
  }
  if (res.scale) {
    add(`RSS with ${res.scale.instances} instances < 400 MB`, res.scale.rssMb, 'MB', res.scale.rssMb < 400);
    add(
      `GET /api/alarms cost per request at ${res.scale.instances} vs 10 instances within 10% (${res.scale.costMeasure})`,
      res.scale.costRatio,
      'x',
      Math.abs(1 - res.scale.costRatio) <= 0.1,
    );
  }
  if (res.contract)
    add(
      'contract suite in-process < 20 s',
      res.contract.seconds,
      's',
      res.contract.seconds < 20 && res.contract.exitCode === 0,
    );
  if (res.heavy) {
    for (const [id, h] of Object.entries(res.heavy)) {
      add(`${id}: Tusk / bare route serving the same bytes >= 0.5x`, h.ratio, 'x', h.ratio >= 0.5);
      add(`${id}: p99 < 50 ms`, h.tusk.p99, 'ms', h.tusk.p99 < 50);
      add(`${id}: event-loop delay p99 < 20 ms`, h.eventLoopDelayMs.p99, 'ms', h.eventLoopDelayMs.p99 < 20);
    }
  }
  if (res.team) {
    const tm = res.team;
    add(
      `${tm.title}: a replica of a team (${tm.replicas} on one Postgres) / the in-memory process >= 0.5x`,
      tm.ratio,
      'x',
      tm.ratio >= 0.5,
    );
  }
  if (res.operations) {
    const rows = res.operations.rows;
    const slowest = rows.filter((r) => r.ratio != null).sort((a, b) => a.ratio - b.ratio)[0];
    add(
      `every operation: Tusk/Prism >= 8x (lowest: ${slowest?.operation})`,
      slowest?.ratio ?? null,
      'x',
      slowest?.ratio >= 8,
    );
    const p99 = (r) => r.tusk.p99 - (HEAVY_READS.has(r.operation) ? 25 : 0);
    const worst = [...rows].sort((a, b) => p99(b) - p99(a))[0];
    add(
      `every operation: p99 < 25 ms, heavy reads < 50 ms (worst: ${worst?.operation})`,
      worst?.tusk.p99 ?? null,
      'ms',
      rows.every((r) => r.tusk.p99 < (HEAVY_READS.has(r.operation) ? 50 : 25)),
    );
    add(
      'every operation: answered 2xx by Tusk',
      rows.reduce((n, r) => n + r.tusk.non2xx, 0),
      'non-2xx',
      rows.every((r) => r.tusk.non2xx === 0),
    );
  }
  return list;
}

function markdown(res) {
  const lines = [];
  const m = res.machine;
  lines.push(
    `Run ${res.date} on ${m.cpu}, ${m.cores} cores, ${m.memoryGb} GB, Node ${m.node}, ${m.os}; load generator ${res.tool}, ${res.options.connections} connections, ${res.options.duration} s per measurement after ${res.options.warmup} s of warm-up, median of ${res.options.rounds} round(s) alternating the servers; Prism as \`${res.options.prism}\`, Tusk as \`tusk serve --quiet\`.`,
  );
  lines.push('');
  if (res.throughput) {
    lines.push('| workload | server | req/s | p50 ms | p99 ms | non-2xx |', '|---|---|---:|---:|---:|---:|');
    for (const w of Object.values(res.throughput)) {
      for (const name of ['tusk', 'prism', 'bare-hono', 'raw-http']) {
        const f = w[name];
        if (f) lines.push(`| ${w.title} | ${name} | ${f.rps} | ${f.p50} | ${f.p99} | ${f.non2xx} |`);
      }
    }
    lines.push('');
  }
  if (res.startup) {
    lines.push('| server | start-up to first 200 (median) | RSS idle after start-up |', '|---|---:|---:|');
    for (const [name, s] of Object.entries(res.startup))
      lines.push(`| ${name} | ${s.firstOkMs} ms | ${s.idleRssMb} MB |`);
    lines.push('');
  }
  if (res.scale) {
    const s = res.scale;
    lines.push(
      `Scale: ${s.instances} instances created through the API in ${s.createSeconds} s (each: ${Object.entries(
        s.perInstance,
      )
        .map(([k, v]) => `${v} ${k}`)
        .join(
          ', ',
        )}); RSS ${s.rssMb} MB (peak ${s.peakRssMb} MB). GET /api/alarms at 10 instances: ${s.getAlarmsAt10.rps} req/s, ${s.getAlarmsAt10.cpuUsPerRequest ?? '?'} µs of server CPU per request; at ${s.instances}: ${s.getAlarmsAtScale.rps} req/s, ${s.getAlarmsAtScale.cpuUsPerRequest ?? '?'} µs (cost ratio ${s.costRatio}, ${s.costMeasure}${s.costRatios ? `: ${s.costRatios.join(', ')}` : ''}; requests/s ratio ${s.rpsRatio}).`,
      '',
    );
  }
  if (res.contract)
    lines.push(
      `Contract suite in-process (\`npx vitest run contract-tests\`): ${res.contract.seconds} s, exit ${res.contract.exitCode}${res.contract.summary.length ? ` (${res.contract.summary.join('; ')})` : ''}.`,
      '',
    );
  lines.push('| target | figure | result |', '|---|---:|---|');
  for (const t of res.targets)
    lines.push(
      `| ${t.name} | ${t.value ?? '-'}${t.value != null ? ` ${t.unit}` : ''} | ${t.pass == null ? 'not measured' : t.pass ? 'PASS' : 'FAIL'} |`,
    );
  return lines.join('\n');
}

/** The per-operation table and the heavy reads: their own block of BENCHMARKS.md (a run of those parts alone writes it). */
function operationsMarkdown(res) {
  const lines = [];
  lines.push(
    `Run ${res.date} on ${res.machine.cpu}, ${res.machine.cores} cores, Node ${res.machine.node}; ${res.tool} for the heavy reads (${res.options.duration} s after ${res.options.warmup} s of warm-up, median of ${res.options.rounds}).`,
    '',
  );
  if (res.heavy) {
    lines.push(
      "Heavy reads against the physical limit (a bare Hono route answering the bytes Tusk sent, same run), with Tusk's event-loop delay during the load:",
      '',
    );
    lines.push(
      '| read | bytes | Tusk req/s | p99 ms | limit req/s | Tusk/limit | event-loop delay p99 / max ms |',
      '|---|---:|---:|---:|---:|---:|---:|',
    );
    for (const h of Object.values(res.heavy))
      lines.push(
        `| ${h.title} | ${h.bytes} | ${h.tusk.rps} | ${h.tusk.p99} | ${h.limit.rps} | ${h.ratio}x | ${h.eventLoopDelayMs.p99} / ${h.eventLoopDelayMs.max} |`,
      );
    lines.push('');
  }
  if (res.operations) {
    const rounds = res.operations.rows[0]?.rounds;
    lines.push(
      `Every operation, ${res.options.connections} connections, Tusk and \`prism mock\` in the same run${rounds > 1 ? `, in turn ${rounds} times (medians)` : ''}: a repeatable request for a time with wrk, one that makes or uses up a resource a fixed number of times over connections opened before (key rotations one after the other); see "What is measured":`,
      '',
    );
    lines.push(
      '| operation | run | Tusk req/s | p50 ms | p99 ms | event-loop delay p99 / max ms | Tusk CPU µs/request | Prism req/s | p99 ms | Tusk/Prism |',
      '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    );
    for (const r of res.operations.rows) {
      const delay = r.tusk.eventLoopDelayMs ? `${r.tusk.eventLoopDelayMs.p99} / ${r.tusk.eventLoopDelayMs.max}` : '-';
      lines.push(
        `| ${r.operation}${r.sequential ? ' (sequential)' : ''} | ${r.mode ?? '-'}${r.tool ? `, ${r.tool}` : ''} | ${r.tusk.rps}${r.tusk.non2xx ? ` (${r.tusk.non2xx} non-2xx)` : ''} | ${r.tusk.p50} | ${r.tusk.p99} | ${delay} | ${r.tusk.cpuUs ?? '-'} | ${r.prism?.rps ?? '-'}${r.prism?.non2xx ? ` (${r.prism.non2xx} non-2xx)` : ''} | ${r.prism?.p99 ?? '-'} | ${r.ratio ?? '-'}x |`,
      );
    }
    lines.push('');
  }
  const mine = res.targets.filter((t) =>
    /^(every operation|listInstances|listBackups|getAuditLogCsv|listInvoices|listTeamMembers)/.test(t.name),
  );
  lines.push('| target | figure | result |', '|---|---:|---|');
  for (const t of mine)
    lines.push(
      `| ${t.name} | ${t.value ?? '-'}${t.value != null ? ` ${t.unit}` : ''} | ${t.pass == null ? 'not measured' : t.pass ? 'PASS' : 'FAIL'} |`,
    );
  return lines.join('\n');
}

/** A team's replica against the in-memory process (the team part): its own block of BENCHMARKS.md. */
function teamMarkdown(res) {
  const tm = res.team;
  const o = res.options;
  const lines = [
    `Run ${res.date} on ${res.machine.cpu}, ${res.machine.cores} cores, Node ${res.machine.node}; load average ${tm.loadAverage.before.join(', ')} before and ${tm.loadAverage.after.join(', ')} after (1, 5, 15 min); ${res.tool}, ${o.connections} connections, ${o.duration} s per measurement after ${o.warmup} s of warm-up, ${o.rounds} round(s) each measuring the three in turn (the order turning), medians. ${tm.title}; one Postgres (the embedded server), ${tm.replicas} replicas on it (\`tusk serve --state postgres://... --databases off --quiet\`) and one in-memory \`tusk serve --databases off --quiet\`, all running throughout. CPU: µs per request of the Tusk process(es) measured, and of the Postgres server (postmaster and backends).`,
    '',
    '| server | req/s | p50 ms | p99 ms | Tusk CPU µs/request | Postgres CPU µs/request | req/s per round | non-2xx |',
    '|---|---:|---:|---:|---:|---:|---|---:|',
  ];
  const row = (name, f) =>
    lines.push(
      `| ${name} | ${f.rps} | ${f.p50} | ${f.p99} | ${f.cpuUs ?? '-'} | ${f.postgresCpuUs ?? '-'} | ${f.rounds.join(', ')} | ${f.non2xx} |`,
    );
  row('in-memory `tusk serve`', tm.memory);
  row('one replica', tm.replica);
  row(`${tm.replicas} replicas at once (connections split, summed)`, tm.team);
  if (tm.before) row(`before: one replica of ${tm.before.tree}`, tm.before.replica);
  lines.push(
    '',
    `Replica / in-memory: **${tm.ratio}x** (median of the rounds' own ratios: ${tm.ratios.join(', ')}); ${tm.replicas} replicas at once / in-memory: ${tm.teamRatio}x (${tm.teamRatios.join(', ')})${tm.before ? `; before, replica / in-memory: ${tm.before.ratio}x (${tm.before.ratios.join(', ')})` : ''}.`,
    '',
    '| target | figure | result |',
    '|---|---:|---|',
  );
  for (const t of res.targets.filter((t) => t.name.startsWith(`${tm.title}: a replica`)))
    lines.push(
      `| ${t.name} | ${t.value ?? '-'}${t.value != null ? ` ${t.unit}` : ''} | ${t.pass == null ? 'not measured' : t.pass ? 'PASS' : 'FAIL'} |`,
    );
  return lines.join('\n');
}

const TEAM_START = '<!-- bench:team:start -->';
const TEAM_END = '<!-- bench:team:end -->';

export function writeTeamMd(results) {
  const file = join(ROOT, 'BENCHMARKS.md');
  let text = readFileSync(file, 'utf8');
  if (!text.includes(TEAM_START))
    text += `\n## A team's replica against the in-memory process (issue 44)\n\n${TEAM_START}\n${TEAM_END}\n`;
  writeFileSync(
    file,
    text.replace(
      new RegExp(`${TEAM_START}[\\s\\S]*?${TEAM_END}`),
      () => `${TEAM_START}\n${teamMarkdown(results)}\n${TEAM_END}`,
    ),
  );
}

const OPS_START = '<!-- bench:operations:start -->';
const OPS_END = '<!-- bench:operations:end -->';

const START = '<!-- bench:latest:start -->';
const END = '<!-- bench:latest:end -->';

export function writeBenchmarksMd(res) {
  const file = join(ROOT, 'BENCHMARKS.md');
  const block = `${START}\n${markdown(res)}\n${END}`;
  let text = existsSync(file)
    ? readFileSync(file, 'utf8')
    : `# Benchmarks\n\n\`npm run bench\` (bench/run.js) writes the section below and bench/results/latest.json.\n\n## Latest run\n\n${START}\n${END}\n`;
  if (!text.includes(START)) text += `\n## Latest run\n\n${START}\n${END}\n`;
  text = text.replace(new RegExp(`${START}[\\s\\S]*?${END}`), () => block);
  writeFileSync(file, text);
}

/** BENCHMARKS.md's two blocks again from a results file (--from FILE): a change to the tables' form needs no new run. */
export function renderFrom(file) {
  const results = JSON.parse(readFileSync(file, 'utf8'));
  results.targets = targets(results);
  writeBenchmarksMd(results);
  writeOperationsMd(results);
  if (results.team) writeTeamMd(results);
  log(`wrote BENCHMARKS.md from ${file}`);
}

export function writeOperationsMd(results) {
  const file = join(ROOT, 'BENCHMARKS.md');
  let text = readFileSync(file, 'utf8');
  if (!text.includes(OPS_START))
    text += `\n## Every operation, and the heavy reads against the physical limit\n\n${OPS_START}\n${OPS_END}\n`;
  writeFileSync(
    file,
    text.replace(
      new RegExp(`${OPS_START}[\\s\\S]*?${OPS_END}`),
      () => `${OPS_START}\n${operationsMarkdown(results)}\n${OPS_END}`,
    ),
  );
}
