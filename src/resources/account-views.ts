// The customer interface's lists as the bytes of their answers, next to the rules in account-store.ts
// that decide what they show: each view is made from the account's own list (listInstances,
// listRegions, ...) and kept until what it shows changes, so an unchanged list is answered with the
// bytes made last time. Each is tested to equal JSON.stringify of its list (or the CSV of the audit
// log) after every kind of change (test/store/account.test.ts).
import { Memo } from '../core/memo.js';
import type { InstanceStore } from './instances/instance.js';
import type { InstanceSummary, InvoiceSummary, Plan, Region, TeamMember } from '../domain/types.js';

/** What the views are made from: the account's own lists and the versions that say they changed (AccountStore). */
export interface AccountLists {
  listRegions(provider?: string): Region[];
  listPlans(backend?: string): Plan[];
  listInvoices(from?: string, to?: string): InvoiceSummary[];
  listTeamMembers(): TeamMember[];
  auditLogCsv(month?: string): string;
  sortedInstances(): InstanceStore[];
  summary(i: InstanceStore): InstanceSummary;
  /** The database engine's address in every url, once it has one. */
  urlEpoch(): string;
  readonly instancesVersion: number;
  readonly teamVersion: number;
  readonly auditVersion: number;
}

/** An instance summary as JSON, with the instance's revision and the url epoch it was made for. */
interface SummaryJson {
  revision: number;
  epoch: string;
  text: string;
}

/** The last answer of instances() and what it was made from. */
interface InstancesAnswer {
  instancesVersion: number;
  epoch: string;
  /** The instances in id order, and the revision of each when the bytes were made. */
  list: InstanceStore[];
  revisions: number[];
  bytes: Uint8Array;
}

const bytesOf = (value: unknown) => Buffer.from(JSON.stringify(value));

export class AccountViews {
  /** regions() and plans(): the bytes of each filter asked for (bounded; the catalogue never changes). */
  private readonly catalogue = new Memo<Uint8Array>({ size: 64 });
  /** invoices(): the bytes of each range asked for (bounded; invoices never change). */
  private readonly invoiceRanges = new Memo<Uint8Array>({ size: 64 });
  /** instances(): each instance's summary as JSON with what it was made from, and the last answer. */
  private readonly summaries = new WeakMap<InstanceStore, SummaryJson>();
  private lastInstances: InstancesAnswer | undefined;
  private lastTeam: { version: number; bytes: Uint8Array } | undefined;
  /** The CSV last made, for the audit log's version and the month it was made for. */
  private lastCsv: { version: number; month: string | undefined; bytes: Uint8Array } | undefined;

  constructor(private readonly account: AccountLists) {}

  regions(provider?: string): Uint8Array {
    return this.catalogue.get(`regions|${provider ?? ''}`, () => bytesOf(this.account.listRegions(provider)));
  }

  plans(backend?: string): Uint8Array {
    return this.catalogue.get(`plans|${backend ?? ''}`, () => bytesOf(this.account.listPlans(backend)));
  }

  /** A range that is refused is refused every time (listInvoices throws before anything is kept). */
  invoices(from?: string, to?: string): Uint8Array {
    return this.invoiceRanges.get(`${from ?? ''}|${to ?? ''}`, () => bytesOf(this.account.listInvoices(from, to)));
  }

  /**
   * listInstances(): each instance's JSON is kept with the instance's revision (which changes with
   * its name, tags, plan and password: every field of a summary that can change) and the engine's
   * address in its url, and the whole answer with the instances and their revisions, so an
   * unchanged list costs a comparison of numbers per instance.
   */
  instances(): Uint8Array {
    const epoch = this.account.urlEpoch();
    const last = this.lastInstances;
    const version = this.account.instancesVersion;
    const sameSet = last !== undefined && last.instancesVersion === version;
    if (sameSet && last.epoch === epoch && last.list.every((i, k) => i.revision === last.revisions[k]))
      return last.bytes;
    const list = sameSet ? last.list : this.account.sortedInstances();
    const texts = list.map((i) => {
      let item = this.summaries.get(i);
      if (!item || item.revision !== i.revision || item.epoch !== epoch) {
        item = { revision: i.revision, epoch, text: JSON.stringify(this.account.summary(i)) };
        this.summaries.set(i, item);
      }
      return item.text;
    });
    const bytes = Buffer.from(`[${texts.join(',')}]`);
    this.lastInstances = { instancesVersion: version, epoch, list, revisions: list.map((i) => i.revision), bytes };
    return bytes;
  }

  /** listTeamMembers(), made again only after a change to the team. */
  team(): Uint8Array {
    const version = this.account.teamVersion;
    if (this.lastTeam?.version !== version) this.lastTeam = { version, bytes: bytesOf(this.account.listTeamMembers()) };
    return this.lastTeam.bytes;
  }

  /** auditLogCsv(month), made again only after the next audit row (or for another month). */
  auditCsv(month?: string): Uint8Array {
    const version = this.account.auditVersion;
    const last = this.lastCsv;
    if (last?.version === version && last.month === month) return last.bytes;
    const bytes = Buffer.from(this.account.auditLogCsv(month));
    this.lastCsv = { version, month, bytes };
    return bytes;
  }
}
