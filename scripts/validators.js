#!/usr/bin/env node
// npm run build, after tsc: precompiles the validators of both bundled documents into
// dist/openapi/<name>.validators.cjs (see src/openapi/precompile.ts). Start-up then loads them
// instead of compiling with Ajv.
import { loadDocuments, INTERFACES } from '../dist/src/openapi/documents.js';
import { writePrecompiledValidators } from '../dist/src/openapi/precompile.js';

const documents = await loadDocuments();
for (const name of INTERFACES) {
  const started = performance.now();
  const n = await writePrecompiledValidators(name, documents[name]);
  console.log(`dist/openapi/${name}.validators.cjs: ${n} validators (${Math.round(performance.now() - started)} ms)`);
}
