// A replica's copies of the team's state: the registry holds every account's home, as one process
// does, and this remembers, per account, the version of the row it was loaded from (or last wrote)
// and the text of that row, so that a replica knows when its copy is older than the team's, and a
// write knows what changed (an account whose dump and faults read the same is not written). It
// turns rows into homes (load, adopt) and homes back into rows (writeBack, writeAll).
import type { Registry } from '../accounts/registry.js';
import type { AccountHome } from '../accounts/home.js';
import { STATE_VERSION, type RegistryState } from '../domain/state.js';
import {
  accountVersions,
  allAccounts,
  deleteAccount,
  keyDigest,
  readAccount,
  readServer,
  writeAccount,
  writeServer,
  type AccountRow,
  type Queryable,
  type ServerPart,
} from './rows.js';

/** What a copy of an account was loaded from. */
interface Copy {
  version: number;
  /** The text of the row's dump and faults as last read or written (what a write compares with). */
  text: string;
  /** The digests of its keys, joined (the keys' rows are written again only when they change). */
  digests: string;
}

const textOf = (row: Pick<AccountRow, 'dump' | 'faults'>): string => JSON.stringify([row.dump, row.faults]);

/** The digests of every key an account's dump holds (its customer keys and its instances' keys). */
function digestsOf(row: AccountRow): string[] {
  const a = row.dump.account;
  return [...a.keys.map((k) => k.key), ...a.instances.map((x) => x.apikey)].map(keyDigest).sort();
}

export class Copies {
  /** The generation the registry's set of accounts and server's part were loaded at (-1: none yet). */
  generation = -1;
  private readonly copies = new Map<string, Copy>();
  private serverText = '';

  constructor(private readonly registry: Registry) {}

  /** The version of the copy of account `id` (-1: none). */
  version(id: string): number {
    return this.copies.get(id)?.version ?? -1;
  }

  /** Forgets the copy of an account (the next request loads it again). */
  forget(id: string): void {
    this.copies.delete(id);
  }

  /** Forgets every copy (the next request loads the whole state again). */
  forgetAll(): void {
    this.copies.clear();
    this.generation = -1;
  }

  /** Makes the registry hold every account the database holds, and the server's part. */
  async loadAll(db: Queryable): Promise<void> {
    const { generation, server } = await readServer(db);
    const rows = await allAccounts(db);
    const state: RegistryState = {
      tusk_state: STATE_VERSION,
      seed: server!.seed,
      clock: server!.clock,
      outbox: {
        last_id: server!.outbox_last_id,
        entries: rows.flatMap((r) => r.dump.outbox.entries.map((e) => ({ ...e, account: r.id }))),
      },
      accounts: rows.map((r) => r.dump.account),
    };
    this.registry.load(state);
    this.registry.faults.set(server!.faults.rules, server!.faults.seed);
    this.copies.clear();
    for (const r of rows) this.adopt(r, false);
    this.generation = generation;
    this.serverText = JSON.stringify(server);
  }

  /** Makes every copy as current as the team's: everything when the generation changed, else each older account. */
  async sync(db: Queryable): Promise<void> {
    const { generation } = await readServer(db);
    if (generation !== this.generation) return this.loadAll(db);
    for (const [id, version] of await accountVersions(db)) {
      if (this.version(id) === version) continue;
      const got = await readAccount(db, id, this.version(id));
      if (got.row) this.adopt(got.row);
    }
  }

  /**
   * Takes over one account's row (`load`: into the registry; else the registry holds it already). A
   * row no newer than the copy is not taken: a read that began before a write here ended would bring
   * back what that write changed.
   */
  adopt(row: AccountRow, load = true): void {
    if (load && row.version <= this.version(row.id)) return;
    if (load) this.registry.putAccount(row.dump);
    if (row.fixture) this.registry.setAddedFixture(row.id, row.fixture);
    const home = this.registry.home(row.id)!;
    if (row.faults) home.faultsToSet().set(row.faults.rules, row.faults.seed);
    else home.faults?.clear();
    this.copies.set(row.id, { version: row.version, text: textOf(row), digests: digestsOf(row).join() });
  }

  /**
   * Writes back what changed: every account whose dump or faults differ from its copy (its version
   * one more), the accounts gone, and the server's part with a new generation when it or the set of
   * accounts changed; `all`: every account, as the first state.
   */
  async writeAll(db: Queryable, all = false): Promise<void> {
    const seen = new Set<string>();
    let changedSet = all;
    for (const home of this.registry.allHomes()) {
      seen.add(home.id);
      if (!this.copies.has(home.id)) changedSet = true;
      await this.writeBack(db, home, all);
    }
    for (const id of [...this.copies.keys()])
      if (!seen.has(id)) {
        await deleteAccount(db, id);
        this.copies.delete(id);
        changedSet = true;
      }
    const server = this.serverPart();
    const text = JSON.stringify(server);
    if (!changedSet && text === this.serverText) return;
    this.generation = Math.max(this.generation, 0) + 1;
    await writeServer(db, this.generation, server);
    this.serverText = text;
  }

  /** Writes one account back when it changed (or `always`), with its keys when they changed. */
  async writeBack(db: Queryable, home: AccountHome, always = false): Promise<void> {
    const copy = this.copies.get(home.id);
    const row: AccountRow = {
      id: home.id,
      version: (copy?.version ?? 0) + 1,
      dump: home.dump(),
      faults: home.faults?.active ? { seed: home.faults.currentSeed, rules: home.faults.list() } : null,
      fixture: this.registry.addedFixture(home.id) ?? null,
    };
    const text = textOf(row);
    if (!always && copy?.text === text) return;
    const digests = digestsOf(row).join();
    await writeAccount(db, row, copy?.digests === digests ? undefined : digests ? digests.split(',') : []);
    this.copies.set(home.id, { version: row.version, text, digests });
  }

  /** The server's part of the registry now. */
  private serverPart(): ServerPart {
    const r = this.registry;
    return {
      seed: r.seed,
      clock: r.clock.toJSON(),
      faults: { seed: r.faults.currentSeed, rules: r.faults.list() },
      outbox_last_id: r.outbox.toJSON().last_id,
    };
  }
}
