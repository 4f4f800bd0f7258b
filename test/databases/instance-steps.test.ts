// The steps that keep the engine's databases in step with the instance records
// (src/databases/instance-databases.ts), against a stand-in engine and admin whose answers the test
// controls: what each operation asks of the server, in which order, what a failure, a lost server
// or a stop does to the queue, and when an instance counts as ready. The SQL itself runs against a
// real server in admin.test.ts and databases.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Databases, databaseKeyOf, type DatabaseRef } from '../../src/databases/instance-databases.js';
import type { EngineState, PostgresEngine } from '../../src/databases/engine.js';
import type { DatabaseAdmin } from '../../src/databases/admin.js';

/** An engine that is ready, or lost until the test brings it back. */
class StandInEngine {
  state: EngineState = 'ready';
  readonly prefix = 'tusk_t_';
  readonly host = '127.0.0.1';
  readonly port = 6543;
  spec: { kind: 'embedded' } | { kind: 'external'; url: string } = { kind: 'embedded' };
  private back?: () => void;
  private backed: Promise<void> = Promise.resolve();
  failure?: Error;
  readonly check = vi.fn(async (): Promise<void> => undefined);
  readonly close = vi.fn(async (cleanup?: () => Promise<void>) => {
    await cleanup?.();
  });
  whenReady(): Promise<void> {
    return this.failure ? Promise.reject(this.failure) : this.backed;
  }
  lose(): void {
    this.state = 'restarting';
    this.backed = new Promise((resolve) => (this.back = resolve));
  }
  recover(): void {
    this.state = 'ready';
    this.back?.();
  }
}

type AdminCalls = Record<string, unknown[][]>;

/** An admin that records each call (in `order` too) and answers what the test sets. */
function standInAdmin() {
  const calls: AdminCalls = {};
  const order: string[] = [];
  const answers: Partial<Record<keyof DatabaseAdmin, (...args: unknown[]) => unknown>> = {};
  const admin = new Proxy(
    {},
    {
      get:
        (_, name: string) =>
        async (...args: unknown[]) => {
          (calls[name] ??= []).push(args);
          order.push(`${name} ${args.filter((a) => typeof a === 'string').join(' ')}`.trim());
          const answer = answers[name as keyof DatabaseAdmin];
          if (answer) return answer(...args);
          if (name === 'guardServer') return [];
          if (name === 'createDatabase') return false;
          if (name === 'databasesLike') return new Set();
          if (name === 'size') return 0;
          if (name === 'sizes') return new Map();
          return undefined;
        },
    },
  ) as DatabaseAdmin;
  return { admin, calls, order, answers };
}

function setup(options: { external?: boolean; shared?: boolean } = {}) {
  const engine = new StandInEngine();
  if (options.external) engine.spec = { kind: 'external', url: 'postgres://x@127.0.0.1/postgres' };
  const logged: [string, string][] = [];
  const databases = new Databases(
    engine as unknown as PostgresEngine,
    (level, line) => void logged.push([level, line]),
    options.shared ?? false,
  );
  const stand = standInAdmin();
  Object.defineProperty(databases, 'admin', { value: stand.admin });
  closing.push(() => databases.close());
  return { engine, databases, logged, ...stand };
}

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.useRealTimers();
  for (const close of closing.splice(0)) await close();
});

const unreachable = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6543'), { code: 'ECONNREFUSED' });

describe('the name of an instance database', () => {
  it('is the first 16 letters and digits of its providerid, without case', () => {
    expect(databaseKeyOf('AB-cd_12.ef:34-GH56-ij78-KL90')).toBe('abcd12ef34gh56ij');
    expect(databaseKeyOf('a-b')).toBe('ab');
  });

  it('names the role and the database with the engine prefix', () => {
    const { databases } = setup();
    expect(databases.provision('Ab-12', 'pw')).toEqual({ role: 'tusk_t_uab12', database: 'tusk_t_dab12' });
    expect([databases.host, databases.port]).toEqual(['127.0.0.1', 6543]);
  });
});

