// Opt-in against a deployment (`tusk test --check-databases`, for one whose instance URLs the
// runner can reach; always in-process): an instance's `url` connects with a Postgres client once the instance is ready, and after
// rotate-password the old password is refused while the new `url` connects.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createInstance, useContract } from '../harness/index.js';
import { eventually } from './helpers.js';

// In-process the reference implementation runs with its embedded database engine for this file.
const t = useContract({ databases: true });

async function connects(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function readyUrl(id: number): Promise<string> {
  let url = '';
  await eventually(async () => {
    const got = await t.api.customer('getInstance', { params: { id } });
    url = got.body.url as string;
    return got.body.ready === true;
  }, 60_000);
  return url;
}

describe('the databases behind the instances (--check-databases)', () => {
  it('the url of a ready instance connects; after rotate-password the old password is refused and the new url connects', async ({ skip }) => {
    if (!t.target.checkDatabases) return skip('pass --check-databases to connect to the instances the target creates');
    const { id, apikey } = await createInstance(t);
    const url = await readyUrl(id);
    expect(await connects(url)).toBe(true);
    t.api.expectStatus(await t.api.instance('rotatePassword', apikey), '2XX');
    const fresh = await readyUrl(id);
    expect(fresh).not.toBe(url);
    await eventually(async () => !(await connects(url)), 30_000);
    await eventually(() => connects(fresh), 30_000);
  });
});
