// `--state FILE`: the whole state survives a restart; the file is written atomically after
// mutating requests (debounced) and on shutdown; a corrupt file is refused clearly and left as it is.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StateFileError, writeAtomically } from '../../src/control/persist.js';
import { startTusk } from '../../src/server.js';
import { ADMIN_KEY, eventually, start } from './setup.js';
import { serve } from '../support/serve.js';

const newInstance = { name: 'kept', plan: 'hippo', region: 'amazon-web-services::us-east-1' };

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tusk-state-'));
  file = join(dir, 'state.json');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('tusk with a state file', () => {
  it('keeps instances, keys and the clock across a restart', async () => {
    const first = await start({ state: file });
    expect(first.tusk.control.loadedState).toBe(false);
    const created = await first.customer('/api/instances', ADMIN_KEY, { body: newInstance });
    const rotated = await first.customer('/api/apikeys/rotate-apikey', ADMIN_KEY, { method: 'POST' });
    await first.instance('/api/alarms/recipients', created.body.apikey, {
      body: { type: 'email', value: 'kept@example.com' },
    });
    await first.control('/clock', { body: { advance: '2h' } });
    const before = (await first.control('/state')).body;
    await first.close();

    const second = await start({ state: file });
    try {
      expect(second.tusk.control.loadedState).toBe(true);
      expect((await second.control('/state')).body).toEqual(before);
      expect((await second.customer('/api/plans', ADMIN_KEY)).status).toBe(401); // rotated away before the restart
      const key = rotated.body.apikey;
      expect((await second.customer(`/api/instances/${created.body.id}`, key)).body).toMatchObject({
        name: 'kept',
        ready: true,
      });
      expect((await second.instance('/api/alarms/recipients', created.body.apikey)).body).toHaveLength(2);
      expect((await second.control('/clock')).body.offset_ms).toBe(2 * 3_600_000);
    } finally {
      await second.close();
    }
  });

  it('writes the file soon after a mutating request (debounced), not after reads', async () => {
    const t = await start({ state: file });
    try {
      await t.customer('/api/instances');
      await new Promise((r) => setTimeout(r, 400));
      expect(existsSync(file)).toBe(false);
      await t.customer('/api/instances', ADMIN_KEY, { body: newInstance });
      const saved = await eventually(
        () => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined),
        3000,
      );
      expect(saved.accounts[0].instances.some((i: { name: string }) => i.name === 'kept')).toBe(true);
      // the file holds keys: only its owner may read it; no temp file is left beside it
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(readdirSync(dir)).toEqual(['state.json']);
    } finally {
      await t.close();
    }
  });

  it('refuses a corrupt file with a clear message and leaves it untouched', async () => {
    for (const text of ['{ not json', JSON.stringify({ tusk_state: 1 }), '[]']) {
      writeFileSync(file, text);
      const err = await startTusk({ customerPort: 0, instancePort: 0, log: 'off', state: file }).then(
        (t) => t.close().then(() => undefined),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StateFileError);
      expect((err as Error).message).toContain(file);
      expect((err as Error).message).toMatch(/cannot be loaded: .+left as it is/);
      expect(readFileSync(file, 'utf8')).toBe(text);
    }
  });

  it('refuses an inconsistent state, naming the problem', async () => {
    const t = await start({ state: file });
    await t.close();
    const state = JSON.parse(readFileSync(file, 'utf8'));
    state.accounts[0].instances[0].plan = 'gold';
    const text = JSON.stringify(state);
    writeFileSync(file, text);
    await expect(startTusk({ customerPort: 0, instancePort: 0, log: 'off', state: file })).rejects.toThrow(
      /gold is not a catalogue plan/,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('writeAtomically replaces a file whole', async () => {
    writeFileSync(file, 'old');
    await writeAtomically(file, 'new');
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(readdirSync(dir)).toEqual(['state.json']);
  });
});

describe('tusk serve --state (the command; needs npm run build)', () => {
  it('exits with code 2 and says why when the state file is corrupt', async () => {
    writeFileSync(file, '{"tusk_state": 1, "seed": "x"}');
    const s = serve(['--quiet', '--databases', 'off', '--state', file]);
    expect(await s.exit).toBe(2);
    expect(s.output()).toMatch(
      new RegExp(`tusk: the state file ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} cannot be loaded: .*seed`),
    );
    expect(readFileSync(file, 'utf8')).toBe('{"tusk_state": 1, "seed": "x"}');
  });

  it('writes the state on SIGTERM and loads it on the next start', async () => {
    const first = serve(['--quiet', '--databases', 'off', '--state', file]);
    const out = await first.until(/tusk: ready/);
    expect(out).toMatch(/state file .*state\.json \(new\)/);
    const url = /customer API\s+(http:\/\/\S+)/.exec(out)![1]!;
    const res = await fetch(`${url}/__tusk/clock`, { method: 'POST', body: JSON.stringify({ advance: '1d' }) });
    expect(res.status).toBe(200);
    expect(await first.stop()).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8')).clock.offset_ms).toBe(86_400_000);

    const second = serve(['--quiet', '--databases', 'off', '--state', file]);
    const out2 = await second.until(/tusk: ready/);
    expect(out2).toMatch(/state file .*state\.json \(loaded\)/);
    const url2 = /customer API\s+(http:\/\/\S+)/.exec(out2)![1]!;
    expect(((await (await fetch(`${url2}/__tusk/clock`)).json()) as { offset_ms: number }).offset_ms).toBe(86_400_000);
    expect(await second.stop()).toBe(0);
  });

  it('tusk serve --help lists --state with its default', async () => {
    const s = serve(['--help']);
    await s.exit;
    expect(s.output()).toMatch(/^  --state FILE\s+.*\n(?: +.*\n)*? +\(default none: in memory; env TUSK_STATE\)$/m);
  });
});