describe("a team's replica (shared server)", () => {
  it('makes nothing for an instance it loaded until its maker made the database, then keeps it', async () => {
    vi.useFakeTimers();
    const { databases, calls, answers } = setup({ shared: true });
    let made = false;
    answers.databasesLike = async () => new Set(made ? ['tusk_t_dloaded'] : []);
    answers.createDatabase = async () => true;
    const ref = databases.provision('loaded', 'pw', { loaded: true });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(calls.createDatabase).toBeUndefined();
    expect(databases.isReady(ref)).toBe(false);
    made = true;
    await vi.advanceTimersByTimeAsync(300);
    await databases.idle();
    expect(calls.createDatabase).toEqual([['tusk_t_uloaded', 'pw', 'tusk_t_dloaded', {}]]);
    expect(databases.isReady(ref)).toBe(true);
  });

  it('makes it empty, and says so, when its maker has not made it within 60 s', async () => {
    vi.useFakeTimers();
    const { databases, calls, logged } = setup({ shared: true });
    const ref = databases.provision('orphan', 'pw', { loaded: true });
    await vi.advanceTimersByTimeAsync(59_000);
    expect(calls.createDatabase).toBeUndefined();
    await vi.advanceTimersByTimeAsync(2_000);
    await databases.idle();
    expect(calls.createDatabase).toHaveLength(1);
    expect(databases.isReady(ref)).toBe(true);
    expect(
      logged.some(([level, line]) => level === 'warn' && /tusk_t_dorphan was not made .* made empty here/.test(line)),
    ).toBe(true);
  });

  it('creates what a request created here at once; a database asked again as it was made costs no statement', async () => {
    const { databases, calls } = setup({ shared: true });
    databases.provision('mine', 'pw');
    await databases.idle();
    expect(calls.createDatabase).toHaveLength(1);
    databases.provision('mine', 'pw', { loaded: true });
    await databases.idle();
    expect(calls.createDatabase).toHaveLength(1);
    // Another password (a state load that changed it): made again, which sets it.
    databases.provision('mine', 'other-pw', { loaded: true });
    await databases.idle();
    expect(calls.createDatabase).toHaveLength(2);
  });

  it('restores from a snapshot another replica took, found on the server by its name', async () => {
    const { databases, calls, answers } = setup({ shared: true });
    const ref = databases.provision('restored', 'pw', { backups: () => [{ id: 3, at: 10 }] });
    await databases.idle();
    answers.databasesLike = async () => new Set(['tusk_t_drestored_b3']);
    const done = vi.fn();
    databases.restore(ref, 3, done);
    await databases.idle();
    expect(calls.recreate).toEqual([['tusk_t_drestored', 'tusk_t_urestored', 'tusk_t_drestored_b3']]);
    expect(done).toHaveBeenCalled();
  });

  it('announces a snapshot asked before the instance was loaded anew (another replica wrote its account)', async () => {
    const { databases } = setup({ shared: true });
    const ref = databases.provision('reloaded', 'pw');
    await databases.idle();
    const done = vi.fn();
    databases.snapshot(ref, 2, 5, done);
    const again = databases.provision('reloaded', 'pw', { loaded: true });
    await databases.idle();
    expect(again).toBe(ref);
    expect(done).toHaveBeenCalledTimes(1);
  });

  it('drops nothing when it closes', async () => {
    const { databases, calls } = setup({ shared: true, external: true });
    databases.provision('stays', 'pw');
    await databases.idle();
    await databases.close();
    expect(calls.dropEverything).toBeUndefined();
  });
});

