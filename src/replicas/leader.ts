// The team's leader: of the replicas, the one holding the leader lock (a session-level advisory lock
// on a connection it keeps) runs what the clock makes due, as one process runs its ticks: alarms
// that fire and the outbox's deliveries, for each account with something due, as a write of that
// account (replica.ts), so that what it queued, sent or learnt is written before the next tick. The
// other replicas try the lock every half second: when the leader's connection ends (a replica
// killed, or stopped), Postgres releases the lock and one of them leads within a second. The leader
// also keeps the team's tables small (old rate-limit windows, journal lines beyond its capacity).
import type pg from 'pg';
import type { Registry } from '../accounts/registry.js';
import type { Logger } from '../core/log.js';
import { LOCKS } from './schema.js';
import { pruneJournal } from './journal.js';

/** What the leader asks of its team (replica.ts). */
export interface LeaderHost {
  readonly pool: pg.Pool;
  freshAll(): Promise<void>;
  write(id: string, work: () => Response | Promise<Response>): Promise<Response>;
  writeServer(work: () => Response | Promise<Response>): Promise<Response>;
}

const TRY_EVERY_MS = 500;
const TICK_EVERY_MS = 100;
const PRUNE_EVERY_MS = 60_000;

export class Leader {
  private client: pg.PoolClient | undefined;
  private timer: NodeJS.Timeout | undefined;
  private busy = false;
  private stopped = false;
  private lastPrune = 0;

  constructor(
    private readonly team: LeaderHost,
    private readonly registry: Registry,
    private readonly logger: Logger,
    private readonly journalSize: number,
  ) {}

  /** Whether this replica leads now. */
  get leads(): boolean {
    return this.client !== undefined;
  }

  start(): void {
    const loop = async () => {
      if (this.stopped) return;
      try {
        if (!this.client) await this.tryToLead();
        if (this.client) await this.tick();
      } catch (err) {
        this.logger.warn(`tusk: team: the leader's round failed: ${(err as Error).message}`);
        this.resign();
      }
      if (!this.stopped) this.timer = setTimeout(() => void loop(), this.client ? TICK_EVERY_MS : TRY_EVERY_MS);
    };
    void loop();
  }

  private async tryToLead(): Promise<void> {
    const client = await this.team.pool.connect();
    const { rows } = await client
      .query('select pg_try_advisory_lock($1, $2) as got', [LOCKS.namespace, LOCKS.leader])
      .catch((err: Error) => {
        client.release(err);
        throw err;
      });
    if (!rows[0].got) {
      client.release();
      return;
    }
    client.on('error', () => this.resign());
    this.client = client;
    this.logger.info('tusk: team: this replica leads (alarms that fire, deliveries)');
    // What the last leader was sending when it went is sent again (at least once, same entry id).
    await this.team.writeServer(() => {
      this.registry.outbox.resumeSending();
      return new Response(null, { status: 204 });
    });
  }

  /** Lets the lock go (its connection ended, or the replica stops). */
  private resign(): void {
    const client = this.client;
    this.client = undefined;
    client?.release(true);
  }

  /** One round: each account with something due is written as the clock makes it. */
  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.team.freshAll();
      for (const id of [...this.registry.allHomes()].map((h) => h.id)) {
        const home = this.registry.home(id);
        const now = home?.clock.now() ?? 0;
        if (!home || !(this.registry.outbox.hasDue(id) || [...home.instances()].some((i) => i.alarmsDue(now))))
          continue;
        // The copy may be loaded again inside the write: the home is found there, not kept from here.
        await this.team.write(id, () => {
          this.registry.home(id)?.evaluateAlarms();
          this.registry.outbox.tick(id);
          return new Response(null, { status: 204 });
        });
      }
      if (Date.now() - this.lastPrune > PRUNE_EVERY_MS) await this.prune();
    } finally {
      this.busy = false;
    }
  }

  private async prune(): Promise<void> {
    this.lastPrune = Date.now();
    await this.team.pool.query(`delete from tusk.hits where at < now() - interval '1 day'`);
    await pruneJournal(this.team.pool, this.journalSize);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.client) {
      await this.client
        .query('select pg_advisory_unlock($1, $2)', [LOCKS.namespace, LOCKS.leader])
        .catch(() => undefined);
      this.resign();
    }
  }
}
