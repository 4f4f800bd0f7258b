// The suite's runner (vitest, and supertest for the suite's requests) is not installed with
// tusk-mock: `tusk serve` and `tusk proxy` never load it, and it is most of what a full install
// weighs. It is an optional peer dependency: a project that runs `tusk test` installs it beside
// tusk-mock, and until it does, `tusk test` says in one line how.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../openapi/documents.js';

/** The runner's packages, with the versions package.json's peerDependencies name. */
export function runnerPackages(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    peerDependencies?: Record<string, string>;
  };
  return pkg.peerDependencies ?? {};
}

/**
 * What is missing of the runner, as one line naming the command that installs it; undefined when
 * everything is there. Looked up as the suite will import it: from tusk-mock's own folder.
 */
export function runnerMissing(
  resolve: (name: string) => void = createRequire(join(PROJECT_ROOT, 'package.json')).resolve,
): string | undefined {
  const packages = runnerPackages();
  const missing = Object.keys(packages).filter((name) => {
    try {
      resolve(`${name}/package.json`);
      return false;
    } catch {
      return true;
    }
  });
  if (missing.length === 0) return undefined;
  // The major version of each range (`^4.1.12`: 4): a spec every shell takes without quotes.
  const specs = Object.entries(packages).map(([name, range]) => `${name}@${/\d+/.exec(range)?.[0] ?? 'latest'}`);
  return `tusk test needs its runner (${missing.join(', ')}), which tusk-mock does not install: npm install --save-dev ${specs.join(' ')}`;
}