describe('provisioning', () => {
  it('makes the role and database in the background; the instance is ready once made and while the engine is', async () => {
    const { engine, databases, calls } = setup();
    const ref = databases.provision('one', 'secret');
    expect(databases.isReady(ref)).toBe(false);
    await databases.idle();
    expect(calls.createDatabase).toEqual([['tusk_t_uone', 'secret', 'tusk_t_done', {}]]);
    expect(databases.isReady(ref)).toBe(true);
    engine.state = 'restarting';
    expect(databases.isReady(ref)).toBe(false);
  });

  it("passes the plan's connection limit, zero included", async () => {
    const { databases, calls } = setup();
    databases.provision('zero', 'pw', { connectionLimit: 0 });
    await databases.idle();
    expect(calls.createDatabase![0]![3]).toEqual({ connectionLimit: 0 });
  });

  it('a fork copies the source database; a point-in-time copy its newest snapshot at or before the time', async () => {
    const { databases, calls } = setup();
    const source = databases.provision('source', 'pw');
    databases.snapshot(source, 1, 100);
    databases.snapshot(source, 3, 300);
    databases.snapshot(source, 2, 200);
    databases.provision('fork', 'pw', { from: { ref: source } });
    databases.provision('pitexact', 'pw', { from: { ref: source, at: 200 } });
    databases.provision('pitbetween', 'pw', { from: { ref: source, at: 299 } });
    databases.provision('pitnewest', 'pw', { from: { ref: source, at: 5_000 } });
    databases.provision('pitbefore', 'pw', { from: { ref: source, at: 99 } });
    await databases.idle();
    const templates = Object.fromEntries(calls.createDatabase!.map((c) => [c[2], c[3]]));
    expect(templates).toEqual({
      tusk_t_dsource: {},
      tusk_t_dfork: { template: 'tusk_t_dsource' },
      tusk_t_dpitexact: { template: 'tusk_t_dsource_b2' },
      tusk_t_dpitbetween: { template: 'tusk_t_dsource_b2' },
      tusk_t_dpitnewest: { template: 'tusk_t_dsource_b3' },
      tusk_t_dpitbefore: {},
    });
  });

  it('of two snapshots taken at the same time, a point-in-time copy takes the one taken last', async () => {
    const { databases, calls } = setup();
    const source = databases.provision('frozen', 'pw');
    databases.snapshot(source, 1, 100);
    databases.snapshot(source, 2, 100);
    databases.provision('copy', 'pw', { from: { ref: source, at: 100 } });
    await databases.idle();
    expect(calls.createDatabase!.at(-1)).toEqual([
      'tusk_t_ucopy',
      'pw',
      'tusk_t_dcopy',
      { template: 'tusk_t_dfrozen_b2' },
    ]);
  });

  it('a kept database finds the snapshots of its backups that still exist, made private again', async () => {
    const { databases, calls, answers } = setup();
    answers.createDatabase = async () => true;
    answers.databasesLike = async () => new Set(['tusk_t_dkept_b1', 'tusk_t_dkept_b3']);
    const ref = databases.provision('kept', 'pw', {
      backups: () => [
        { id: 1, at: 10 },
        { id: 2, at: 20 },
        { id: 3, at: 30 },
      ],
    });
    await databases.idle();
    expect(calls.databasesLike).toEqual([['tusk_t_dkept_b']]);
    expect(calls.makePrivate).toEqual([['tusk_t_dkept_b1'], ['tusk_t_dkept_b3']]);
    databases.restore(ref, 3);
    databases.restore(ref, 2);
    databases.recover(ref, 25);
    await databases.idle();
    expect(calls.recreate).toEqual([
      ['tusk_t_dkept', 'tusk_t_ukept', 'tusk_t_dkept_b3'],
      ['tusk_t_dkept', 'tusk_t_ukept', undefined],
      ['tusk_t_dkept', 'tusk_t_ukept', 'tusk_t_dkept_b1'],
    ]);
  });

  it('a database made fresh looks for no snapshots, even with backups', async () => {
    const { databases, calls } = setup();
    databases.provision('fresh', 'pw', { backups: () => [{ id: 1, at: 1 }] });
    await databases.idle();
    expect(calls.databasesLike).toBeUndefined();
  });

  it("checks the server's own databases once, with the first role, and says which stay open to every role", async () => {
    const { databases, calls, answers, logged } = setup();
    answers.guardServer = async () => ['postgres', 'shared'];
    databases.provision('first', 'pw');
    databases.provision('second', 'pw');
    await databases.idle();
    expect(calls.guardServer).toEqual([['tusk_t_ufirst']]);
    expect(logged).toEqual([
      [
        'warn',
        'tusk: databases: on this server, every role may connect to postgres, shared (PUBLIC has CONNECT there); instance roles included. Its admin closes them with: REVOKE CONNECT, TEMPORARY ON DATABASE postgres, shared FROM PUBLIC',
      ],
    ]);
  });

  it('says nothing when the server keeps its own databases closed', async () => {
    const { databases, logged } = setup();
    databases.provision('quiet', 'pw');
    await databases.idle();
    expect(logged).toEqual([]);
  });

  it('an instance deleted before its database was made gets none; its drop still runs', async () => {
    const { databases, order } = setup();
    const ref = databases.provision('gone', 'pw');
    databases.drop(ref);
    await databases.idle();
    expect(order).toEqual(['dropDatabase tusk_t_dgone', 'databasesLike tusk_t_dgone_b', 'dropRole tusk_t_ugone']);
    expect(databases.isReady(ref)).toBe(false);
  });

  it('an instance deleted while its database is being made is not ready afterwards', async () => {
    const { databases, answers } = setup();
    answers.createDatabase = async () => {
      databases.drop(ref);
      return false;
    };
    const ref: DatabaseRef = databases.provision('racing', 'pw');
    await databases.idle();
    expect(databases.isReady(ref)).toBe(false);
  });
});

