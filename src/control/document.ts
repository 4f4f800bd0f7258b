// The control plane's own OpenAPI document (control.openapi.yaml beside this file's source; it is
// not part of openapi/ and not linted by the house rules), and validators compiled from its schemas.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { PROJECT_ROOT, type OpenApiDocument } from '../openapi/documents.js';
import { ajvModules } from '../openapi/ajv.js';

// yaml and Ajv are loaded on the first use of the control plane's schemas, not at start-up.
const requireHere = createRequire(import.meta.url);

/** Where the document lives (src/ is shipped in the package, so this holds from dist/ too). */
export const CONTROL_DOCUMENT_PATH = join(PROJECT_ROOT, 'src', 'control', 'control.openapi.yaml');
const URI = 'urn:tusk:control';

let cached: { doc: OpenApiDocument; ajv: Ajv2020; validators: Map<string, ValidateFunction> } | undefined;

function load() {
  if (!cached) {
    const doc = (requireHere('yaml') as typeof import('yaml')).parse(readFileSync(CONTROL_DOCUMENT_PATH, 'utf8')) as OpenApiDocument;
    const { Ajv, addFormats } = ajvModules();
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: URI } as object);
    cached = { doc, ajv, validators: new Map() };
  }
  return cached;
}

/** The control document, parsed once. */
export function controlDocument(): OpenApiDocument {
  return load().doc;
}

/** A validator for a schema of the control document's components, e.g. `State`. */
export function controlSchema(name: string): ValidateFunction {
  const c = load();
  let fn = c.validators.get(name);
  if (!fn) {
    fn = c.ajv.compile({ $ref: `${URI}#/components/schemas/${name}` });
    c.validators.set(name, fn);
  }
  return fn;
}
