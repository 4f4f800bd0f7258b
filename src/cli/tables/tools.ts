// The flags of `tusk coverage` (TUSK_COVERAGE_<FLAG>) and `tusk docs` (TUSK_DOCS_<FLAG>).
import type { Command } from '../flags.js';
import { HELP, httpUrl, notEmpty } from './checks.js';

export const COVERAGE: Command = {
  name: 'coverage',
  about: `Prints what the clients' requests exercised on a running stand-in: per interface the share of
operations and documented statuses seen, then per operation the statuses seen and never seen
(e.g. \`getAlarm  200 ok (3), 401 ok (1), 404 never\`), never-exercised operations first, and the
traffic outside the contract. Reads GET /__tusk/coverage.`,
  flags: [
    {
      name: 'url',
      arg: 'URL',
      env: 'TUSK_COVERAGE_URL',
      check: httpUrl,
      help: 'base URL of a running tusk serve (either port) or tusk proxy (its customer port)',
      default: 'http://127.0.0.1:4010',
    },
    {
      name: 'key',
      arg: 'KEY',
      env: 'TUSK_COVERAGE_KEY',
      help: "an account's admin key: that account's coverage (or the control key, with --control-key)",
      default: 'none: all traffic',
    },
    {
      name: 'account',
      arg: 'ID',
      env: 'TUSK_COVERAGE_ACCOUNT',
      help: "that account's coverage",
      default: 'none: all traffic',
    },
    { name: 'json', env: 'TUSK_COVERAGE_JSON', help: 'print the JSON report instead of the table', default: 'off' },
    HELP,
  ],
};

export const DOCS: Command = {
  name: 'docs',
  about: `Writes the API reference of both interfaces as static HTML for publishing: index.html, and per
interface <interface>/index.html with the OpenAPI document inlined and beside it
(openapi.json, openapi.yaml); the renderer in assets/. Works offline.`,
  flags: [
    {
      name: 'out',
      arg: 'DIR',
      env: 'TUSK_DOCS_OUT',
      check: notEmpty,
      help: 'folder to write (emptied first), relative to the current one',
      default: 'dist/docs',
    },
    HELP,
  ],
};
