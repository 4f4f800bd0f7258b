// Small helpers of the instance-interface contract tests.
import { expect } from 'vitest';
import type { Response } from 'supertest';
import type { ContractContext, InstanceSchema } from '../harness/index.js';

/**
 * The response is the documented error: this status, a JSON `error` string, and (for 400) the
 * field it names, or one of the fields (where the documents allow either to be named first).
 */
export function expectError(res: Response, status: number, field?: string | string[]): InstanceSchema<'Error'> {
  expect(res.status, res.text).toBe(status);
  expect(typeof res.body.error).toBe('string');
  if (field !== undefined) {
    // The message names the field (the reference implementation also returns it in `field`).
    const fields = Array.isArray(field) ? field : [field];
    expect(
      fields.some((f) => (res.body.error as string).includes(f)),
      `${res.text} names one of ${fields.join(', ')}`,
    ).toBe(true);
  }
  return res.body as InstanceSchema<'Error'>;
}

/** A request with a method the path does not support: 405 with an Allow header listing these methods. */
export async function expectMethodNotAllowed(
  t: ContractContext,
  method: string,
  path: string,
  key: string,
  allow: string[],
): Promise<void> {
  const res = await t.api.send(t.target.instanceUrl, method, path, { key, unchecked: true });
  expect(res.status, res.text).toBe(405);
  expect(typeof res.body.error).toBe('string');
  const allowed = String(res.headers.allow ?? '')
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean)
    .sort();
  expect(allowed).toEqual([...allow].sort());
}

/** Calls `fn` until it returns a value other than undefined, up to `timeoutMs`. */
export async function poll<T>(fn: () => Promise<T | undefined>, timeoutMs = 5000, everyMs = 100): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`poll(): nothing within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `yyyy-mm-dd hh:mm` (UTC) of a time. */
export const pitOf = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

/** `yyyy-mm-dd hh:mm:ss +0000` of a time. */
export const maintenanceDateOf = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} +0000`;

/** ms of `yyyy-mm-dd hh:mm:ss +0000` / `yyyy-mm-dd hh:mm:ss+0000`. */
export const timeOf = (text: string) => Date.parse(text.replace(' ', 'T').replace(/ ?\+0000$/, 'Z'));

export const DAY = 24 * 60 * 60 * 1000;
