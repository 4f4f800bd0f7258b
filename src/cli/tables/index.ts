// The flags of every `tusk` command: one table per command (a module each in this folder), each
// flag with the environment variable that stands in for it. The parser and the --help of each
// command are made from these rows (../flags.ts), so a container or a compose file can set every
// flag without a command line. Adding a flag is adding a row; adding a command, a table listed in
// COMMANDS.
//
// Variable names: `tusk serve` and `tusk test` read TUSK_<FLAG>. The two share TUSK_API_KEY and
// TUSK_RATE_LIMIT on purpose, with the same value in practice: the seeded admin key serve starts
// with is the key the suite uses against it, and the rate limit serve enforces is the limit the
// suite judges the 429 check by. `tusk proxy` reads TUSK_PROXY_<FLAG> (its ports must differ from
// those of the serve it fronts in the same environment), `tusk coverage` TUSK_COVERAGE_<FLAG>,
// `tusk docs` TUSK_DOCS_<FLAG>, `tusk import` TUSK_IMPORT_<FLAG> and `tusk replay`
// TUSK_REPLAY_<FLAG> (their keys are another deployment's than the suite's).
import type { Command } from '../flags.js';
import { PROXY } from './proxy.js';
import { SERVE } from './serve.js';
import { TEST } from './test.js';
import { COVERAGE, DOCS } from './tools.js';
import { IMPORT, REPLAY } from './recordings.js';

export { COVERAGE, DOCS, IMPORT, PROXY, REPLAY, SERVE, TEST };

/** Every command's table, in the order `tusk --help` lists them. */
export const COMMANDS: readonly Command[] = [SERVE, TEST, DOCS, PROXY, COVERAGE, IMPORT, REPLAY];