describe('the other operations', () => {
  it("rotate-password sets the role's password; a plan's limit, or none (-1)", async () => {
    const { databases, calls } = setup();
    const ref = databases.provision('ops', 'pw');
    databases.setPassword(ref, 'new');
    databases.setConnectionLimit(ref, 5);
    databases.setConnectionLimit(ref, undefined);
    await databases.idle();
    expect(calls.setPassword).toEqual([['tusk_t_uops', 'new']]);
    expect(calls.setConnectionLimit).toEqual([
      ['tusk_t_uops', 5],
      ['tusk_t_uops', -1],
    ]);
  });

  it('delete drops the database, then its snapshots, then its role', async () => {
    const { databases, order, answers } = setup();
    const ref = databases.provision('del', 'pw');
    databases.snapshot(ref, 4, 1);
    databases.snapshot(ref, 5, 2);
    await databases.idle();
    order.length = 0;
    // On the server: one of them, and one another replica of a team took.
    answers.databasesLike = async () => new Set(['tusk_t_ddel_b5', 'tusk_t_ddel_b9']);
    databases.drop(ref);
    expect(databases.isReady(ref)).toBe(false);
    await databases.idle();
    expect(order).toEqual([
      'dropDatabase tusk_t_ddel',
      'databasesLike tusk_t_ddel_b',
      'dropDatabase tusk_t_ddel_b4',
      'dropDatabase tusk_t_ddel_b5',
      'dropDatabase tusk_t_ddel_b9',
      'dropRole tusk_t_udel',
    ]);
  });

  it("a backup is a snapshot named after it; `done` learns the snapshot's size", async () => {
    const { databases, calls, answers } = setup();
    answers.size = async (name) => (name === 'tusk_t_dsnap_b7' ? 8_192 : -1);
    const ref = databases.provision('snap', 'pw');
    const done = vi.fn();
    databases.snapshot(ref, 7, 70, done);
    await databases.idle();
    expect(calls.snapshot).toEqual([['tusk_t_dsnap', 'tusk_t_dsnap_b7']]);
    expect(done).toHaveBeenCalledWith(8_192);
  });

  it('a backup of an instance deleted meanwhile takes no snapshot and announces nothing', async () => {
    const { databases, calls, answers } = setup();
    const ref = databases.provision('snapgone', 'pw');
    const before = vi.fn();
    const during = vi.fn();
    databases.snapshot(ref, 1, 1, before);
    databases.drop(ref);
    await databases.idle();
    expect(calls.snapshot).toBeUndefined();
    expect(before).not.toHaveBeenCalled();

    const again = databases.provision('snapgone', 'pw');
    answers.snapshot = async () => databases.drop(again);
    databases.snapshot(again, 2, 2, during);
    await databases.idle();
    expect(during).not.toHaveBeenCalled();
  });

  it('a restore replaces the database with the snapshot; not ready meanwhile, `done` once it is back', async () => {
    const { databases, calls } = setup();
    const ref = databases.provision('rest', 'pw');
    databases.snapshot(ref, 9, 90);
    await databases.idle();
    const done = vi.fn();
    databases.restore(ref, 9, done);
    expect(databases.isReady(ref)).toBe(false);
    expect(done).not.toHaveBeenCalled();
    await databases.idle();
    expect(calls.recreate).toEqual([['tusk_t_drest', 'tusk_t_urest', 'tusk_t_drest_b9']]);
    expect(done).toHaveBeenCalledOnce();
    expect(databases.isReady(ref)).toBe(true);
  });

  it('a recovery with no snapshot before its time makes the database empty', async () => {
    const { databases, calls } = setup();
    const ref = databases.provision('rec', 'pw');
    databases.snapshot(ref, 1, 500);
    const done = vi.fn();
    databases.recover(ref, 499, done);
    await databases.idle();
    expect(calls.recreate).toEqual([['tusk_t_drec', 'tusk_t_urec', undefined]]);
    expect(done).toHaveBeenCalledOnce();
  });

  it('a restore of an instance deleted before or during it announces nothing', async () => {
    const { databases, calls, answers } = setup();
    const ref = databases.provision('restgone', 'pw');
    const before = vi.fn();
    databases.restore(ref, 1, before);
    databases.drop(ref);
    await databases.idle();
    expect(calls.recreate).toBeUndefined();
    expect(before).not.toHaveBeenCalled();

    const again = databases.provision('restgone', 'pw');
    answers.recreate = async () => databases.drop(again);
    const during = vi.fn();
    databases.recover(again, 1, during);
    await databases.idle();
    expect(during).not.toHaveBeenCalled();
    expect(databases.isReady(again)).toBe(false);
  });

  it('maintenance ends the sessions, tried once', async () => {
    const { databases, calls, answers } = setup();
    const ref = databases.provision('maint', 'pw');
    await databases.idle();
    answers.terminate = async () => {
      throw new Error('busy');
    };
    databases.terminate(ref);
    await databases.idle();
    expect(calls.terminate).toEqual([['tusk_t_dmaint']]);
    expect(databases.failures).toEqual(['tusk: databases: ending the sessions of tusk_t_dmaint failed: busy']);
  });

  it('a reset drops every database; no instance is ready afterwards', async () => {
    const { databases, calls } = setup();
    const ref = databases.provision('reset', 'pw');
    await databases.idle();
    databases.dropAll();
    expect(databases.isReady(ref)).toBe(false);
    await databases.idle();
    expect(calls.dropEverything).toEqual([[]]);
  });

  it('after a state load, the databases and roles of live instances are kept, with their snapshots', async () => {
    const { databases, calls } = setup();
    databases.provision('live', 'pw');
    databases.dropUnused();
    await databases.idle();
    const [{ keepDatabase, keepRoles }] = calls.dropEverything![0] as [
      { keepDatabase: (name: string) => boolean; keepRoles: Set<string> },
    ];
    expect(
      [
        'tusk_t_dlive',
        'tusk_t_dlive_b12',
        'tusk_t_dother',
        'tusk_t_dother_b1',
        'tusk_t_dlive_bx',
        'tusk_t_dlive_b',
        'tusk_t_dli_b5ve',
        'tusk_t_dlive_b1_b2',
      ].filter(keepDatabase),
    ).toEqual(['tusk_t_dlive', 'tusk_t_dlive_b12']);
    expect(keepRoles).toEqual(new Set(['tusk_t_ulive']));
  });
});

