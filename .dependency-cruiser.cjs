// The dependency rules of src/ (issue 16), checked by `npm run lint` (so by `npm test`): no import
// cycle, and layers that point one way:
//   core (errors, limits, memo)  ->  openapi (documents, rules, validation)  ->  store, databases  ->  http  ->  customer, instance
//   (resource apps), control (beside them)  ->  server  ->  cli, conformance; proxy (the validating
//   proxy) uses core and openapi only, and only cli uses it; record (HAR, go-vcr cassettes,
//   redaction), import (`tusk import`) and replay (`tusk replay`) speak HTTP to a deployment like the
//   proxy: core, openapi and record only, never the stand-in's store
// A module may import its own layer and the layers to its left, never one to its right.
/** @type {import('dependency-cruiser').IConfiguration} */
const layer = (name, path, forbidden) => ({
  name: `layer-${name}`,
  severity: 'error',
  comment: `${path} is below ${forbidden.join(', ')}: it must not import them`,
  from: { path: `^src/${path}` },
  to: { path: `^src/(${forbidden.join('|')})` },
});
const ABOVE_HTTP = [
  'customer/',
  'instance/',
  'control/',
  'docs/',
  'proxy/',
  'record/',
  'import/',
  'replay/',
  'server\\.ts',
  'cli(\\.ts|/)',
  'conformance/',
];
/** What the proxy, record/, import/ and replay/ must not import: the stand-in and the commands. */
const OUTSIDE_STAND_IN = [
  'store/',
  'databases/',
  'http/',
  'customer/',
  'instance/',
  'control/',
  'server\\.ts',
  'cli(\\.ts|/)',
  'conformance/',
];
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'an import cycle', from: {}, to: { circular: true } },
    layer('core', 'core/', ['openapi/', 'store/', 'databases/', 'http/', ...ABOVE_HTTP]),
    layer('openapi', 'openapi/', ['store/', 'databases/', 'http/', ...ABOVE_HTTP]),
    layer('store', 'store/', ['http/', ...ABOVE_HTTP]),
    layer('databases', 'databases/', ['store/', 'http/', ...ABOVE_HTTP]),
    layer('http', 'http/', ABOVE_HTTP),
    layer('resources', '(customer|instance)/', ['control/', 'proxy/', 'server\\.ts', 'cli(\\.ts|/)', 'conformance/']),
    layer('control', 'control/', ['customer/', 'instance/', 'proxy/', 'server\\.ts', 'cli(\\.ts|/)', 'conformance/']),
    // The validating proxy judges traffic with the documents alone: no store, no stand-in.
    layer('proxy', 'proxy/', [...OUTSIDE_STAND_IN, 'import/', 'replay/']),
    // What records, reads and replays exchanges, and reads accounts, talks to deployments over
    // HTTP alone: record/ is shared by the proxy, import/ and replay/, which do not use each other.
    layer('record', 'record/', [...OUTSIDE_STAND_IN, 'proxy/', 'import/', 'replay/']),
    layer('import', 'import/', [...OUTSIDE_STAND_IN, 'proxy/', 'replay/']),
    layer('replay', 'replay/', [...OUTSIDE_STAND_IN, 'proxy/', 'import/']),
    layer('server', 'server\\.ts', ['proxy/', 'record/', 'import/', 'replay/', 'cli(\\.ts|/)', 'conformance/']),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    moduleSystems: ['es6'],
  },
};
