// The flags of `tusk proxy` and their variables (TUSK_PROXY_<FLAG>; see index.ts for the names).
import type { Command } from '../flags.js';
import { HELP, httpUrl, notEmpty, PORT } from './checks.js';

export const PROXY: Command = {
  name: 'proxy',
  usage: '--customer-target URL --instance-target URL [flags]',
  about: `Listens on two ports and forwards every request to the deployment unchanged, and every answer
back unchanged, checking each exchange against the documents: the request (operation, the form
of the credentials, parameters, body: the client's departures) and the answer (declared status,
content type, body schema, required headers: the server's departures). Each departure is logged
as one line (never a key or a body) and listed at GET /__tusk/departures on either port; API
coverage of the traffic is at GET /__tusk/coverage (tusk coverage --url).`,
  flags: [
    {
      name: 'customer-target',
      arg: 'URL',
      env: 'TUSK_PROXY_CUSTOMER_TARGET',
      check: httpUrl,
      help: 'the customer API to forward to (required)',
      default: 'none',
    },
    {
      name: 'instance-target',
      arg: 'URL',
      env: 'TUSK_PROXY_INSTANCE_TARGET',
      check: httpUrl,
      help: 'the instance API to forward to (required)',
      default: 'none',
    },
    {
      name: 'customer-port',
      arg: 'PORT',
      env: 'TUSK_PROXY_CUSTOMER_PORT',
      integer: PORT,
      help: 'port for the customer API (0: any free port)',
      default: '4020',
    },
    {
      name: 'instance-port',
      arg: 'PORT',
      env: 'TUSK_PROXY_INSTANCE_PORT',
      integer: PORT,
      help: 'port for the instance API (0: any free port)',
      default: '4021',
    },
    { name: 'host', arg: 'HOST', env: 'TUSK_PROXY_HOST', help: 'address to listen on', default: '127.0.0.1' },
    {
      name: 'annotate',
      env: 'TUSK_PROXY_ANNOTATE',
      help: "name an exchange's departures in a Tusk-Departures response header",
      default: 'off',
    },
    {
      name: 'strict',
      env: 'TUSK_PROXY_STRICT',
      help: "refuse a request that departs with the stand-in's answer (400 naming field and rule, 401, 404) instead of forwarding it",
      default: 'off',
    },
    {
      name: 'report',
      arg: 'FILE',
      env: 'TUSK_PROXY_REPORT',
      check: notEmpty,
      help: 'on exit, write every departure as JSON',
      default: 'none',
    },
    {
      name: 'junit',
      arg: 'FILE',
      env: 'TUSK_PROXY_JUNIT',
      check: notEmpty,
      help: 'on exit, write a JUnit XML report (one test case per operation seen)',
      default: 'none',
    },
    {
      name: 'coverage',
      arg: 'FILE',
      env: 'TUSK_PROXY_COVERAGE',
      check: notEmpty,
      help: 'on exit, write the API coverage as JSON to FILE and as HTML beside it',
      default: 'none',
    },
    {
      name: 'fail-on-departure',
      env: 'TUSK_PROXY_FAIL_ON_DEPARTURE',
      help: 'exit with code 1 on shutdown when a departure was seen',
      default: 'off',
    },
    {
      name: 'record',
      arg: 'FILE',
      env: 'TUSK_PROXY_RECORD',
      check: notEmpty,
      help: 'append every exchange to FILE as HAR 1.2 as it happens (a whole HAR document after each entry; an existing FILE is replaced). Secrets are redacted: the key of the Authorization header, apikey, password and integration key fields (JSON, form, query), passwords in URLs and URL signatures, each a placeholder <redacted:KIND:N> standing for the same secret throughout the file',
      default: 'none',
    },
    {
      name: 'record-secrets',
      env: 'TUSK_PROXY_RECORD_SECRETS',
      help: 'keep the secrets in the --record file (with a warning)',
      default: 'off',
    },
    HELP,
  ],
};
