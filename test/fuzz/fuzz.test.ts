// The fuzz suite (issue 9), see fuzzer.ts. In `npm test`: a fixed seed and a few hundred requests.
// `npm run fuzz`: TUSK_FUZZ_REQUESTS (default there 12,000) requests from TUSK_FUZZ_SEED (default:
// a fresh seed, printed), the figures written to reports/fuzz.json.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { runFuzz } from './fuzzer.js';

const full = process.env.TUSK_FUZZ_REQUESTS !== undefined;
const requests = full ? Number(process.env.TUSK_FUZZ_REQUESTS) : 400;
const seed =
  process.env.TUSK_FUZZ_SEED !== undefined
    ? Number(process.env.TUSK_FUZZ_SEED)
    : full
      ? Date.now() % 2 ** 31
      : 20_260_509;

describe('fuzzing both interfaces from the documents', () => {
  it(`${requests} generated requests (seed ${seed}): never a 5xx, always the documents' responses, 400 naming the field for invalid input, no state change when refused`, async () => {
    const report = await runFuzz({ seed, requests, resetEvery: 2000 });
    const summary = {
      seed: report.seed,
      requests: report.requests,
      seconds: Math.round(report.ms / 100) / 10,
      acceptedValid: report.acceptedValid,
      failures: report.failures.length,
      distinctFailures: report.distinctFailures,
      statuses: report.statuses,
      byLabel: report.byLabel,
    };
    if (full) {
      mkdirSync(join(PROJECT_ROOT, 'reports'), { recursive: true });
      writeFileSync(
        join(PROJECT_ROOT, 'reports', 'fuzz.json'),
        JSON.stringify({ ...summary, failureDetails: report.failures }, null, 2) + '\n',
      );
    }
    console.log(
      `fuzz: ${report.requests} requests, seed ${report.seed}, ${report.failures.length} failures (${report.distinctFailures} distinct), ${summary.seconds} s; reproduce with TUSK_FUZZ_SEED=${report.seed} TUSK_FUZZ_REQUESTS=${requests} npm run fuzz`,
    );
    expect(report.requests).toBe(requests);
    expect(
      report.failures.map(
        (f) =>
          `${f.api} ${f.operationId} [${f.label}] ${f.request}${f.body !== undefined ? ` body=${f.body.slice(0, 120)}` : ''} -> ${f.status} ${f.response.slice(0, 160)}\n    ${f.problems.join('\n    ')}`,
      ),
    ).toEqual([]);
  }, 600_000);
});
