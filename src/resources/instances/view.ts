// The account's instance list as the bytes of its answer (listInstances), next to the rules in
// instances.ts that decide what it shows: each instance's summary is kept as JSON with the
// instance's revision (which changes with its name, tags, plan and password: every field of a
// summary that can change) and the engine's address in its url, and the whole answer with the
// instances and their revisions, so an unchanged list costs a comparison of numbers per instance.
// Tested to equal JSON.stringify of the list after every kind of change.
import type { InstanceSummary } from '../../domain/types.js';
import type { InstanceStore } from './instance.js';

/** What the view is made from (Instances). */
export interface InstanceLists {
  sorted(): InstanceStore[];
  summary(i: InstanceStore): InstanceSummary;
  urlEpoch(): string;
  readonly version: number;
}

/** An instance summary as JSON, with the instance's revision and the url epoch it was made for. */
interface SummaryJson {
  revision: number;
  epoch: string;
  text: string;
}

/** The last answer and what it was made from. */
interface Answer {
  version: number;
  epoch: string;
  /** The instances in id order, and the revision of each when the bytes were made. */
  list: InstanceStore[];
  revisions: number[];
  bytes: Uint8Array;
}

export class InstancesView {
  private readonly summaries = new WeakMap<InstanceStore, SummaryJson>();
  private last: Answer | undefined;

  constructor(private readonly instances: InstanceLists) {}

  list(): Uint8Array {
    const epoch = this.instances.urlEpoch();
    const last = this.last;
    const version = this.instances.version;
    const sameSet = last !== undefined && last.version === version;
    if (sameSet && last.epoch === epoch && last.list.every((i, k) => i.revision === last.revisions[k]))
      return last.bytes;
    const list = sameSet ? last.list : this.instances.sorted();
    const texts = list.map((i) => {
      let item = this.summaries.get(i);
      if (!item || item.revision !== i.revision || item.epoch !== epoch) {
        item = { revision: i.revision, epoch, text: JSON.stringify(this.instances.summary(i)) };
        this.summaries.set(i, item);
      }
      return item.text;
    });
    const bytes = Buffer.from(`[${texts.join(',')}]`);
    this.last = { version, epoch, list, revisions: list.map((i) => i.revision), bytes };
    return bytes;
  }
}
