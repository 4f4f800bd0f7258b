// InstanceStore with a database engine (issue 31): what a backup, a restore or a point-in-time
// recovery announces is the database work done in the background, so the backup is listed and
// each callback queued only once that work is done, and never before its delay on the clock. The
// engine here is a stand-in that holds each step until the test lets it finish (a unit test of the
// store around it; the real engine is tested in test/databases/).
import { beforeEach, describe, expect, it } from 'vitest';
import { InstanceStore } from '../../../src/resources/instances/instance.js';
import type { DatabaseRef, InstanceDatabases } from '../../../src/databases/instance-databases.js';
import {
  ACCOUNT_ID,
  BACKUP_DELAY_MS,
  NOW,
  RESTORE_DELAY_MS,
  TEAM_EMAIL,
  setup,
  type Setup,
} from '../instance-setup.js';

/** An engine whose steps finish only when `finish()` is called; it records what it was asked. */
class HeldDatabases implements InstanceDatabases {
  readonly host = '127.0.0.1';
  readonly port = 5432;
  readonly asked: string[] = [];
  private held: (() => void)[] = [];
  provision(key: string, _password: string, options: { connectionLimit?: number } = {}): DatabaseRef {
    this.asked.push(`provision limit=${options.connectionLimit ?? 'none'}`);
    return { role: `u${key}`, database: `d${key}` };
  }
  isReady(): boolean {
    return true;
  }
  setPassword(): void {}
  setConnectionLimit(_ref: DatabaseRef, limit: number | undefined): void {
    this.asked.push(`limit=${limit ?? 'none'}`);
  }
  drop(): void {}
  snapshot(_ref: DatabaseRef, backupId: number, _at: number, done?: (bytes: number) => void): void {
    this.asked.push(`snapshot ${backupId}`);
    this.held.push(() => done?.(1234));
  }
  restore(_ref: DatabaseRef, backupId: number, done?: () => void): void {
    this.asked.push(`restore ${backupId}`);
    this.held.push(() => done?.());
  }
  recover(_ref: DatabaseRef, at: number, done?: () => void): void {
    this.asked.push(`recover ${new Date(at).toISOString()}`);
    this.held.push(() => done?.());
  }
  terminate(): void {}
  dropAll(): void {}
  dropUnused(): void {}
  /** Lets every step asked so far finish. */
  finish(): void {
    for (const done of this.held.splice(0)) done();
  }
}

let s: Setup;
let dbs: HeldDatabases;
let i: InstanceStore;

function instance(planName = 'hippo'): InstanceStore {
  const plan = s.registry.catalogue.plans.find((p) => p.name === planName)!;
  const backend = s.registry.catalogue.backends.find((b) => b.name === plan.backend)!;
  return new InstanceStore(
    {
      id: 5,
      accountId: ACCOUNT_ID,
      name: 'orders-db',
      plan,
      backend,
      region: 'amazon-web-services::us-east-1',
      pgVersion: '17',
      teamEmail: TEAM_EMAIL,
      createdAt: NOW,
      readyAt: NOW,
    },
    { ...s.ctx, databases: dbs },
  );
}

beforeEach(async () => {
  s = await setup();
  dbs = new HeldDatabases();
  i = instance();
});

const outbox = () => s.registry.outbox.list().map((e) => ({ event: e.event, dueAt: e.dueAt }));

describe('a backup of the real database', () => {
  it('is listed, with its real size, and called back only once its snapshot is made, however far the clock moved', () => {
    const { id } = i.backups.create({ callback: 'https://hooks.example.com/ready' });
    expect(dbs.asked).toContain(`snapshot ${id}`);
    s.clock.advance(10 * BACKUP_DELAY_MS);
    expect(i.backups.list().some((b) => b.id === id)).toBe(false);
    expect(outbox()).toEqual([]);
    dbs.finish();
    expect(i.backups.list()[0]).toMatchObject({ id, size: 1234 });
    expect(outbox()).toEqual([{ event: 'backup', dueAt: NOW + BACKUP_DELAY_MS }]);
  });

  it('made before its delay is over waits for the delay: the delay stays the minimum', () => {
    const { id } = i.backups.create({ callback: 'https://hooks.example.com/ready' });
    dbs.finish();
    expect(i.backups.list().some((b) => b.id === id)).toBe(false);
    expect(outbox()).toEqual([{ event: 'backup', dueAt: NOW + BACKUP_DELAY_MS }]);
    s.clock.advance(BACKUP_DELAY_MS);
    expect(i.backups.list()[0]!.id).toBe(id);
  });

  it('of the second database (a record only) asks the engine for nothing and is announced on the clock alone', () => {
    const { id } = i.backups.create({ db: 'analytics', callback: 'https://hooks.example.com/ready' });
    expect(dbs.asked.filter((a) => a.startsWith('snapshot'))).toEqual([]);
    s.clock.advance(BACKUP_DELAY_MS);
    expect(i.backups.list('analytics')[0]!.id).toBe(id);
    expect(outbox()).toEqual([{ event: 'backup', dueAt: NOW + BACKUP_DELAY_MS }]);
  });
});

describe('a restore and a recovery', () => {
  it('call back only once the database is restored', () => {
    const backup = i.backups.list('db5')[0]!;
    i.backups.restore({ backup_id: backup.id, callback: 'http://127.0.0.1:9/restored' });
    expect(dbs.asked).toContain(`restore ${backup.id}`);
    s.clock.advance(10 * RESTORE_DELAY_MS);
    expect(outbox()).toEqual([]);
    dbs.finish();
    expect(outbox()).toEqual([{ event: 'restore', dueAt: NOW + RESTORE_DELAY_MS }]);
  });

  it('a restore of the second database (a record only) is called back on the clock alone', () => {
    const backup = i.backups.list('analytics')[0]!;
    i.backups.restore({ backup_id: backup.id, callback: 'http://127.0.0.1:9/restored' });
    expect(dbs.asked.filter((a) => a.startsWith('restore'))).toEqual([]);
    expect(outbox()).toEqual([{ event: 'restore', dueAt: NOW + RESTORE_DELAY_MS }]);
  });

  it('a point-in-time recovery recovers to the end of the minute and calls back once done', () => {
    i.backups.recover({ pit: '2026-11-21 12:00', callback: 'https://hooks.example.com/pitr' });
    expect(dbs.asked).toContain('recover 2026-11-21T12:00:59.999Z');
    expect(outbox()).toEqual([]);
    dbs.finish();
    expect(outbox()).toEqual([{ event: 'pitr', dueAt: NOW + RESTORE_DELAY_MS }]);
  });
});

describe("the plan's connection limit", () => {
  it('is given to the role when the instance is made, and changed with the plan', () => {
    const turtle = instance('turtle');
    expect(dbs.asked).toContain('provision limit=5');
    const plans = s.registry.catalogue.plans;
    const backendOf = (name: string) =>
      s.registry.catalogue.backends.find((b) => b.name === plans.find((p) => p.name === name)!.backend)!;
    turtle.changePlan(
      plans.find((p) => p.name === 'hippo')!,
      backendOf('hippo'),
    );
    turtle.changePlan(
      plans.find((p) => p.name === 'elephant')!,
      backendOf('elephant'),
    );
    turtle.changePlan(
      plans.find((p) => p.name === 'turtle')!,
      backendOf('turtle'),
    );
    // A change between plans with the same limit asks nothing.
    expect(dbs.asked.filter((a) => a.startsWith('limit'))).toEqual(['limit=none', 'limit=5']);
  });
});
