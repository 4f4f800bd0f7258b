import { randomBytes } from 'node:crypto';

/** A fresh random secret of URL-safe characters (API keys, passwords). */
export function randomSecret(length = 32): string {
  return randomBytes(Math.ceil((length * 3) / 4) + 2).toString('base64url').slice(0, length);
}
