import { randomBytes } from 'node:crypto';

/** A fresh random secret of URL-safe characters (API keys, passwords). */
export function randomSecret(length = 32): string {
  return randomBytes(Math.ceil((length * 3) / 4) + 2).toString('base64url').slice(0, length);
}

/** Fresh random secrets of these lengths from one draw of random bytes (a new instance's key and password). */
export function randomSecrets(...lengths: number[]): string[] {
  const sizes = lengths.map((length) => Math.ceil((length * 3) / 4) + 2);
  const bytes = randomBytes(sizes.reduce((a, b) => a + b, 0));
  let at = 0;
  return lengths.map((length, k) => bytes.subarray(at, (at += sizes[k]!)).toString('base64url').slice(0, length));
}
