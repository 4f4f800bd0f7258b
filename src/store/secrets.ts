import { randomBytes } from 'node:crypto';

/** A fresh random secret of URL-safe characters (API keys, passwords). */
export function randomSecret(length = 32): string {
  return randomBytes(Math.ceil((length * 3) / 4) + 2).toString('base64url').slice(0, length);
}

/**
 * Random secrets drawn from a pool of random bytes refilled 4 KiB at a time (as crypto.randomUUID
 * does): one draw per call cost more than the rest of making an instance's key and password. One
 * source per registry (StoreContext.secrets).
 */
export class SecretSource {
  private pool = Buffer.alloc(0);
  private at = 0;

  /** A fresh random secret of URL-safe characters, exactly `length` long. */
  secret(length: number): string {
    const size = Math.ceil((length * 3) / 4) + 2;
    if (this.at + size > this.pool.length) {
      this.pool = randomBytes(Math.max(4096, size));
      this.at = 0;
    }
    const bytes = this.pool.subarray(this.at, (this.at += size));
    return bytes.toString('base64url').slice(0, length);
  }
}
