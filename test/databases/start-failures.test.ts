// When the embedded server cannot start for a reason of the machine, `tusk serve` keeps serving the
// API and says so in one line naming the cause and the fix, the same line GET /__tusk/health gives
// as its reason with a 503 (GET /__tusk/live stays 200). Here: as root, a temp folder the `postgres`
// system user (which runs the server) cannot enter. The other causes (binaries missing, blocked
// install scripts, a binary that cannot run) are in binaries.test.ts and test/pack.test.ts.
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { serve } from '../support/serve.js';
import { tempDir } from '../support/temp.js';

const root = process.getuid?.() === 0;
const postgresUser = (() => {
  try {
    return execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
})();

describe.runIf(root && postgresUser !== undefined)('an embedded server that cannot start', () => {
  it('a temp folder the postgres user cannot enter: one line with the folder and the fix, health 503 with it, live 200', async () => {
    const blocked = tempDir('tusk-blocked-tmp-');
    chmodSync(blocked, 0o700);
    const s = serve(['--quiet'], { env: { ...process.env, TMPDIR: blocked } });
    await s.until(/tusk: ready/, 60_000); // stdout
    const out = await s.until(/tusk: databases +failed to start/, 60_000); // stderr, in either order
    const line = out.split('\n').find((l) => l.startsWith('tusk: databases      failed to start'))!;
    expect(line).toBe(
      `tusk: databases      failed to start: the postgres system user, which runs the embedded server as Tusk runs as root, cannot enter ${blocked} (above its data directory ${blocked}/${line.split(`${blocked}/`)[1]!.split(')')[0]}): make it enterable by others (chmod o+x ${blocked}), point TMPDIR (or --state) at a folder it can enter, or use --databases URL or off; instances stay not ready`,
    );
    const customer = /customer API\s+(http:\/\/\S+)/.exec(out)![1]!;
    const health = await fetch(`${customer}/__tusk/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({
      status: 'failed',
      ready: false,
      databases: 'failed',
      reason: expect.stringMatching(/^the databases could not start: the postgres system user, .* cannot enter /),
    });
    expect((await fetch(`${customer}/__tusk/live`)).status).toBe(200);
    // The API answers all the same.
    const plans = await fetch(`${customer}/api/plans`, {
      headers: { authorization: 'Basic ' + Buffer.from(':tusk-admin-key').toString('base64') },
    });
    expect(plans.status).toBe(200);
    expect(await s.stop()).toBe(0);
  }, 90_000);
});
