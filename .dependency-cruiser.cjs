// The dependency rules of src/, checked by `npm run lint` (so by `npm test`): no import cycle, and
// folders that point one way, from the bottom up:
//   core       errors, limits, memo, log lines, durations, Basic keys: imports nothing of src/
//   openapi    the documents, the operation table, compiled validators, the body convention, rules
//   databases  the real Postgres engine and the SQL behind the instances
//   domain     what the resources share: clocks, dates, ids, secrets, record types, the outbox,
//              fault rules, the request journal, the state's types
//   http       the request pipeline, the finishing step, answer modes, router, rate limit
//   resources  one folder per resource of the two APIs (routes, rules, views, database work) and the
//              two aggregates (resources/account.ts, resources/instances/instance.ts)
//   accounts   the homes: one per account, the registry that finds them, the key index
//   compose.ts, control, docs, replicas   the two interfaces' apps, the /__tusk/ plane, the API
//              reference, a team's replicas on one Postgres
//   server     builds and starts everything;  cli, conformance  the `tusk` command
// Beside them, what speaks HTTP to a deployment and never touches the stand-in: proxy/ (the
// validating proxy), record/ (HAR, go-vcr cassettes, redaction; shared by the three), import/
// (`tusk import`) and replay/ (`tusk replay`): core, openapi and record only; only cli uses them,
// and import and replay do not use each other or the proxy.
// A module may import its own folder and the folders below it, never one above.
/** @type {import('dependency-cruiser').IConfiguration} */
const ORDER = [
  'core/',
  'openapi/',
  'databases/',
  'domain/',
  'http/',
  'resources/',
  'accounts/',
  '(compose\\.ts|control/|docs/|replicas/)',
  'server\\.ts',
  '(cli\\.ts|cli/|conformance/)',
];
// Beside the stand-in, each with what it may use of src/ besides core/, openapi/ and generated/.
const BESIDE = ['proxy', 'record', 'import', 'replay'];
const MAY_USE = { proxy: ['record'], record: [], import: ['record'], replay: ['record'] };
const layer = (i) => ({
  name: `layer-${ORDER[i].replace(/[^a-z]+/g, '-').replace(/^-|-$/g, '')}`,
  severity: 'error',
  comment: `src/${ORDER[i]} must not import what is above it`,
  from: { path: `^src/${ORDER[i]}` },
  to: { path: `^src/(${[...ORDER.slice(i + 1), ...BESIDE.map((b) => `${b}/`)].join('|')})` },
});
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'an import cycle', from: {}, to: { circular: true } },
    ...ORDER.map((_, i) => layer(i)).slice(0, -1),
    {
      name: 'layer-compose-control-docs',
      severity: 'error',
      comment: 'compose/, control/ and docs/ stand side by side: none imports another',
      from: { path: '^src/(compose\\.ts|control/|docs/|replicas/)' },
      to: { path: '^src/(compose\\.ts|control/|docs/|replicas/)', pathNot: '^src/$1' },
    },
    // The validating proxy, recordings, import and replay judge traffic with the documents alone.
    ...BESIDE.map((name) => ({
      name: `layer-${name}`,
      severity: 'error',
      comment: `src/${name}/ uses core/, openapi/${MAY_USE[name].map((m) => `, ${m}/`).join('')} only`,
      from: { path: `^src/${name}/` },
      to: { path: '^src/', pathNot: `^src/(core|openapi|generated|${[name, ...MAY_USE[name]].join('|')})/` },
    })),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
