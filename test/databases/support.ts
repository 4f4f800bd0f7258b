// What the database tests share: the admin's and an instance's HTTP Basic headers, a JSON request,
// and one query through a fresh `pg` client on an instance's url.
import { startTusk, type RunningTusk } from '../../src/server.js';
import pg from 'pg';

export const ADMIN = {
  authorization: `Basic ${Buffer.from(':tusk-admin-key').toString('base64')}`,
  'content-type': 'application/json',
};
export const keyAuth = (key: string) => ({
  authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}`,
  'content-type': 'application/json',
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON as read
export async function json(url: string, init: RequestInit = {}): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

export async function query(url: string, sql: string): Promise<unknown[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/** A Tusk on free ports with the embedded engine and no delays, as the database tests need it. */
export function startDatabaseTusk(): Promise<RunningTusk> {
  return startTusk({
    customerPort: 0,
    instancePort: 0,
    log: 'off',
    provisionDelayMs: 0,
    rateLimit: '100000/1',
    databases: 'embedded',
    registry: { backupDelayMs: 0, restoreDelayMs: 0 },
  });
}
