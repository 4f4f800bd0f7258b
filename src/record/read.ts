// Reads a recording, telling the formats apart by their text: a HAR file (JSON: `tusk proxy
// --record`, a browser's or an HTTP tool's) or a go-vcr cassette (YAML).
import { readFileSync } from 'node:fs';
import { readHar, type HarEntry } from './har.js';
import { readCassette } from './cassette.js';
import { fromHar, type RecordedExchange } from './exchange.js';

/** Reads a HAR file (JSON) or a go-vcr cassette (YAML); throws an Error naming the problem. */
export function readRecording(file: string): { format: 'har' | 'go-vcr'; exchanges: RecordedExchange[] } {
  const text = readFileSync(file, 'utf8');
  if (/^\s*\{/.test(text)) {
    let entries: HarEntry[];
    try {
      entries = readHar(text);
    } catch (err) {
      throw new Error(`${file}: ${(err as Error).message}`);
    }
    return { format: 'har', exchanges: fromHar(entries) };
  }
  try {
    return { format: 'go-vcr', exchanges: readCassette(text) };
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message}`);
  }
}
