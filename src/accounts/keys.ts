// The index from API keys to what they open: a customer key its account and key record, an instance
// key its account and instance. The stores register and revoke the keys they hand out (KeyIndex,
// domain/types.ts); the registry finds a home with one lookup here. Keys are indexed by their
// SHA-256 and the stored key is compared in constant time; the digests of the keys and the keys of
// the Authorization headers clients sent lately are remembered (a digest never changes; revoking
// removes the key from the index).
import { hash, timingSafeEqual } from 'node:crypto';
import { Memo } from '../core/memo.js';
import { keyOfHeader } from '../core/basic-auth.js';
import type { KeyIndex } from '../domain/types.js';

export type KeyTarget =
  { kind: 'customer'; accountId: string; keyId: string } | { kind: 'instance'; accountId: string; instanceId: number };

const digest = (key: string) => hash('sha256', key, 'base64');

type Entries = Map<string, { key: Buffer; target: KeyTarget }>;

/** The index as it was (ApiKeyIndex.save), to put back when a load fails. */
export interface SavedKeys {
  readonly entries: Entries;
}

export class ApiKeyIndex implements KeyIndex {
  private entries: Entries = new Map();
  private readonly digests = new Memo<string>({ size: 10_000 });
  private readonly headers = new Memo<string>({ size: 10_000 });

  addCustomerKey(key: string, accountId: string, keyId: string): void {
    this.entries.set(digest(key), { key: Buffer.from(key), target: { kind: 'customer', accountId, keyId } });
  }

  addInstanceKey(key: string, accountId: string, instanceId: number): void {
    this.entries.set(digest(key), { key: Buffer.from(key), target: { kind: 'instance', accountId, instanceId } });
  }

  revoke(key: string): void {
    this.entries.delete(digest(key));
  }

  /** Whether a key is taken (by any account). */
  has(key: string): boolean {
    return this.entries.has(digest(key));
  }

  /** What a key opens; undefined for a wrong or revoked key. */
  lookup(key: string): KeyTarget | undefined {
    const entry = this.entries.get(this.digests.get(key, digest));
    if (!entry) return undefined;
    const given = Buffer.from(key);
    return entry.key.length === given.length && timingSafeEqual(entry.key, given) ? entry.target : undefined;
  }

  /** The key an Authorization header (HTTP Basic or Bearer) carries, if any. */
  keyOfHeader(header: string): string | undefined {
    return this.headers.get(header, (h) => keyOfHeader(h)) || undefined;
  }

  /** Forgets every key of account `id`. */
  forgetAccount(id: string): void {
    for (const [d, entry] of this.entries) if (entry.target.accountId === id) this.entries.delete(d);
  }

  /** What the index holds now, to put back when a load fails. */
  save(): SavedKeys {
    return { entries: new Map(this.entries) };
  }

  /** Puts back what save() returned. */
  putBack(saved: SavedKeys): void {
    this.entries = saved.entries;
  }

  /** Forgets every key. */
  clear(): void {
    this.entries = new Map();
  }
}