describe('failures', () => {
  it('a step that fails is tried three times, then logged; the next step still runs', async () => {
    const { databases, calls, answers, logged } = setup();
    const ref = databases.provision('flaky', 'pw');
    await databases.idle();
    answers.setPassword = async () => {
      throw new Error('role is locked');
    };
    databases.setPassword(ref, 'x');
    databases.setConnectionLimit(ref, 3);
    await databases.idle();
    expect(calls.setPassword).toHaveLength(3);
    expect(calls.setConnectionLimit).toEqual([['tusk_t_uflaky', 3]]);
    const line = 'tusk: databases: setting the password of tusk_t_uflaky failed: role is locked';
    expect(databases.failures).toEqual([line]);
    expect(logged).toEqual([['error', line]]);
  });

  it('waits longer before each new try', async () => {
    vi.useFakeTimers();
    const { databases, calls, answers } = setup();
    answers.setPassword = async () => {
      throw new Error('no');
    };
    databases.setPassword({ role: 'r', database: 'd' }, 'x');
    await vi.advanceTimersByTimeAsync(0);
    expect(calls.setPassword).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(399);
    expect(calls.setPassword).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.setPassword).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(599);
    expect(calls.setPassword).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.setPassword).toHaveLength(3);
    await databases.idle();
    expect(databases.failures).toHaveLength(1);
  });

  it('a step that fails because the server went away waits for it, then runs again, not counted as a try', async () => {
    const { engine, databases, calls, answers } = setup();
    const ref = databases.provision('lost', 'pw');
    await databases.idle();
    let tries = 0;
    answers.setPassword = async () => {
      if (++tries <= 3) throw unreachable();
    };
    engine.check.mockImplementation(async () => engine.lose());
    databases.setPassword(ref, 'x');
    for (let lost = 1; lost <= 3; lost++) {
      await vi.waitFor(() => expect(engine.check).toHaveBeenCalledTimes(lost));
      expect(databases.isReady(ref)).toBe(false);
      await new Promise((r) => setTimeout(r, 10));
      expect(calls.setPassword).toHaveLength(lost);
      engine.recover();
    }
    await databases.idle();
    expect(calls.setPassword).toHaveLength(4);
    expect(databases.failures).toEqual([]);
  });

  it('a server found still there when checked: the failure counts as a try', async () => {
    const { engine, databases, calls, answers } = setup();
    let tries = 0;
    answers.setPassword = async () => {
      if (++tries === 1) throw unreachable();
    };
    databases.setPassword({ role: 'r', database: 'd' }, 'x');
    await databases.idle();
    expect(engine.check).toHaveBeenCalledOnce();
    expect(calls.setPassword).toHaveLength(2);
  });

  it('an error the server answers with does not make Tusk check the server', async () => {
    const { engine, databases, answers } = setup();
    answers.setPassword = async () => {
      throw Object.assign(new Error('syntax error'), { code: '42601' });
    };
    databases.setPassword({ role: 'r', database: 'd' }, 'x');
    await databases.idle();
    expect(engine.check).not.toHaveBeenCalled();
  });

  it('an engine that failed to start fails each step once, logged', async () => {
    const { engine, databases, calls } = setup();
    engine.failure = new Error('initdb failed');
    databases.provision('never', 'pw');
    await databases.idle();
    expect(calls.createDatabase).toBeUndefined();
    expect(databases.failures).toEqual(['tusk: databases: creating database tusk_t_dnever failed: initdb failed']);
  });

  it("an engine in the failed state has said why: its steps' failures are recorded, not logged again", async () => {
    const { engine, databases, logged } = setup();
    engine.failure = new Error('initdb failed');
    engine.state = 'failed';
    databases.provision('never', 'pw');
    databases.provision('other', 'pw');
    await databases.idle();
    expect(databases.failures).toHaveLength(2);
    expect(logged).toEqual([]);
  });
});

