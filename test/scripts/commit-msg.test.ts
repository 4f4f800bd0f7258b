// The commit-message habit (scripts/commit-msg.js, run by .githooks/commit-msg): a subject under 72
// characters, one line, then a blank line and the why.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error -- a plain JavaScript script without declarations
import { MAX_SUBJECT, messageProblems } from '../../scripts/commit-msg.js';
import { tempDir } from '../support/temp.js';

const problems = messageProblems as (text: string) => string[];
const SCRIPT = join(__dirname, '..', '..', 'scripts', 'commit-msg.js');

describe('the commit-message check', () => {
  it('takes a short subject, a blank line and a body, git comments and trailing blank lines aside', () => {
    expect(
      problems('Outbox: retries wait on the account clock\n\nThe delay was read from the server clock.\n'),
    ).toStrictEqual([]);
    expect(problems('Add x\n\nWhy.\n\n# Please enter the commit message\n#\n')).toStrictEqual([]);
    expect(problems('Merge branch issue-32')).toStrictEqual([]);
  });

  it('refuses a subject of 72 characters or more, naming its length', () => {
    expect(MAX_SUBJECT).toBe(72);
    expect(problems(`${'x'.repeat(71)}\n\nwhy`)).toStrictEqual([]);
    expect(problems(`${'x'.repeat(72)}\n\nwhy`)).toStrictEqual([
      'the subject has 72 characters; keep it under 72 and put the why in the body',
    ]);
  });

  it('refuses a subject that runs on to a second line, an empty subject and a missing body', () => {
    expect(problems('Add x and\nalso y\n\nwhy')).toStrictEqual([
      'the second line must be blank: the subject is one line, the body follows after a blank line',
    ]);
    expect(problems('\n\nwhy')).toContain('the subject is empty');
    expect(problems('Add x')).toStrictEqual(['there is no body: say why after a blank line']);
  });

  it('exits 1 with the problems as the hook, 0 when the message is fine', () => {
    const dir = tempDir('tusk-commit-msg-');
    writeFileSync(join(dir, 'good'), 'Add x\n\nBecause.\n');
    writeFileSync(join(dir, 'bad'), `${'y'.repeat(90)}\n`);
    expect(execFileSync(process.execPath, [SCRIPT, join(dir, 'good')], { encoding: 'utf8' })).toBe('');
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, [SCRIPT, join(dir, 'bad')], { encoding: 'utf8', stdio: 'pipe' });
    } catch (err) {
      ({ status, stderr } = err as { status: number; stderr: string });
    }
    expect(status).toBe(1);
    expect(stderr).toContain('the subject has 90 characters');
  });
});
