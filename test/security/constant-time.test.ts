// Keys are compared in constant time: the registry finds a key by its SHA-256 digest (a hash-map
// lookup whose time does not depend on how much of the key is right) and compares the stored key
// with crypto.timingSafeEqual, never with ===. node:crypto is mocked with spies that call through.
import { describe, expect, it, vi } from 'vitest';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  const spies = { timingSafeEqual: vi.fn(actual.timingSafeEqual), hash: vi.fn(actual.hash) };
  return { ...actual, ...spies, default: { ...actual, ...spies } };
});

const crypto = await import('node:crypto');
const { Registry } = await import('../../src/accounts/registry.js');
const { readContractRules } = await import('../../src/openapi/rules.js');
const { loadDocuments } = await import('../../src/openapi/documents.js');

const KEY = 'constant-time-admin-key';

describe('the comparison path of a key', () => {
  it('a valid key: looked up by its SHA-256, then one timingSafeEqual of equal-length buffers', async () => {
    const registry = new Registry({
      seed: 7,
      adminKey: KEY,
      rules: readContractRules((await loadDocuments()).instance),
    });
    vi.mocked(crypto.timingSafeEqual).mockClear();
    expect(registry.authenticateCustomer(KEY)?.key.role).toBe('admin');
    // The index is keyed by the SHA-256 of the key (computed once per key or per request).
    expect(vi.mocked(crypto.hash)).toHaveBeenCalledWith('sha256', KEY, 'base64');
    expect(vi.mocked(crypto.timingSafeEqual)).toHaveBeenCalledTimes(1);
    const [a, b] = vi.mocked(crypto.timingSafeEqual).mock.calls[0]! as [Buffer, Buffer];
    expect(Buffer.from(a).equals(Buffer.from(KEY))).toBe(true);
    expect(Buffer.from(b).equals(Buffer.from(KEY))).toBe(true);
  });

  it('a wrong key of any length, a near miss included, never reaches a character-by-character comparison', async () => {
    const registry = new Registry({
      seed: 7,
      adminKey: KEY,
      rules: readContractRules((await loadDocuments()).instance),
    });
    vi.mocked(crypto.timingSafeEqual).mockClear();
    for (const wrong of [
      'constant-time-admin-kez',
      'xonstant-time-admin-key',
      'constant-time-admin-ke',
      `${KEY} `,
      'x',
      'k'.repeat(10_000),
    ]) {
      expect(registry.authenticateCustomer(wrong)).toBeUndefined();
      expect(registry.authenticateInstance(wrong)).toBeUndefined();
    }
    // The digest misses, so no comparison runs at all (and `===` is never used on keys).
    expect(vi.mocked(crypto.timingSafeEqual)).not.toHaveBeenCalled();
  });

  it('a customer key on the instance interface (and the reverse) is refused after the same comparison', async () => {
    const registry = new Registry({
      seed: 7,
      adminKey: KEY,
      rules: readContractRules((await loadDocuments()).instance),
    });
    const account = [...registry.allHomes()].map((h) => h.records)[0]!;
    const instanceKey = account.instanceStore(account.instances.list()[0]!.id)!.apikey;
    vi.mocked(crypto.timingSafeEqual).mockClear();
    expect(registry.authenticateInstance(KEY)).toBeUndefined();
    expect(registry.authenticateCustomer(instanceKey)).toBeUndefined();
    expect(vi.mocked(crypto.timingSafeEqual)).toHaveBeenCalledTimes(2);
  });
});
