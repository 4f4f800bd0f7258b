#!/usr/bin/env node
// The commit-message habit, checked by git's commit-msg hook (.githooks/commit-msg, which
// `npm install` wires up through `core.hooksPath`): a subject of one line under 72 characters saying
// what changed, then a blank line, then the why in the body. Usage: node scripts/commit-msg.js FILE
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export const MAX_SUBJECT = 72;

/** The problems of a commit message (git's comment lines ignored); none: it is fine. */
export function messageProblems(text) {
  const lines = text.split('\n').filter((l) => !l.startsWith('#'));
  while (lines.length && lines.at(-1).trim() === '') lines.pop();
  const [subject = '', second, ...rest] = lines;
  const problems = [];
  if (!subject.trim()) problems.push('the subject is empty');
  if (subject.length >= MAX_SUBJECT)
    problems.push(
      `the subject has ${subject.length} characters; keep it under ${MAX_SUBJECT} and put the why in the body`,
    );
  if (second !== undefined && second.trim() !== '')
    problems.push('the second line must be blank: the subject is one line, the body follows after a blank line');
  if (rest.length === 0 && second === undefined && !/^(Merge|Revert|fixup!|squash!)/.test(subject))
    problems.push('there is no body: say why after a blank line');
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node scripts/commit-msg.js FILE');
    process.exit(2);
  }
  const problems = messageProblems(readFileSync(file, 'utf8'));
  if (problems.length) {
    for (const p of problems) console.error(`commit-msg: ${p}`);
    process.exit(1);
  }
}
