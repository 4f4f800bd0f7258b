// Loads the two OpenAPI documents as single bundled objects.
// `npm run bundle` writes dist/openapi/<name>.json; the server reads that file when it is newer than
// every source file under openapi/, or else made from sources of the same content (the SHA-256 the
// bundling records beside it: an installed package's files all get the time they were unpacked, in
// any order), and otherwise bundles the YAML sources itself (slower: the bundler is imported on
// demand), so a stale bundle can never disagree with the sources.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type InterfaceName = 'customer' | 'instance';
export const INTERFACES: readonly InterfaceName[] = ['customer', 'instance'];

/**
 * The project root (the folder holding package.json and openapi/), from src/ or from dist/src/.
 * package.json tells it from dist/, which holds the bundles in dist/openapi/.
 */
export const PROJECT_ROOT = (() => {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!(existsSync(join(dir, 'openapi', 'customer.yaml')) && existsSync(join(dir, 'package.json')))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the openapi/ folder above ' + fileURLToPath(import.meta.url));
    dir = up;
  }
  return dir;
})();

/** The version of the tusk-mock package (package.json), read once. */
export const packageVersion = (() => {
  let version: string | undefined;
  return (): string =>
    (version ??= (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version);
})();

export const OPENAPI_DIR = join(PROJECT_ROOT, 'openapi');
export const BUNDLE_DIR = join(PROJECT_ROOT, 'dist', 'openapi');

// The subset of OpenAPI 3.1 the project reads; the rest stays `unknown`.
export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, unknown>>;
  components?: Record<string, Record<string, unknown>>;
  [key: string]: unknown;
}

/** The YAML sources under openapi/, sorted. */
function sourceFiles(dir = OPENAPI_DIR): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => {
      const path = join(dir, entry.name);
      return entry.isDirectory() ? sourceFiles(path) : /\.ya?ml$/.test(entry.name) ? [path] : [];
    })
    .sort();
}

const newestSourceMtime = (): number => Math.max(0, ...sourceFiles().map((f) => statSync(f).mtimeMs));

/** The SHA-256 of every YAML source's path (under openapi/) and content. */
function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const file of sourceFiles())
    hash.update(file.slice(OPENAPI_DIR.length)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** Where the bundling records the hash of the sources it read. */
const SOURCES_HASH_FILE = () => join(BUNDLE_DIR, 'sources.sha256');

/**
 * Bundles one document from its YAML sources with Redocly's bundler (the same as `npm run bundle`).
 * The bundler is a devDependency: an installed package starts from the bundles it ships.
 */
export async function bundleDocument(name: InterfaceName): Promise<OpenApiDocument> {
  let redocly: typeof import('@redocly/openapi-core');
  try {
    redocly = await import('@redocly/openapi-core');
  } catch {
    throw new Error(
      `openapi/${name}.yaml is newer than its bundle in dist/openapi/, and the bundler (@redocly/openapi-core, a devDependency) is not installed: run npm run build in a checkout (npm ci first)`,
    );
  }
  const { bundle, createConfig } = redocly;
  const config = await createConfig({});
  const result = await bundle({ ref: join(OPENAPI_DIR, `${name}.yaml`), config });
  const errors = result.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    throw new Error(`openapi/${name}.yaml does not bundle: ${errors.map((p) => p.message).join('; ')}`);
  }
  return result.bundle.parsed as OpenApiDocument;
}

/** Writes dist/openapi/<name>.json and .yaml; returns the bundled document. */
export async function writeBundle(name: InterfaceName): Promise<OpenApiDocument> {
  const doc = await bundleDocument(name);
  const { stringify } = await import('yaml');
  mkdirSync(BUNDLE_DIR, { recursive: true });
  writeFileSync(join(BUNDLE_DIR, `${name}.json`), JSON.stringify(doc, null, 2) + '\n');
  // YAML 1.1 quoting (as Redocly's CLI writes it): a 1.1 reader such as Prism's js-yaml must not
  // read an example like 2026-10-01T00:00:00Z as a date.
  writeFileSync(join(BUNDLE_DIR, `${name}.yaml`), stringify(doc, { lineWidth: 0, version: '1.1', singleQuote: true }));
  writeFileSync(SOURCES_HASH_FILE(), sourcesHash() + '\n');
  return doc;
}

/** The bundled document: the prebuilt JSON when fresh, else bundled now (and the JSON refreshed). */
export async function loadDocument(name: InterfaceName): Promise<OpenApiDocument> {
  const file = resolve(BUNDLE_DIR, `${name}.json`);
  if (
    existsSync(file) &&
    (statSync(file).mtimeMs >= newestSourceMtime() ||
      (existsSync(SOURCES_HASH_FILE()) && readFileSync(SOURCES_HASH_FILE(), 'utf8').trim() === sourcesHash()))
  ) {
    return JSON.parse(readFileSync(file, 'utf8')) as OpenApiDocument;
  }
  try {
    return await writeBundle(name);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EACCES' || (err as NodeJS.ErrnoException).code === 'EROFS')
      return bundleDocument(name);
    throw err;
  }
}

export async function loadDocuments(): Promise<Record<InterfaceName, OpenApiDocument>> {
  const [customer, instance] = await Promise.all(INTERFACES.map(loadDocument));
  return { customer: customer!, instance: instance! };
}
