// The composite GitHub Action (action.yml) and its script (scripts/action.sh), run here as GitHub
// would run its step: the inputs as INPUT_* variables, GITHUB_OUTPUT a file. Without a deployment
// it starts tusk serve (embedded databases: 503 until they are ready), waits for a 200 from
// /__tusk/health, runs tusk test, keeps the JUnit report and stops the server; given a deployment
// that departs, it exits 1 with the report kept; one that never gets ready, or half a deployment,
// is exit code 2 and a line saying why.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
import { startTusk } from '../src/server.js';
import { run } from './support/processes.js';
import { tempDir } from './support/temp.js';

const SCRIPT = join(PROJECT_ROOT, 'scripts', 'action.sh');
const TUSK = `${process.execPath} ${join(PROJECT_ROOT, 'bin', 'tusk.js')}`;

interface Action {
  inputs: Record<string, { description: string; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: {
    using: string;
    steps: { id?: string; run?: string; uses?: string; env?: Record<string, string>; with?: Record<string, string> }[];
  };
}
const action = parse(readFileSync(join(PROJECT_ROOT, 'action.yml'), 'utf8')) as Action;

/** Runs the script in a fresh workspace with `inputs` (by input name); its exit code, output and outputs. */
async function runAction(inputs: Record<string, string>) {
  const workspace = tempDir('tusk-action-');
  const outputFile = join(workspace, 'github-output');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    GITHUB_ACTION_PATH: PROJECT_ROOT,
    GITHUB_OUTPUT: outputFile,
    RUNNER_TEMP: workspace,
    INPUT_TUSK: TUSK,
    INPUT_JUNIT: 'reports/contract.xml',
    INPUT_WAIT_SECONDS: '120',
  };
  for (const [name, value] of Object.entries(inputs)) env[`INPUT_${name.toUpperCase().replace(/-/g, '_')}`] = value;
  const { code, out } = await run('bash', [SCRIPT], { cwd: workspace, env });
  const outputs = existsSync(outputFile)
    ? Object.fromEntries(
        readFileSync(outputFile, 'utf8')
          .trim()
          .split('\n')
          .map((l) => l.split('=', 2) as [string, string]),
      )
    : {};
  return { code, out, outputs, workspace };
}

describe('the GitHub Action', () => {
  it('is a composite action whose step passes every input to the script, and keeps the report as an artifact', () => {
    expect(action.runs.using).toBe('composite');
    const [step, upload] = action.runs.steps;
    expect(step!.run).toBe('bash "$GITHUB_ACTION_PATH/scripts/action.sh"');
    const passed = Object.entries(step!.env!);
    expect(passed.map(([, v]) => v.match(/^\$\{\{ inputs\.([a-z-]+) \}\}$/)?.[1]).sort()).toEqual(
      Object.keys(action.inputs)
        .filter((name) => name !== 'artifact')
        .sort(),
    );
    for (const [variable, value] of passed)
      expect(variable).toBe(
        `INPUT_${value.slice('${{ inputs.'.length, -' }}'.length).toUpperCase().replace(/-/g, '_')}`,
      );
    // The script reads no input the step does not pass.
    const read = new Set(readFileSync(SCRIPT, 'utf8').match(/INPUT_[A-Z_]+/g));
    expect([...read].sort()).toEqual(passed.map(([variable]) => variable).sort());
    expect(upload).toMatchObject({ uses: 'actions/upload-artifact@v4', with: { path: '${{ inputs.junit }}' } });
    expect(action.outputs['exit-code']!.value).toBe('${{ steps.suite.outputs.exit-code }}');
  });

  it('without a deployment: starts tusk serve, waits for a 200 from its health, runs the suite, keeps JUnit and stops the server', async () => {
    const { code, out, outputs, workspace } = await runAction({
      'serve-args': '--customer-port 0 --instance-port 0 --quiet',
      filters: 'customer/regions customer/plans',
    });
    expect(code, out).toBe(0);
    expect(out).toMatch(
      /tusk-action: tusk serve: customer API http:\/\/127\.0\.0\.1:\d+, instance API http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(out).toMatch(/tusk-action: ready: \{"status":"ok","ready":true,"databases":"ready"/);
    expect(out).toMatch(/PASS .*customer\/regions/);
    expect(outputs).toEqual({ junit: 'reports/contract.xml', 'exit-code': '0' });
    expect(readFileSync(join(workspace, 'reports', 'contract.xml'), 'utf8')).toMatch(/<testsuites[^>]* failures="0"/);
    // The server it started was stopped (its log ends with the shutdown).
    const log = readFileSync(
      join(
        workspace,
        readdirSync(workspace).find((f) => f.startsWith('tusk-serve-'))!,
      ),
      'utf8',
    );
    expect(log).toMatch(/tusk: SIGTERM, shutting down\n$/);
  }, 240_000);

  it('given a deployment that departs from the contract: exit code 1, the report kept, naming the departure', async () => {
    const broken = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', faults: ['listRegions:error=500'] });
    onTestFinished(() => broken.close());
    const { code, out, outputs, workspace } = await runAction({
      'customer-url': broken.customerUrl,
      'instance-url': broken.instanceUrl,
      'api-key': broken.registry.adminKey,
      filters: 'customer/regions',
    });
    expect(code, out).toBe(1);
    expect(out).toMatch(/tusk-action: ready: \{"status":"ok"/);
    expect(out).toMatch(/FAIL .*customer\/regions/);
    expect(outputs).toEqual({ junit: 'reports/contract.xml', 'exit-code': '1' });
    expect(readFileSync(join(workspace, 'reports', 'contract.xml'), 'utf8')).toMatch(/<failure/);
  }, 120_000);

  it('a deployment that never gets ready: exit code 2, with the health answer and the log', async () => {
    const { code, out, outputs } = await runAction({
      'serve-args':
        '--customer-port 0 --instance-port 0 --quiet --databases postgres://tusk:secret@127.0.0.1:1/postgres',
      'wait-seconds': '3',
    });
    expect(code).toBe(2);
    expect(out).toMatch(
      /tusk-action: not ready after 3 s: GET http:\/\/127\.0\.0\.1:\d+\/__tusk\/health answered 503 \{"status":"(starting|failed)","ready":false/,
    );
    expect(outputs['exit-code']).toBe('2');
  }, 60_000);

  it('half a deployment: exit code 2 and what to give', async () => {
    const { code, out } = await runAction({ 'customer-url': 'http://127.0.0.1:1' });
    expect(code).toBe(2);
    expect(out).toContain('tusk-action: give customer-url, instance-url and api-key together');
  });
});
