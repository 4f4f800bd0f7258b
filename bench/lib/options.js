// The command line of `npm run bench` (its flags are described in bench/run.js, which prints them
// for --help): the flags, parsed once, and what follows from them: the durations, rounds and parts
// of the run, --quick, the load generator (wrk when it is on PATH, else autocannon); and log, where
// every part writes its progress.
import { parseArgs } from 'node:util';
import { hasWrk } from '../load.js';

export const { values: flags } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string', default: '50' },
    starts: { type: 'string' },
    tool: { type: 'string' },
    only: { type: 'string' },
    profile: { type: 'string' },
    label: { type: 'string' },
    write: { type: 'boolean', default: false },
    'prism-quiet': { type: 'boolean', default: false },
    'scale-instances': { type: 'string', default: '10000' },
    'op-requests': { type: 'string', default: '5000' },
    'op-seconds': { type: 'string' },
    'op-warmup': { type: 'string' },
    'op-rounds': { type: 'string' },
    operation: { type: 'string' },
    from: { type: 'string' },
    'team-before': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
export const quick = flags.quick;
export const opts = {
  duration: Number(flags.duration ?? (quick ? 3 : 10)),
  warmup: Number(flags.warmup ?? (quick ? 1 : 3)),
  rounds: Number(flags.rounds ?? (quick ? 1 : 3)),
  connections: Number(flags.connections),
  starts: Number(flags.starts ?? (quick ? 3 : 10)),
  scaleInstances: Number(flags['scale-instances']),
  parts: new Set(
    (flags.only ?? 'throughput,startup,scale,contract,heavy,operations,team').split(',').map((s) => s.trim()),
  ),
  opRequests: Number(flags['op-requests']),
  opSeconds: Number(flags['op-seconds'] ?? (quick ? 1 : 2)),
  opRounds: Number(flags['op-rounds'] ?? (quick ? 1 : 3)),
  opWarmup: Number(flags['op-warmup'] ?? 1),
};
export const tool = flags.tool ?? (hasWrk ? 'wrk' : 'autocannon');

export const log = (...a) => console.log(...a);
