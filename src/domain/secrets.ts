import { randomBytes } from 'node:crypto';

/** Random bytes enough for `length` base64url characters. */
const bytesFor = (length: number) => Math.ceil((length * 3) / 4) + 2;
const asSecret = (bytes: Buffer, length: number) => bytes.toString('base64url').slice(0, length);

/** A fresh random secret of URL-safe characters (API keys, passwords). */
export function randomSecret(length = 32): string {
  return asSecret(randomBytes(bytesFor(length)), length);
}

/**
 * Random secrets drawn from a pool of random bytes refilled 4 KiB at a time (as crypto.randomUUID
 * does): one draw from the system per call would cost more than the rest of making an instance's
 * key and password. One source per registry (StoreContext.secrets).
 */
export class SecretSource {
  private pool = Buffer.alloc(0);
  private at = 0;

  /** A fresh random secret of URL-safe characters, exactly `length` long. */
  secret(length: number): string {
    const size = bytesFor(length);
    if (this.at + size > this.pool.length) {
      this.pool = randomBytes(Math.max(4096, size));
      this.at = 0;
    }
    return asSecret(this.pool.subarray(this.at, (this.at += size)), length);
  }
}
