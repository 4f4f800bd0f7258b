#!/usr/bin/env node
// Summarises a V8 CPU profile (`node --cpu-prof`, or `npm run bench -- --profile DIR`): the top
// functions by self time, and self time by file (package or source file).
// Usage: node bench/profile-summary.js FILE.cpuprofile [--top N]
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' } },
});
if (!positionals[0]) {
  console.error('usage: node bench/profile-summary.js FILE.cpuprofile [--top N]');
  process.exit(2);
}
const top = Number(values.top);
const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));

// Self time per node: the sampled time deltas attributed to the sample's node.
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map();
const deltas = profile.timeDeltas ?? [];
profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (deltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);

const shortUrl = (url) => {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}/…/${rest.at(-1)}` : `${rest[0]}/…/${rest.at(-1)}`;
  }
  return url.replace(/^file:\/\/.*?\/(dist|src|node:)/, '$1').replace(/^file:\/\//, '');
};

const fns = new Map();
const files = new Map();
for (const [id, us] of self) {
  const n = byId.get(id);
  const cf = n.callFrame;
  const key = `${cf.functionName || '(anonymous)'}  ${shortUrl(cf.url)}:${cf.lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
  const file = cf.url ? shortUrl(cf.url).replace(/:\d+$/, '') : `(${cf.functionName || 'native'})`;
  files.set(file, (files.get(file) ?? 0) + us);
}

const pct = (us) => ((us / total) * 100).toFixed(1).padStart(5) + '%';
const ms = (us) => (us / 1000).toFixed(0).padStart(7) + ' ms';
console.log(`total sampled ${(total / 1000).toFixed(0)} ms, ${profile.samples.length} samples\n`);
console.log(`top ${top} functions by self time`);
for (const [k, us] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)} ${ms(us)}  ${k}`);
console.log(`\ntop ${top} files by self time`);
for (const [k, us] of [...files].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)} ${ms(us)}  ${k}`);
