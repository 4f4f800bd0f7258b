// The request's variables travel typed (PipelineVariables, src/http/pipeline.ts, the env of every
// Context that reads them): eslint.config.js refuses an `as` on a read of one in src/, so a cast
// cannot come back where a Context lost its env type. This checks that the rule fires, and on what.
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/openapi/documents.js';

const eslint = new ESLint({ cwd: PROJECT_ROOT });

/** The messages of the rule on `code`, as if it were a file of src/http/. */
async function refusals(code: string, file = 'src/http/example.ts'): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(PROJECT_ROOT, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
}

describe('request variables in src/', () => {
  it('are read without a cast: one with `as` is a lint error', async () => {
    for (const name of ['principal', 'operationId', 'ignoredFields', 'answerMode', 'credentialId']) {
      expect(await refusals(`export const f = (c: any) => c.get('${name}') as string | undefined;\n`), name).toEqual([
        'A request variable is typed by the env of its Context (PipelineEnv): type the Context, not the value.',
      ]);
    }
  });

  it('a typed read, the validated input, another map, and tests are left alone', async () => {
    expect(
      await refusals(`export const f = (c: any) => { const p: string | undefined = c.get('principal'); return p; };\n`),
    ).toEqual([]);
    expect(await refusals(`export const f = (c: any) => c.get('input') as { params: object };\n`)).toEqual([]);
    expect(await refusals(`export const f = (m: Map<string, unknown>) => m.get('other') as string;\n`)).toEqual([]);
    expect(await refusals(`export const f = (c: any) => c.get('principal') as string;\n`, 'test/x.test.ts')).toEqual(
      [],
    );
  });
});
