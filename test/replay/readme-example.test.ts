// README's worked example of record, import and replay (the block marked
// `<!-- readme-test: record-import-replay -->`) runs as written against a live stand-in: the
// session is recorded without its key, the account imported into a second stand-in that the block
// starts, and the session replayed against it with no departure.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';
import { startTusk } from '../../src/server.js';
import { freePort } from '../../src/core/net.js';
import { closeWithTest, run } from '../support/processes.js';
import { tempDir } from '../support/temp.js';
import { BIN } from './loop-support.js';

const README = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

describe("README's record, import and replay example", () => {
  it('records a session without its key, imports the account into a second stand-in, and replays with no departure', async () => {
    const block = /<!-- readme-test: record-import-replay -->\n```sh\n([\s\S]*?)\n```/.exec(README)?.[1];
    expect(block).toBeDefined();
    const tusk = closeWithTest(await startTusk({ customerPort: 0, instancePort: 0, log: 'off' }));
    const ports = new Map<string, number>();
    for (const p of ['4020', '4021', '4030', '4031']) ports.set(p, await freePort());
    const script = block!
      .replace(/(http:\/\/)?localhost:4010/g, tusk.customerUrl)
      .replace(/(http:\/\/)?localhost:4011/g, tusk.instanceUrl)
      .replace(/\b(4020|4021|4030|4031)\b/g, (p) => String(ports.get(p)))
      .replace(/^tusk /gm, `${process.execPath} ${BIN} `)
      .replace(/tusk-admin-key/g, tusk.registry.adminKey);
    // The block's background jobs are in the script's process group, ended with the test on every path.
    const { code, stdout, stderr } = await run(
      'timeout',
      ['-k', '5', '120', 'bash', '-e', '-o', 'pipefail', '-c', script],
      {
        cwd: tempDir('tusk-readme-replay-'),
      },
    );
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('{"type":"cpu","value_threshold":77}');
    expect(lines).toContain('no key in session.har');
    expect(stdout).toMatch(/^tusk import: instance 4\/4 orders-db /m);
    expect(stdout).toMatch(/^tusk import: wrote .*account\.json \(4 instances\)/m);
    expect(lines.at(-1)).toMatch(/^RESULT: the target answers as recorded in every exchange sent \(4\)$/);
  }, 150_000);
});
