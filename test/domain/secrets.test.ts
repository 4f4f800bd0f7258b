// randomSecret: the API keys and passwords the stores hand out.
import { describe, expect, it } from 'vitest';
import { SecretSource, randomSecret } from '../../src/domain/secrets.js';

describe('randomSecret', () => {
  it('is exactly as long as asked (32 by default), of URL-safe characters only', () => {
    expect(randomSecret()).toMatch(/^[A-Za-z0-9_-]{32}$/);
    for (const n of [1, 2, 3, 4, 5, 8, 16, 31, 33, 64])
      expect(randomSecret(n), String(n)).toMatch(new RegExp(`^[A-Za-z0-9_-]{${n}}$`));
  });

  it('differs from call to call', () => {
    expect(new Set(Array.from({ length: 100 }, () => randomSecret())).size).toBe(100);
  });
});

describe('SecretSource', () => {
  it('gives secrets exactly as long as asked, URL-safe, all different, across refills of its pool', () => {
    const source = new SecretSource();
    const lengths = [36, 24, 1, 5, 64];
    for (const n of lengths) expect(source.secret(n)).toMatch(new RegExp(`^[A-Za-z0-9_-]{${n}}$`));
    // 4 KiB of pool is about 140 keys and passwords: 2,000 of them refill it many times.
    const many = Array.from({ length: 1000 }, () => [source.secret(36), source.secret(24)]).flat();
    expect(new Set(many).size).toBe(2000);
    expect(source.secret(6000)).toMatch(/^[A-Za-z0-9_-]{6000}$/);
  });
});
