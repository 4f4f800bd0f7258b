// The recipients of one instance: the default recipient (created with the instance, never deleted)
// and those the client adds. Bodies arrive validated against the document (type, value form,
// name length, no unknown fields); this module keeps the rules the schema cannot express.
import { invalid, notFound, limitReached } from '../../core/errors.js';
import { LIST_CAPS } from '../../core/limits.js';
import { cloneJson } from '../../core/clone.js';
import { IdSequence } from '../../domain/ids.js';
import type { Recipient, RecipientBody } from '../../domain/types.js';
import type { RecipientsState } from '../../domain/state.js';

/** The name as returned: its first letter capitalised (the spec's create example: `on-call` -> `On-call`). */
export function capitalise(name: string): string {
  const [first = '', ...rest] = [...name];
  return first.toUpperCase() + rest.join('');
}

const copy = (r: Recipient): Recipient => ({ ...r, options: r.options === null ? null : cloneJson(r.options) });

export class Recipients {
  private readonly items = new Map<number, Recipient>();
  private readonly ids: IdSequence;
  readonly defaultId: number;

  /**
   * @param teamEmail the value of the default recipient
   * @param onDelete called with the id of a deleted recipient (the alarms drop it)
   * @param state a state written by toJSON() to take over instead of the default recipient
   */
  constructor(
    teamEmail: string,
    private readonly onDelete: (id: number) => void,
    state?: RecipientsState,
  ) {
    if (state) {
      this.ids = IdSequence.fromJSON(state.last_id);
      for (const r of state.items) this.items.set(r.id, copy(r));
      this.defaultId = state.default_id;
      return;
    }
    this.ids = new IdSequence();
    this.defaultId = this.ids.next();
    this.items.set(this.defaultId, {
      id: this.defaultId,
      type: 'email',
      value: teamEmail,
      name: 'Default',
      options: null,
    });
  }

  toJSON(): RecipientsState {
    return { last_id: this.ids.toJSON(), default_id: this.defaultId, items: this.list() };
  }

  list(): Recipient[] {
    return [...this.items.values()].map(copy);
  }

  get(id: number): Recipient {
    return copy(this.find(id));
  }

  has(id: number): boolean {
    return this.items.has(id);
  }

  /** `name` absent is stored as `""`; `options` absent as `{}` (as production answers), `null` as null. */
  create(body: RecipientBody): Recipient {
    if (this.items.size >= LIST_CAPS.recipientsPerInstance) {
      throw limitReached(
        'recipients',
        `an instance has at most ${LIST_CAPS.recipientsPerInstance} recipients (the default one included); delete one to create another`,
      );
    }
    const id = this.ids.next();
    const r: Recipient = {
      id,
      type: body.type,
      value: body.value,
      name: capitalise(body.name ?? ''),
      options: body.options === undefined ? {} : body.options === null ? null : cloneJson(body.options),
    };
    this.items.set(id, r);
    return copy(r);
  }

  /** `type` and `value` replace the stored ones; an omitted `name` or `options` keeps its value. */
  update(id: number, body: RecipientBody): Recipient {
    const r = this.find(id);
    r.type = body.type;
    r.value = body.value;
    if (body.name !== undefined) r.name = capitalise(body.name);
    if (body.options !== undefined) r.options = body.options === null ? null : cloneJson(body.options);
    return copy(r);
  }

  /** The default recipient cannot be deleted (400). */
  delete(id: number): void {
    this.find(id);
    if (id === this.defaultId)
      throw invalid(
        'id',
        'not-default',
        `recipient ${id} is the default recipient, which always exists and cannot be deleted`,
      );
    this.items.delete(id);
    this.onDelete(id);
  }

  private find(id: number): Recipient {
    const r = this.items.get(id);
    if (!r) throw notFound('recipient', id);
    return r;
  }
}
