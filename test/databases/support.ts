// What the database tests share: the admin's and an instance's HTTP Basic headers, a JSON request,
// and one query through a fresh `pg` client on an instance's url.
import pg from 'pg';

export const ADMIN = { authorization: `Basic ${Buffer.from(':tusk-admin-key').toString('base64')}`, 'content-type': 'application/json' };
export const keyAuth = (key: string) => ({ authorization: `Basic ${Buffer.from(`:${key}`).toString('base64')}`, 'content-type': 'application/json' });

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
