// `tusk test` exits with the code of its suite's summary, whatever ends the suite's process after
// it (src/conformance/supervise.ts): a crash on the way out after the summary keeps the summary's
// code and says so; a process that ends before its summary is a failed run that says how it ended;
// a signal sent to `tusk test` stops the suite, and the code says which signal. The suite processes
// of the first tests are small scripts using the built module's side (`npm test` builds first).
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
import { superviseSuite } from '../src/conformance/supervise.js';
import { groupAlive, start } from './support/processes.js';
import { tempDir } from './support/temp.js';

const BUILT = pathToFileURL(join(PROJECT_ROOT, 'dist', 'src', 'conformance', 'supervise.js')).href;
const dir = mkdtempSync(join(tmpdir(), 'tusk-supervise-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A suite process: `body` runs after it has found out that it is one (isSuiteProcess). */
function suiteScript(name: string, body: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(
    file,
    `import { isSuiteProcess, reportCode } from ${JSON.stringify(BUILT)};
if (!isSuiteProcess()) process.exit(99);
if (process.env.TUSK_SUITE_PROCESS !== undefined) process.exit(98);
console.log('suite running');
${body}
`,
  );
  return file;
}

async function supervised(file: string) {
  const notes: string[] = [];
  const code = await superviseSuite(file, [], (l) => notes.push(l));
  return { code, notes };
}

describe('tusk test and its suite process', () => {
  it("exits with the summary's code, and says nothing more, when the suite process exits with it", async () => {
    expect(await supervised(suiteScript('clean', 'await reportCode(1); process.exit(1);'))).toEqual({
      code: 1,
      notes: [],
    });
    expect(await supervised(suiteScript('clean-0', 'await reportCode(0); process.exit(0);'))).toEqual({
      code: 0,
      notes: [],
    });
  });

  it("keeps the summary's code when the suite process crashes on its way out, and names the signal", async () => {
    const { code, notes } = await supervised(
      suiteScript('crash-after', "await reportCode(1); process.kill(process.pid, 'SIGSEGV');"),
    );
    expect(code).toBe(1);
    expect(notes).toEqual([
      "tusk test: the suite's process ended by SIGSEGV after its summary; the exit code is the summary's (1)",
    ]);
    const passed = await supervised(
      suiteScript('crash-after-0', "await reportCode(0); process.kill(process.pid, 'SIGABRT');"),
    );
    expect(passed.code).toBe(0);
  });

  it('fails a run whose suite process ends before its summary, naming how', async () => {
    const killed = await supervised(suiteScript('crash-before', "process.kill(process.pid, 'SIGKILL');"));
    expect(killed).toEqual({ code: 1, notes: ["tusk test: the suite's process ended by SIGKILL before its summary"] });
    const thrown = await supervised(suiteScript('throws', "throw new Error('broken harness');"));
    expect(thrown.code).toBe(1);
  });

  it('passes SIGTERM on to the suite process: `tusk test` exits with 128 plus its number and leaves no process or folder behind', async () => {
    const tmp = tempDir('tusk-supervise-tmp-');
    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp };
    for (const k of Object.keys(env)) if (k.startsWith('TUSK_') || k.startsWith('VITEST')) delete env[k];
    const tusk = start(
      process.execPath,
      [join(PROJECT_ROOT, 'bin', 'tusk.js'), 'test', 'customer/plans', 'customer/instances'],
      { cwd: PROJECT_ROOT, env },
    );
    await tusk.until(/tusk test: 2 test files/);
    tusk.child.kill('SIGTERM');
    expect(await tusk.exit, tusk.output()).toBe(143);
    // The suite process and the workers it started were in its group; none is left.
    for (let i = 0; i < 50 && groupAlive(tusk.child.pid, true); i++) await new Promise((r) => setTimeout(r, 100));
    expect(groupAlive(tusk.child.pid, true)).toBe(false);
    // The folder of the keys the suite rotates is gone with it.
    expect(readdirSync(tmp).filter((name) => name.startsWith('tusk-test-'))).toEqual([]);
  });
});
