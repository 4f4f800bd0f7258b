// What the database tests share: the admin's and an instance's HTTP Basic headers, a JSON request,
// one query through a fresh `pg` client on an instance's url, and a port for a server that stops
// and starts again on it.
import { startTusk, type RunningTusk } from '../../src/server.js';
import pg from 'pg';
import { readFileSync } from 'node:fs';
import { freePort } from '../../src/core/net.js';

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

/**
 * A free port below the system's ephemeral range, for a server a test stops and starts again on
 * the same port: a port the system hands out for port 0 (freePort(), every other test's servers)
 * could be taken by one of them while the server is down.
 */
export async function portOutsideEphemeral(): Promise<number> {
  let low = 32768;
  try {
    low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || low;
  } catch {
    /* not Linux: the common default */
  }
  for (let i = 0; i < 100; i++) {
    const candidate = 10_000 + Math.floor(Math.random() * (low - 11_000));
    if ((await freePort('127.0.0.1', candidate)) === candidate) return candidate;
  }
  throw new Error(`no free port between 10000 and ${low - 1000}`);
}
