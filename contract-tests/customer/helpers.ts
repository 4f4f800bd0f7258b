// Small helpers of the customer contract tests.
import { expect } from 'vitest';
import type { Response } from 'supertest';
import { recordObserved, type ContractContext } from '../harness/index.js';

/** A fresh e-mail address nobody on the target has. */
export const randomEmail = (prefix = 'contract') => `${prefix}-${Math.random().toString(36).slice(2, 10)}@example.com`;

export const randomName = (prefix = 'contract') => `${prefix}-${Math.random().toString(36).slice(2, 10)}`;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `fn` returns true, at most `ms`. */
export async function eventually(fn: () => Promise<boolean>, ms = 10_000, every = 100): Promise<void> {
  const until = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > until) throw new Error(`not true within ${ms} ms`);
    await sleep(every);
  }
}

/** A 400 whose body names the field at fault (the reference implementation's `field`, else in the text). */
export function expectBadRequest(res: Response, field?: string): void {
  expect(res.status, res.text).toBe(400);
  expect(typeof res.body.error).toBe('string');
  if (field !== undefined) {
    if (typeof res.body.field === 'string') expect(res.body.field).toBe(field);
    else expect(res.body.error).toContain(field);
  }
}

/**
 * Sends `method` to an operation's path, expects 405 with the Allow header, and checks it against
 * the document. Allow must list exactly `allow`, or with `atLeast` at least `allow` (for a fixed
 * path such as /api/team/invite that a template such as /api/team/{user_id} also matches).
 */
export async function expectMethodNotAllowed(
  t: ContractContext,
  operationId: string,
  method: string,
  allow: string[],
  params: Record<string, string | number> = {},
  options: { atLeast?: boolean } = {},
): Promise<void> {
  const { base, path } = t.api.url('customer', operationId, params);
  const res = await t.api.send(base, method, path, { key: t.target.apiKey, unchecked: true });
  expect(res.status).toBe(405);
  const methods = String(res.headers.allow ?? '')
    .split(/,\s*/)
    .sort();
  if (options.atLeast) expect(methods).toEqual(expect.arrayContaining(allow));
  else expect(methods).toEqual([...allow].sort());
  expect(methods).not.toContain(method);
  t.contract.check('customer', operationId, res, { method, path });
  recordObserved({ api: 'customer', operationId, status: res.status, path });
}

/** `yyyy-mm-dd hh:mm:ss` in UTC, of a time. */
export const pitOf = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/** Minimal RFC 4180 reader: rows of fields (CRLF or LF line ends). */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || (ch === '\r' && text[i + 1] === '\n')) {
      if (ch === '\r') i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
    } else field += ch;
  }
  if (field !== '' || row.length) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}
