// StateFile in process: loading refuses what is not a usable state file and clears the temp files a
// killed save left; writes are debounced, happen only after a change, one at a time, are reported
// once on stderr when they fail and tried again; close() writes and stops watching.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { StateFile, StateFileError, readStateFile, writeAtomically } from '../../src/control/persist.js';
import { createTusk, type Tusk } from '../../src/server.js';
import type { Registry } from '../../src/accounts/registry.js';

const realSetTimeout = globalThis.setTimeout;
const sleep = (ms: number) => new Promise((r) => realSetTimeout(r, ms));
/** Polls in real time (vi.waitFor would move the fake clock). */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; !check(); i++) {
    if (i > 250) throw new Error('timed out waiting');
    await sleep(20);
  }
}

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tusk-state-unit-'));
  file = join(dir, 'state.json');
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** A registry that only dumps: each dump is counted and numbered. */
function counting(dumpOf: (n: number) => unknown = (n) => ({ n })) {
  const stub = { dumps: 0, registry: undefined as unknown as Registry };
  stub.registry = { dump: () => dumpOf(++stub.dumps) } as unknown as Registry;
  return stub;
}
const onDisk = () => JSON.parse(readFileSync(file, 'utf8')) as unknown;

describe('loading a state file', () => {
  let tusk: Tusk;
  beforeAll(async () => {
    tusk = await createTusk({ log: 'off' });
  });
  const load = (f: string, registry: Registry = tusk.registry) =>
    new StateFile(f, registry).load(tusk.deps.schemas, tusk.control.deps.document);
  const refusal = (f: string, reason: string) =>
    `the state file ${f} cannot be loaded: ${reason}. It was left as it is: fix it, move it away or give another --state file.`;

  it('loads nothing, and is no error, when the file or its folder does not exist', () => {
    expect(load(file)).toBe(false);
    expect(load(join(dir, 'missing', 'state.json'))).toBe(false);
  });

  it('refuses a file it cannot read with a StateFileError naming the file', () => {
    mkdirSync(file);
    let error: unknown;
    try {
      load(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(StateFileError);
    expect((error as StateFileError).name).toBe('StateFileError');
    expect((error as StateFileError).file).toBe(file);
    expect((error as Error).message).toMatch(/^the state file .+ cannot be loaded: EISDIR/);
  });

  it('says that a file is not JSON', () => {
    writeFileSync(file, '{ not json');
    expect(() => load(file)).toThrow(StateFileError);
    expect(() => load(file)).toThrow(`the state file ${file} cannot be loaded: it is not JSON (`);
  });

  it('names the problems of a state that is not valid', () => {
    writeFileSync(file, JSON.stringify({ ...tusk.registry.dump(), tusk_state: 2 }));
    expect(() => load(file)).toThrow(refusal(file, 'not a valid Tusk state: tusk_state: must be 1'));
  });

  it('refuses a clock, an outbox body or a providerid that the server cannot take, naming each, and the registry stays as it was (issue 31)', () => {
    const before = JSON.stringify(tusk.registry.dump());
    const good = () => JSON.parse(before);
    const clock = { ...good(), clock: { offset_ms: 1e308, pinned_ms: null } };
    writeFileSync(file, JSON.stringify(clock));
    expect(() => load(file)).toThrow(
      refusal(file, 'not a valid Tusk state: clock.offset_ms: must be <= 253370764799999'),
    );
    const deep = {
      ...good(),
      outbox: {
        last_id: 1,
        entries: [
          {
            id: 1,
            kind: 'callback',
            event: 'backup',
            target: 'http://127.0.0.1:9/',
            body: '@@',
            dueAt: 0,
            attempts: 0,
            status: 'pending',
          },
        ],
      },
    };
    writeFileSync(file, JSON.stringify(deep).replace('"@@"', `${'['.repeat(20_000)}${']'.repeat(20_000)}`));
    expect(() => load(file)).toThrow(
      /cannot be loaded: not a valid Tusk state: outbox\.entries\.0\.body: nests objects and arrays deeper than 32 levels/,
    );
    const twice = good();
    twice.accounts[0].instances[1].providerid = twice.accounts[0].instances[0].providerid;
    writeFileSync(file, JSON.stringify(twice));
    expect(() => load(file)).toThrow(
      /cannot be loaded: not a valid Tusk state: accounts\.0\.instances\.1\.providerid: this providerid appears twice in the state \(also at accounts\.0\.instances\.0\.providerid\)/,
    );
    expect(JSON.stringify(tusk.registry.dump())).toBe(before);
  });

  it('does not blame the file for a failure that is not about the state', () => {
    writeFileSync(file, JSON.stringify(tusk.registry.dump()));
    const broken = {
      catalogue: tusk.registry.catalogue,
      load: () => {
        throw new RangeError('out of memory, say');
      },
    } as unknown as Registry;
    expect(() => load(file, broken)).toThrow(RangeError);
  });

  it('removes the temp files a killed save of that file left, and nothing else', () => {
    const others = ['state.json.bak', '.state.json.notes', '.other.json.1.2.tmp', 'x.tmp', '.state.jsonx.1.tmp'];
    for (const name of [...others, '.state.json.123.1700000000000.tmp', '.state.json.9.9.tmp'])
      writeFileSync(join(dir, name), 'x');
    expect(load(file)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual([...others].sort());
  });
});

describe('saving the state', () => {
  it('writes nothing when nothing changed', async () => {
    const stub = counting();
    const state = new StateFile(file, stub.registry, 10);
    await state.save();
    expect(existsSync(file)).toBe(false);
    expect(stub.dumps).toBe(0);
  });

  it('writes a change once: a second save() without a change writes nothing', async () => {
    const stub = counting();
    const state = new StateFile(file, stub.registry, 10_000);
    state.changed();
    await state.save();
    expect(onDisk()).toEqual({ n: 1 });
    await state.save();
    expect(stub.dumps).toBe(1);
    expect(readdirSync(dir)).toEqual(['state.json']);
    await state.close();
  });

  it('writes 200 ms after a change by default, once for the changes within that time', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stub = counting();
    const state = new StateFile(file, stub.registry);
    state.changed();
    vi.advanceTimersByTime(50);
    state.changed();
    vi.advanceTimersByTime(149);
    expect(stub.dumps).toBe(0);
    vi.advanceTimersByTime(1);
    expect(stub.dumps).toBe(1);
    await until(() => existsSync(file));
    await sleep(50); // the write has finished
    // a change now is written 200 ms after it, not when the second change above would be due
    state.changed();
    vi.advanceTimersByTime(60);
    expect(stub.dumps).toBe(1);
    vi.advanceTimersByTime(140);
    expect(stub.dumps).toBe(2);
    await until(() => (onDisk() as { n: number }).n === 2);
    await state.close();
  });

  it('waits for a write in progress, so that the last change is the one on disk', async () => {
    const big = 'x'.repeat(20_000_000);
    const stub = counting((n) => (n === 1 ? { n, big } : { n }));
    const state = new StateFile(file, stub.registry, 10_000);
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    state.changed();
    const first = state.save();
    state.changed();
    const second = state.save();
    await Promise.all([first, second]);
    expect(onDisk()).toEqual({ n: 2 });
    expect(state.lastError).toBeUndefined();
    expect(error).not.toHaveBeenCalled();
    expect(readdirSync(dir)).toEqual(['state.json']);
    await state.close();
  });

  it('reports a failed write once on stderr, tries again, and reports the next failure after a success', async () => {
    const folder = join(dir, 'later');
    const target = join(folder, 'state.json');
    const error = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const state = new StateFile(target, counting().registry, 10_000);
    state.changed();
    await state.save();
    expect(state.lastError).toBeInstanceOf(Error);
    expect(error).toHaveBeenCalledTimes(1);
    expect(error.mock.calls[0]![0]).toMatch(
      new RegExp(`^tusk: could not write the state file ${target.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: ENOENT`),
    );

    await state.save(); // not written yet: tried again, failed again, not reported again
    expect(state.lastError).toBeInstanceOf(Error);
    expect(error).toHaveBeenCalledTimes(1);

    mkdirSync(folder);
    await state.save(); // no new change: the state not written yet is
    expect(state.lastError).toBeUndefined();
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual({ n: 3 });

    rmSync(folder, { recursive: true });
    state.changed();
    await state.save();
    expect(state.lastError).toBeInstanceOf(Error);
    expect(error).toHaveBeenCalledTimes(2);
  });
});

describe('closing the state file', () => {
  it('writes the state without a change, then nothing more, closed twice or changed again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stub = counting();
    const state = new StateFile(file, stub.registry, 100);
    await state.close();
    expect(onDisk()).toEqual({ n: 1 });
    state.changed();
    vi.advanceTimersByTime(1000);
    await state.close();
    await sleep(50);
    expect(stub.dumps).toBe(1);
    expect(onDisk()).toEqual({ n: 1 });
  });

  it('a pending change is written by close() at once', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const stub = counting();
    const state = new StateFile(file, stub.registry, 100);
    state.changed();
    await state.close();
    expect(onDisk()).toEqual({ n: 1 });
    vi.advanceTimersByTime(1000);
    await sleep(50);
    expect(stub.dumps).toBe(1);
  });
});

describe('writeAtomically and readStateFile', () => {
  it('leaves no temp file behind when the file cannot be replaced', async () => {
    mkdirSync(join(file, 'inside'), { recursive: true });
    await expect(writeAtomically(file, 'new')).rejects.toThrow();
    expect(readdirSync(dir)).toEqual(['state.json']);
  });

  it('readStateFile gives the text written', async () => {
    await writeAtomically(file, '{"tusk_state":1,"name":"café"}');
    expect(await readStateFile(file)).toBe('{"tusk_state":1,"name":"café"}');
  });
});
