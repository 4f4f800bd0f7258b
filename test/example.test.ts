// The typed client example (examples/typed-client): compiled with its own strict tsconfig, as a
// client project would compile it, then run end to end against the stand-in started in-process.
// Needs `npm run build` first (npm test runs it): the example imports the generated types by package
// name, which package.json's exports map to dist/.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTusk, type RunningTusk } from '../src/server.js';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
import { exec, stopStarted } from './support/processes.js';

const COMPILED = join(PROJECT_ROOT, 'dist', 'examples', 'typed-client', 'main.js');
const KEY = 'example-admin-key';

let tusk: RunningTusk;
beforeAll(async () => {
  const tsc = join(PROJECT_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  // tusk is assigned as soon as it runs, so that afterAll closes it also when the compile fails.
  await Promise.all([
    startTusk({ customerPort: 0, instancePort: 0, log: 'off', apiKey: KEY, provisionDelayMs: 200 }).then(
      (started) => (tusk = started),
    ),
    exec(process.execPath, [tsc, '-p', join(PROJECT_ROOT, 'examples', 'tsconfig.json')], { cwd: PROJECT_ROOT }).catch(
      (err: { stdout?: string; message: string }) => {
        throw new Error(`examples/ does not compile:\n${err.stdout ?? err.message}`);
      },
    ),
  ]);
}, 60_000);

afterAll(async () => {
  await tusk?.close();
  await stopStarted(); // the compiler, if the hook ran out of time
});

interface ExampleMain {
  (
    customerUrl: string,
    instanceUrl: string,
    key: string,
    log: (line: string) => void,
  ): Promise<{
    plans: string[];
    created: { id: number; apikey: string };
    instance: { id: number; apikey: string; ready: boolean };
    alarms: { type: string }[];
    recipient: { type: string; value: string };
    deletedStatus: number;
  }>;
}

const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}` });

describe('the typed client example', () => {
  it('lists plans, creates an instance, uses its key on the instance API, adds a recipient, deletes it', async () => {
    // Typed here by hand: the example's own types resolve only after the build (see above).
    const { main } = (await import(pathToFileURL(COMPILED).href)) as { main: ExampleMain };
    const lines: string[] = [];
    const result = await main(tusk.customerUrl, tusk.instanceUrl, KEY, (line) => lines.push(line));
    expect(result.plans.length).toBeGreaterThan(0);
    expect(result.instance.id).toBe(result.created.id);
    expect(result.instance.apikey).toBe(result.created.apikey);
    expect(result.instance.ready).toBe(true);
    expect(result.alarms.map((a) => a.type).sort()).toEqual(expect.arrayContaining(['cpu', 'disk', 'memory']));
    expect(result.recipient).toMatchObject({ type: 'email', value: 'oncall@example.com' });
    expect([200, 204]).toContain(result.deletedStatus);
    expect(lines.at(-1)).toMatch(/^deleted instance \d+/);
    // After the delete, the instance is gone on both interfaces.
    expect(
      (await fetch(`${tusk.customerUrl}/api/instances/${result.created.id}`, { headers: basic(KEY) })).status,
    ).toBe(404);
    expect((await fetch(`${tusk.instanceUrl}/api/alarms`, { headers: basic(result.instance.apikey) })).status).toBe(
      401,
    );
  });

  it('runs as a program with the URLs and the key as arguments', async () => {
    const { stdout } = await exec(process.execPath, [COMPILED, tusk.customerUrl, tusk.instanceUrl, KEY], {
      cwd: PROJECT_ROOT,
    });
    expect(stdout).toMatch(/^plans: /m);
    expect(stdout).toMatch(/^deleted instance \d+/m);
  });
});
