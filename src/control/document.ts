// The control plane's own OpenAPI document (control.openapi.yaml beside this file's source; it is
// not part of openapi/ and not linted by the house rules), and validators compiled from its schemas.
// One ControlDocument per control plane (no module state): read and compiled on first use, so
// yaml and Ajv are not loaded at start-up.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { PROJECT_ROOT, type OpenApiDocument } from '../openapi/documents.js';
import { ajvModules } from '../openapi/ajv.js';

const requireHere = createRequire(import.meta.url);

/** Where the document lives (src/ is shipped in the package, so this holds from dist/ too). */
export const CONTROL_DOCUMENT_PATH = join(PROJECT_ROOT, 'src', 'control', 'control.openapi.yaml');
const URI = 'urn:tusk:control';

export class ControlDocument {
  private loaded: { doc: OpenApiDocument; ajv: Ajv2020 } | undefined;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly bodies = new Map<string, { schema: string; required: boolean }>();

  private load() {
    if (!this.loaded) {
      const doc = (requireHere('yaml') as typeof import('yaml')).parse(
        readFileSync(CONTROL_DOCUMENT_PATH, 'utf8'),
      ) as OpenApiDocument;
      const { Ajv, addFormats } = ajvModules();
      const ajv = new Ajv({ strict: false, allErrors: true });
      addFormats(ajv);
      ajv.addSchema({ ...doc, $id: URI } as object);
      this.loaded = { doc, ajv };
    }
    return this.loaded;
  }

  /** The control document, parsed once. */
  document(): OpenApiDocument {
    return this.load().doc;
  }

  /**
   * The JSON request body an operation of the control document declares: the name of its schema in
   * the components, and whether it is required (throws when the operation declares none: a
   * programming error, caught by the control plane's tests).
   */
  requestBody(operationId: string): { schema: string; required: boolean } {
    let found = this.bodies.get(operationId);
    if (!found) {
      for (const item of Object.values(this.document().paths ?? {}) as Record<string, unknown>[]) {
        for (const op of Object.values(item) as {
          operationId?: string;
          requestBody?: { required?: boolean; content?: Record<string, { schema?: { $ref?: string } }> };
        }[]) {
          if (op?.operationId !== operationId) continue;
          const ref = op.requestBody?.content?.['application/json']?.schema?.$ref;
          if (ref?.startsWith('#/components/schemas/'))
            found = { schema: ref.slice('#/components/schemas/'.length), required: op.requestBody?.required === true };
        }
      }
      if (!found) throw new Error(`the control document declares no JSON request body for ${operationId}`);
      this.bodies.set(operationId, found);
    }
    return found;
  }

  /** A validator for a schema of the control document's components, e.g. `State`. */
  schema(name: string): ValidateFunction {
    let fn = this.validators.get(name);
    if (!fn) {
      fn = this.load().ajv.compile({ $ref: `${URI}#/components/schemas/${name}` });
      this.validators.set(name, fn);
    }
    return fn;
  }
}
