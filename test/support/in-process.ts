// A Tusk built in-process for one test (createTusk, no ports), closed when that test finishes,
// and a client that sends a request to one of its two apps and reads the answer: for the tests
// that need a server of their own, with options of their own.
import { onTestFinished } from 'vitest';
import { createTusk, type Tusk, type TuskOptions } from '../../src/server.js';

/** HTTP Basic with the key as the password (and `user`, empty by default, as the user name). */
export const basic = (key: string, user = '') => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

export interface Outgoing {
  /** Sent with HTTP Basic (basic()). */
  key?: string;
  /** A JSON body. */
  json?: unknown;
  /** A body sent as it is, as JSON. */
  raw?: string;
  /** A form body (application/x-www-form-urlencoded). */
  form?: string;
  headers?: Record<string, string>;
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body read as JSON; undefined when it is empty or not JSON. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON bodies, read as the tests need them
  body: any;
}

export type Send = (app: 'customer' | 'instance', method: string, path: string, request?: Outgoing) => Promise<Answer>;

/** A Tusk for the current test only (call it inside the test), with `provisionDelayMs: 0` and no log unless `options` say otherwise. */
export async function tuskForTest(options: TuskOptions = {}): Promise<{ tusk: Tusk; send: Send }> {
  const tusk = await createTusk({ log: 'off', provisionDelayMs: 0, ...options });
  onTestFinished(() => tusk.control.close());
  const send: Send = async (app, method, path, { key, json, raw, form, headers = {} } = {}) => {
    const body = form ?? raw ?? (json !== undefined ? JSON.stringify(json) : undefined);
    const type = form !== undefined ? 'application/x-www-form-urlencoded' : 'application/json';
    const res = await tusk[app].fetch(
      new Request(`http://tusk${path}`, {
        method,
        headers: {
          ...(key !== undefined ? { authorization: basic(key) } : {}),
          ...(body !== undefined ? { 'content-type': type } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body } : {}),
      }),
    );
    const text = await res.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: res.status, headers: res.headers, text, body: parsed };
  };
  return { tusk, send };
}
