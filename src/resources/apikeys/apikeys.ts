// An account's customer API keys: one per team member and role, registered with the key index
// (domain/types.ts, KeyIndex) so that the registry authenticates them; rotateApiKey revokes the key
// used and issues a new one with the same role, e-mail and comment. Ids are key-N, never reused.
import { randomUUID } from 'node:crypto';
import { notFound } from '../../core/errors.js';
import { IdSequence } from '../../domain/ids.js';
import type { ApiKeyRecord, KeyIndex } from '../../domain/types.js';
import type { AuditWriter } from '../auditlog/audit-log.js';

const sameEmail = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The number a key id ends in (key-12: 12; none: 0). */
export const keyNumber = (id: string): number => Number(/(\d+)$/.exec(id)?.[1] ?? 0);

export class ApiKeys {
  private readonly keys = new Map<string, ApiKeyRecord>();
  private readonly ids = new IdSequence();

  constructor(
    records: readonly ApiKeyRecord[],
    private readonly owner: { accountId: string; index: KeyIndex; log: AuditWriter },
    lastId = 0,
  ) {
    for (const k of records) {
      this.keys.set(k.id, { ...k });
      this.ids.observe(keyNumber(k.id));
      owner.index.addCustomerKey(k.key, owner.accountId, k.id);
    }
    this.ids.observe(lastId);
  }

  /** The last key number handed out. */
  get lastId(): number {
    return this.ids.current;
  }

  get(id: string): ApiKeyRecord | undefined {
    return this.keys.get(id);
  }

  /** The key records (copies). */
  list(): ApiKeyRecord[] {
    return [...this.keys.values()].map((k) => ({ ...k }));
  }

  /** Revokes the key `keyId` and issues a new one with the same role, e-mail and comment. */
  rotate(keyId: string): { apikey: string } {
    const old = this.keys.get(keyId);
    if (!old) throw notFound('API key', keyId);
    const fresh: ApiKeyRecord = {
      id: `key-${this.ids.next()}`,
      key: randomUUID(),
      role: old.role,
      comment: old.comment,
      email: old.email,
    };
    this.owner.index.revoke(old.key);
    this.keys.delete(old.id);
    this.keys.set(fresh.id, fresh);
    this.owner.index.addCustomerKey(fresh.key, this.owner.accountId, fresh.id);
    this.owner.log(old, 'apikey.rotate', [
      ['role', old.role],
      ['comment', old.comment],
    ]);
    return { apikey: fresh.key };
  }

  /** Revokes every key acting for `email` (a team member removed). */
  revokeFor(email: string): void {
    for (const k of [...this.keys.values()].filter((x) => sameEmail(x.email, email))) {
      this.owner.index.revoke(k.key);
      this.keys.delete(k.id);
    }
  }
}
