// --state keeps the databases (issue 17): the embedded server keeps its data directory beside the
// state file, so a restart finds every instance with its url, its data and its backups.
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { startTusk, type RunningTusk } from '../../src/server.js';
import { ADMIN, json, keyAuth, query } from './support.js';

describe('--state keeps the databases', () => {
  it('a restart with the same state file finds the instance with its url, its data and its backups', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const dir = mkdtempSync(`${tmpdir()}/tusk-state-db-`);
    const { chmodSync } = await import('node:fs');
    chmodSync(dir, 0o755); // the postgres system user keeps the data beside the state file
    const state = `${dir}/tusk-state.json`;
    const options = {
      customerPort: 0,
      instancePort: 0,
      log: 'off' as const,
      provisionDelayMs: 0,
      databases: 'embedded',
      state,
      registry: { backupDelayMs: 0 },
    };
    let first: RunningTusk | undefined;
    try {
      first = await startTusk(options);
      const created = await json(`${first!.customerUrl}/api/instances`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({ name: 'kept', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
      });
      await first.deps.databases!.idle();
      await query(created.body.url, 'create table t (x int)');
      await query(created.body.url, 'insert into t values (7)');
      await json(`${first.instanceUrl}/api/backup`, {
        method: 'POST',
        headers: keyAuth(created.body.apikey),
        body: '{}',
      });
      await first.deps.databases!.idle();
      await query(created.body.url, 'insert into t values (8)');
      await first.close();
      expect(existsSync(`${state}.pgdata/PG_VERSION`)).toBe(true);

      first = await startTusk(options);
      await first.deps.databases!.idle();
      const got = (await json(`${first.customerUrl}/api/instances/${created.body.id}`, { headers: ADMIN })).body;
      expect(got.url).toBe(created.body.url.replace(/:\d+\//, `:${first.deps.databases!.port}/`));
      expect(await query(got.url, 'select x from t order by x')).toEqual([{ x: 7 }, { x: 8 }]);
      // Still its own only: another instance's credentials are refused by it after the restart.
      const other = await json(`${first.customerUrl}/api/instances`, {
        method: 'POST',
        headers: ADMIN,
        body: JSON.stringify({ name: 'other', plan: 'hippo', region: 'amazon-web-services::us-east-1' }),
      });
      await first.deps.databases!.idle();
      const intruder = new URL(other.body.url);
      intruder.pathname = new URL(got.url).pathname;
      await expect(query(intruder.toString(), 'select 1')).rejects.toThrow(/permission denied for database/);
      // The snapshot of the first run restores in the second.
      const newest = (await json(`${first.instanceUrl}/api/backup`, { headers: keyAuth(created.body.apikey) }))
        .body[0] as { id: number };
      await json(`${first.instanceUrl}/api/backup/restore`, {
        method: 'POST',
        headers: keyAuth(created.body.apikey),
        body: JSON.stringify({ backup_id: newest.id }),
      });
      await first.deps.databases!.idle();
      expect(await query(got.url, 'select x from t order by x')).toEqual([{ x: 7 }]);
    } finally {
      await first?.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
