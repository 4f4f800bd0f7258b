// `tusk serve --state FILE`: the whole state survives restarts. At start-up an existing file is read
// and checked like PUT /__tusk/state; a file that is not a valid state stops the start with a
// StateFileError and is never replaced. After each mutating request the state is written again,
// debounced, atomically (a temp file beside it, fsync, rename, fsync of the folder), and on close.
import { constants } from 'node:fs';
import { open, readFile, rename, unlink } from 'node:fs/promises';
import { readFileSync, readdirSync, unlinkSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { SchemaSet } from '../openapi/ajv.js';
import type { Registry } from '../accounts/registry.js';
import { StateError } from '../domain/state.js';
import { loadState } from './state-check.js';
import type { ControlDocument } from './document.js';

export const DEFAULT_SAVE_DEBOUNCE_MS = 200;

/** A state file that cannot be used; the message says which file and why. */
export class StateFileError extends Error {
  constructor(
    readonly file: string,
    reason: string,
  ) {
    super(
      `the state file ${file} cannot be loaded: ${reason}. It was left as it is: fix it, move it away or give another --state file.`,
    );
    this.name = 'StateFileError';
  }
}

export class StateFile {
  readonly file: string;
  private timer: NodeJS.Timeout | undefined;
  private writing: Promise<void> | undefined;
  private dirty = false;
  private closed = false;
  /** The last write's error (reported once on stderr; the next save tries again, changed or not). */
  lastError: Error | undefined;

  constructor(
    file: string,
    private readonly registry: Registry,
    private readonly debounceMs = DEFAULT_SAVE_DEBOUNCE_MS,
  ) {
    this.file = resolve(file);
  }

  /** Loads the file into the registry when it exists; returns whether it did. Throws StateFileError. */
  load(schemas: SchemaSet, control: ControlDocument): boolean {
    removeStaleTemps(this.file);
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new StateFileError(this.file, (err as Error).message);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new StateFileError(this.file, `it is not JSON (${(err as Error).message})`);
    }
    try {
      loadState(this.registry, value, { schemas, control });
    } catch (err) {
      if (err instanceof StateError) throw new StateFileError(this.file, err.message);
      throw err;
    }
    return true;
  }

  /** Notes a change: the state is written within the debounce time. */
  changed(): void {
    if (this.closed) return;
    this.dirty = true;
    if (!this.timer) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.save();
      }, this.debounceMs);
    }
  }

  /** Writes the state now if it changed (waits for a write in progress first). */
  async save(): Promise<void> {
    while (this.writing) await this.writing;
    if (!this.dirty) return;
    this.dirty = false;
    const text = JSON.stringify(this.registry.dump());
    this.writing = writeAtomically(this.file, text)
      .then(() => {
        this.lastError = undefined;
      })
      .catch((err: Error) => {
        if (!this.lastError) console.error(`tusk: could not write the state file ${this.file}: ${err.message}`);
        this.lastError = err;
        this.dirty = true;
      })
      .finally(() => {
        this.writing = undefined;
      });
    await this.writing;
  }

  /** Writes the state (changed or not) and stops watching for changes. */
  async close(): Promise<void> {
    if (this.closed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.dirty = true;
    await this.save();
    this.closed = true;
  }
}

/**
 * Removes the temp files a killed process left beside the state file (a kill during a save leaves
 * one; repeated crashes would pile them up). Called at start-up, before this process writes any.
 */
function removeStaleTemps(file: string): void {
  const prefix = `.${basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(dirname(file));
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && name.endsWith('.tmp')) {
      try {
        unlinkSync(join(dirname(file), name));
      } catch {
        // Gone already, or not ours to remove: the save path never reads temp files.
      }
    }
  }
}

/** Writes `text` to `file` through a temp file in the same folder, fsynced, then renamed over it. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (err) {
    await handle.close();
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  await handle.close();
  try {
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => undefined);
    throw err;
  }
  // The rename itself is durable once the folder is synced (not every platform allows it).
  const folder = await open(dir, constants.O_RDONLY).catch(() => undefined);
  if (folder) {
    await folder.sync().catch(() => undefined);
    await folder.close();
  }
}

/** Reads a state file's text (tests and tools). */
export const readStateFile = (file: string) => readFile(file, 'utf8');