describe('sizes', () => {
  it("the live databases' sizes reach their instances; not a deleted one's, not before it is made", async () => {
    const { databases, answers } = setup();
    answers.sizes = async () =>
      new Map([
        ['tusk_t_dsized', 1_000],
        ['tusk_t_dother', 2_000],
        ['tusk_t_dunmade', 3_000],
      ]);
    const sized = vi.fn();
    const other = vi.fn();
    databases.provision('sized', 'pw', { onSize: sized });
    const gone = databases.provision('other', 'pw', { onSize: other });
    await databases.idle();
    databases.drop(gone);
    const unmade = vi.fn();
    databases.provision('unmade', 'pw', { onSize: unmade });
    await databases.measureSizes();
    expect(sized).toHaveBeenCalledWith(1_000);
    expect(other).not.toHaveBeenCalled();
    expect(unmade).not.toHaveBeenCalled();
  });

  it('are read every 2 s, one reading at a time, and not while the engine is away', async () => {
    vi.useFakeTimers();
    const { engine, databases, calls, answers } = setup();
    let release!: () => void;
    answers.sizes = () => new Promise<Map<string, number>>((resolve) => (release = () => resolve(new Map())));
    databases.provision('timed', 'pw', { onSize: () => undefined });
    await vi.advanceTimersByTimeAsync(1_999);
    expect(calls.sizes).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(calls.sizes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(4_000);
    expect(calls.sizes).toHaveLength(1);
    release();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls.sizes).toHaveLength(2);
    release();
    engine.state = 'restarting';
    await vi.advanceTimersByTimeAsync(2_000);
    expect(calls.sizes).toHaveLength(2);
  });

  it('are not read when no instance listens, and a failed reading is skipped', async () => {
    const { databases, calls, answers } = setup();
    await databases.measureSizes();
    expect(calls.sizes).toBeUndefined();
    answers.sizes = async () => {
      throw new Error('busy');
    };
    databases.provision('s', 'pw', { onSize: () => undefined });
    await databases.measureSizes();
    await databases.measureSizes();
    expect(calls.sizes).toHaveLength(2);
  });
});

