// `tusk replay FILE`: the replay (replay.ts) of a recording as a command: a line per exchange, the
// summary, --junit FILE; exit code 0 when every exchange answered as recorded, 1 on any departure,
// 2 for a usage error or a recording that cannot be read.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { loadDocuments } from '../openapi/documents.js';
import { readRecording } from '../record/read.js';
import { Replayer } from './replay.js';
import { formatReplaySummary, progressLine, replayJunit } from './report.js';

/** The command's flags, read by the `tusk` command from its table (src/cli/tables/recordings.ts, REPLAY). */
export interface ReplayCommandOptions {
  file: string;
  customerUrl: string;
  instanceUrl: string;
  apiKey?: string;
  instanceKey?: string;
  junit?: string;
  timeoutMs: number;
}

function fail(message: string): never {
  console.error(`tusk replay: ${message}`);
  process.exit(2);
}

export async function replayCommand(values: ReplayCommandOptions): Promise<void> {
  const { file, apiKey, instanceKey } = values;
  const customerUrl = values.customerUrl.replace(/\/+$/, '');
  const instanceUrl = values.instanceUrl.replace(/\/+$/, '');
  let recording;
  try {
    recording = readRecording(file);
  } catch (err) {
    fail(`cannot read ${file}: ${(err as Error).message}`);
  }
  console.log(
    `tusk replay: ${recording.exchanges.length} exchanges of ${file} (${recording.format}) against ${customerUrl} and ${instanceUrl}`,
  );
  const replayer = new Replayer({
    customerUrl,
    instanceUrl,
    documents: await loadDocuments(),
    timeoutMs: values.timeoutMs,
    ...(apiKey ? { apiKey } : {}),
    ...(instanceKey ? { instanceKey } : {}),
    onResult: (r) => console.log(progressLine(r)),
  });
  const results = await replayer.run(recording.exchanges);
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
  console.log(formatReplaySummary(results, file, customerUrl));
  process.exitCode = results.some((r) => r.departures.length) ? 1 : 0;
}
