// Tusk's lint rules (openapi/lint/tusk-rules.js) fire on a document that breaks them.
import { writeFileSync, cpSync } from 'node:fs';

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../src/openapi/documents.js';
import { exec as run } from './support/processes.js';
import { tempDir } from './support/temp.js';

const BROKEN = `openapi: 3.1.0
info: {title: Broken, version: 1.0.0, description: A document that breaks each house rule once.}
servers: [{url: 'http://127.0.0.1:4010'}]
security: [{basicAuth: []}]
tags: [{name: Things, description: Things.}]
paths:
  /api/things/{id}:
    get:
      operationId: fetchThing
      summary: Get a thing
      description: Breaks the rules.
      tags: [Things]
      x-roles: [admin]
      parameters:
        - {name: id, in: path, required: true, description: Id., schema: {type: integer, example: 1}}
      responses:
        '200':
          description: A thing.
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
    put:
      operationId: updateThing
      summary: Update a thing
      description: Takes a body but declares no 413.
      tags: [Things]
      x-roles: [admin, devops, member, monitor, billing manager]
      parameters:
        - {name: id, in: path, required: true, description: Id., schema: {type: integer, example: 1}}
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/Thing'}
            example: {name: x}
      responses:
        '204': {description: Updated.}
components:
  securitySchemes:
    basicAuth: {type: http, scheme: basic}
  schemas:
    Thing:
      type: object
      properties:
        name: {type: string, description: No example.}
`;

describe('the lint ruleset', () => {
  it('reports each broken house rule at error level', async () => {
    const dir = tempDir('tusk-lint-');
    cpSync(join(PROJECT_ROOT, 'openapi', 'lint'), join(dir, 'lint'), { recursive: true });
    writeFileSync(
      join(dir, 'redocly.yaml'),
      `plugins: [./lint/tusk-rules.js]\nrules:\n  tusk/operation-id-naming: error\n  tusk/error-responses: {severity: error, roles: true}\n  tusk/operation-examples: error\n  tusk/property-examples: error\n`,
    );
    writeFileSync(join(dir, 'broken.yaml'), BROKEN);
    const out = await run(
      join(PROJECT_ROOT, 'node_modules', '.bin', 'redocly'),
      ['lint', '--config', join(dir, 'redocly.yaml'), '--format', 'json', join(dir, 'broken.yaml')],
      { cwd: dir },
    ).then(
      (r) => r.stdout,
      (e: { stdout: string }) => e.stdout,
    );
    const problems = (
      JSON.parse(out.slice(out.indexOf('{'))) as { problems: { ruleId: string; message: string; severity: string }[] }
    ).problems;
    const messages = (rule: string) =>
      problems
        .filter((p) => p.ruleId === rule)
        .map((p) => p.message)
        .join('\n');
    expect(problems.every((p) => p.severity === 'error')).toBe(true);
    expect(messages('tusk/operation-id-naming')).toMatch(/fetchThing/);
    for (const code of ['401', '405', '429', '500', '400', '404', '403'])
      expect(messages('tusk/error-responses')).toMatch(new RegExp(`must declare ${code}`));
    expect(messages('tusk/error-responses')).toMatch(/PUT \/api\/things\/\{id\} must declare 413/);
    expect(messages('tusk/error-responses')).not.toMatch(/GET \/api\/things\/\{id\} must declare 413/);
    expect(messages('tusk/operation-examples')).toMatch(/response 200 application\/json has no example/);
    expect(messages('tusk/property-examples')).toMatch(/property "name" has no example/);
  });
});
