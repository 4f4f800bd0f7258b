// A temporary folder for the test that makes it, removed when that test finishes, passed or failed,
// so that runs of the suite leave nothing behind in the system's temporary folder.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';

/** A new folder under the system's temporary folder, named `prefix` and a random tail; call it inside a test. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
