// randomSecret: the API keys and passwords the stores hand out.
import { describe, expect, it } from 'vitest';
import { randomSecret, randomSecrets } from '../../src/store/secrets.js';

describe('randomSecret', () => {
  it('is exactly as long as asked (32 by default), of URL-safe characters only', () => {
    expect(randomSecret()).toMatch(/^[A-Za-z0-9_-]{32}$/);
    for (const n of [1, 2, 3, 4, 5, 8, 16, 31, 33, 64]) expect(randomSecret(n), String(n)).toMatch(new RegExp(`^[A-Za-z0-9_-]{${n}}$`));
  });

  it('differs from call to call', () => {
    expect(new Set(Array.from({ length: 100 }, () => randomSecret())).size).toBe(100);
  });
});

describe('randomSecrets', () => {
  it('gives one secret per length asked, each exactly that long, URL-safe, all different', () => {
    const lengths = [36, 24, 1, 5, 64];
    const secrets = randomSecrets(...lengths);
    expect(secrets.map((s) => s.length)).toEqual(lengths);
    for (const s of secrets) expect(s).toMatch(/^[A-Za-z0-9_-]+$/);
    const many = Array.from({ length: 50 }, () => randomSecrets(36, 24)).flat();
    expect(new Set(many).size).toBe(100);
  });
});
