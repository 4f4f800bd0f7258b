// `tusk serve --state FILE` killed with SIGKILL at random moments during a write load (issue 9):
// a short run of scripts/crash.js (npm run crash runs ten rounds). After every kill the file is
// JSON, the next start loads it, and it holds every write acknowledged before the last completed
// save. Needs `npm run build` (npm test builds first).
import { readFileSync } from 'node:fs';

import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { exec as run } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

it('three SIGKILLs during writes: every state file loads and holds every write acknowledged before the last completed save', async () => {
  const out = join(tempDir('tusk-crash-test-'), 'crash.json');
  const result = await run(
    process.execPath,
    [join(PROJECT_ROOT, 'scripts', 'crash.js'), '--rounds', '3', '--clients', '4', '--seed', '9', '--out', out],
    {
      cwd: PROJECT_ROOT,
    },
  ).catch((err: { stdout: string; stderr: string }) => {
    throw new Error(`scripts/crash.js failed:\n${err.stdout}\n${err.stderr}`);
  });
  expect(result.stdout).toMatch(/lost writes 0, every file loaded: true/);
  const report = JSON.parse(readFileSync(out, 'utf8')) as {
    failures: number;
    lostWrites: number;
    lastFileLoads: boolean;
    writesAcknowledged: number;
    perRound: { problems: string[] }[];
  };
  expect(report).toMatchObject({ failures: 0, lostWrites: 0, lastFileLoads: true });
  expect(report.writesAcknowledged).toBeGreaterThan(50);
  expect(report.perRound.flatMap((r) => r.problems)).toEqual([]);
}, 180_000);
