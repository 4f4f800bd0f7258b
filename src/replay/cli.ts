// `tusk replay FILE`: the replay (replay.ts) of a recording as a command: a line per exchange, the
// summary, --junit FILE; exit code 0 when every exchange answered as recorded, 1 on any departure,
// 2 for a usage error or a recording that cannot be read.
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadDocuments } from '../openapi/documents.js';
import { readRecording } from '../record/read.js';
import { Replayer } from './replay.js';
import { formatReplaySummary, progressLine, replayJunit } from './report.js';

export const REPLAY_HELP = `Usage: tusk replay FILE --customer-url URL --instance-url URL --api-key KEY [flags]

Sends the requests of a recording again to a deployment, in order, and names every departure of
its answers from the recorded ones and from the contract. FILE is a HAR file (tusk proxy --record,
a browser's or an HTTP tool's) or a go-vcr cassette (YAML, versions 1 and 2: what go-vcr v1 to v4
write). Record against production once; replay against Tusk (where does the stand-in differ?) or
against a new deployment (what changed?).

Values the recorded answers made (ids, keys, urls) are carried into the later requests: where a
recorded request names one, the value the live answer had at the same place is sent. Departures:
another status; a field or list element the recorded answer had and this one has not; a field of
another type; another value (but values that differ between runs by nature: ids, keys, passwords,
urls, times, sizes, error messages, redacted values); another content type; an answer the
documents do not allow. Controls of the stand-in (/__tusk/) are skipped.

Flags (each can also come from its environment variable; a flag wins):
  --customer-url URL    the customer API to replay against (TUSK_CUSTOMER_URL; required)
  --instance-url URL    the instance API to replay against (TUSK_INSTANCE_URL; required)
  --api-key KEY         replaces the customer key the recording used most (TUSK_API_KEY)
  --instance-key KEY    replaces an instance key that no recorded answer gave (TUSK_INSTANCE_KEY)
  --junit FILE          write a JUnit XML report (a test case per exchange)
  --timeout MS          how long one answer may take (default 30000)
  -h, --help            this help
`;

function fail(message: string): never {
  console.error(`tusk replay: ${message}`);
  process.exit(2);
}

const httpUrl = (name: string, value: string | undefined): string => {
  if (!value) fail(`--${name} is required\n\n${REPLAY_HELP}`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    fail(`--${name} must be an http(s) URL, got "${value}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail(`--${name} must be an http(s) URL, got "${value}"`);
  return url.href.replace(/\/+$/, '');
};

export async function replayCommand(args: string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      strict: true,
      allowPositionals: true,
      options: {
        'customer-url': { type: 'string' },
        'instance-url': { type: 'string' },
        'api-key': { type: 'string' },
        'instance-key': { type: 'string' },
        junit: { type: 'string' },
        timeout: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}\n\n${REPLAY_HELP}`);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(REPLAY_HELP);
    return;
  }
  if (positionals.length !== 1) fail(`give one recording (FILE), got ${positionals.length}\n\n${REPLAY_HELP}`);
  const file = positionals[0]!;
  const customerUrl = httpUrl('customer-url', values['customer-url'] ?? process.env.TUSK_CUSTOMER_URL);
  const instanceUrl = httpUrl('instance-url', values['instance-url'] ?? process.env.TUSK_INSTANCE_URL);
  const timeout = values.timeout === undefined ? 30_000 : Number(values.timeout);
  if (!Number.isInteger(timeout) || timeout < 1 || timeout > 600_000)
    fail(`--timeout must be an integer from 1 to 600000, got "${values.timeout}"`);
  let recording;
  try {
    recording = readRecording(file);
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  const apiKey = values['api-key'] ?? process.env.TUSK_API_KEY;
  const instanceKey = values['instance-key'] ?? process.env.TUSK_INSTANCE_KEY;
  console.log(
    `tusk replay: ${recording.exchanges.length} exchanges of ${file} (${recording.format}) against ${customerUrl} and ${instanceUrl}`,
  );
  const replayer = new Replayer({
    customerUrl,
    instanceUrl,
    documents: await loadDocuments(),
    timeoutMs: timeout,
    ...(apiKey ? { apiKey } : {}),
    ...(instanceKey ? { instanceKey } : {}),
    onResult: (r) => console.log(progressLine(r)),
  });
  const results = await replayer.run(recording.exchanges);
  console.log(formatReplaySummary(results, file, customerUrl));
  if (values.junit) {
    try {
      const path = resolve(values.junit);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, replayJunit(results, file));
      console.log(`tusk replay: junit ${path}`);
    } catch (err) {
      fail(`cannot write --junit ${values.junit}: ${(err as Error).message}`);
    }
  }
  process.exitCode = results.some((r) => r.departures.length) ? 1 : 0;
}