describe('stopping', () => {
  it('drops the steps not yet run, closes the engine, and an embedded one gets no cleanup', async () => {
    const { engine, databases, calls } = setup();
    engine.lose();
    databases.provision('waiting', 'pw');
    databases.setPassword({ role: 'r', database: 'd' }, 'x');
    await new Promise((r) => setTimeout(r, 10)); // the first step waits for the engine
    await databases.close();
    await databases.idle();
    expect(calls.createDatabase).toBeUndefined();
    expect(calls.setPassword).toBeUndefined();
    expect(databases.failures).toEqual([]);
    expect(engine.close).toHaveBeenCalledWith(undefined);
  });

  it("an external server first loses this process's databases", async () => {
    const { engine, databases, calls } = setup({ external: true });
    await databases.close();
    expect(engine.close).toHaveBeenCalledOnce();
    expect(calls.dropEverything).toEqual([[]]);
  });

  it('a step that fails while closing is not retried, logged, or a reason to check the server', async () => {
    const { engine, databases, calls, answers } = setup();
    answers.terminate = async () => {
      void databases.close();
      throw unreachable();
    };
    databases.terminate({ role: 'r', database: 'd' });
    await databases.idle();
    expect(calls.terminate).toHaveLength(1);
    expect(engine.check).not.toHaveBeenCalled();
    expect(databases.failures).toEqual([]);
  });

  it('waits at most 2 s for the step that runs', async () => {
    vi.useFakeTimers();
    const { engine, databases, answers } = setup();
    let finish!: () => void;
    answers.setPassword = () => new Promise<void>((resolve) => (finish = resolve));
    databases.setPassword({ role: 'r', database: 'd' }, 'x');
    await vi.advanceTimersByTimeAsync(0);
    const closed = databases.close();
    await vi.advanceTimersByTimeAsync(1_999);
    expect(engine.close).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await closed;
    expect(engine.close).toHaveBeenCalledOnce();
    finish();
  });
});
