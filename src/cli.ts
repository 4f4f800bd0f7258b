// The `tusk` command: `tusk serve` runs the stand-in, `tusk test` the conformance suite, `tusk docs`
// writes the static API reference, `tusk proxy` checks real traffic, `tusk coverage` prints what it
// exercised. Each command's flags, with the environment variables that stand in for them, are one
// table in cli/tables.ts; its --help is made from it. Commands other than serve load on demand.
import { packageVersion } from './openapi/documents.js';
import { fail } from './cli/command.js';
import { serveCommand } from './cli/serve.js';

export { SERVE_HELP } from './cli/serve.js';

export const HELP = `Usage: tusk <command> [flags]

Commands:
  serve     run the stateful stand-in of both interfaces (tusk serve --help)
  test      run the conformance suite against a deployment or in-process (tusk test --help)
  docs      write the API reference as static HTML (tusk docs --help)
  proxy     forward to a deployment, checking every exchange against the documents (tusk proxy --help)
  coverage  print what the clients' requests exercised on a running stand-in (tusk coverage --help)
  import    read an account of a deployment, GET requests only, into a state file for serve (tusk import --help)
  replay    send a recording (HAR, go-vcr cassette) again and name each departure (tusk replay --help)

Every flag of a command can also come from an environment variable (TUSK_HOST, TUSK_CUSTOMER_PORT,
TUSK_API_KEY, ...); its --help names each one. A flag given wins over its variable.

Flags:
  -h, --help      this help (default off)
  -v, --version   print the version of tusk-mock (default off)
`;

export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serveCommand(rest);
    case 'test':
      return (await import('./conformance/run.js')).testCommand(rest);
    case 'docs':
      return (await import('./cli/docs.js')).docsCommand(rest);
    case 'coverage':
      return (await import('./cli/coverage.js')).coverageCommand(rest);
    case 'proxy':
      return (await import('./cli/proxy.js')).proxyCommand(rest);
    case 'import':
      return (await import('./cli/import.js')).importCommand(rest);
    case 'replay':
      return (await import('./cli/replay.js')).replayCommand(rest);
    case '-v':
    case '--version':
    case 'version':
      console.log(packageVersion());
      return;
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(HELP);
      return;
    default:
      fail(`unknown command "${command}"\n\n${HELP}`);
  }
}
