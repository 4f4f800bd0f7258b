// The databases behind the instances as `tusk serve` opens them from its flags: none (`off`), the
// embedded server (its data kept beside a `--state` file: databases survive restarts), or an
// existing server; a team's replicas (`--state postgres://...`) share the server and one prefix
// of names, and none of them drops a database when it stops.
import { PostgresEngine, persistentDataDir, teamPrefix, type EngineLog, type EngineSpec } from './engine.js';
import { Databases } from './instance-databases.js';

export interface OpenOptions {
  /** `--state`: a file (single process) or a postgres:// URL (a team's replica). */
  state?: string | undefined;
  /** Whether the state is a team's (a postgres:// URL). */
  shared: boolean;
  log: EngineLog;
}

/** The databases of `spec`, their port reserved and their server starting in the background; undefined when off. */
export async function openDatabases(spec: EngineSpec, o: OpenOptions): Promise<Databases | undefined> {
  if (spec.kind === 'off') return undefined;
  if (o.shared && spec.kind === 'embedded')
    throw new Error(
      "with a postgres:// --state, --databases embedded would give each replica a server of its own: give a postgres:// URL (by default, the state's server) or off",
    );
  const kept = spec.kind === 'embedded' && o.state ? persistentDataDir(o.state) : undefined;
  if (kept?.why)
    o.log('warn', `tusk: databases: keeping the data in ${kept.dir}, not beside the state file: ${kept.why}`);
  const engine = new PostgresEngine(spec, o.log, {
    ...(kept ? { dataDir: kept.dir } : {}),
    ...(o.shared && o.state ? { prefix: teamPrefix(o.state) } : {}),
  });
  await engine.reserve();
  const databases = new Databases(engine, o.log, o.shared);
  // The server starts in the background: the API answers at once, instances turn ready once their database is made.
  void engine.start().catch(() => undefined);
  return databases;
}
