/**
 * Passwords are stored as scrypt (memory-hard, in Node's crypto) with a per-password salt:
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>`, so the cost can rise later and old hashes still verify.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { AppError } from '../../errors';

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions) =>
  new Promise<Buffer>((resolve, reject) => scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))));

/** N=2^15, r=8: 32 MiB of memory per hash (about 0.1 s per core); p=2 doubles the work, not the memory. */
const COST = { N: 2 ** 15, r: 8, p: 2 } as const;
const KEY_LENGTH = 32;
export const PASSWORD_MIN = 10;
export const PASSWORD_MAX = 200;

export function assertPasswordShape(password: string): void {
  if (password.length < PASSWORD_MIN) throw new AppError('invalid_input', `A password needs at least ${PASSWORD_MIN} characters`, { field: 'password' });
  if (password.length > PASSWORD_MAX) throw new AppError('invalid_input', `A password has at most ${PASSWORD_MAX} characters`, { field: 'password' });
}

export async function hashPassword(password: string): Promise<string> {
  assertPasswordShape(password);
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, KEY_LENGTH, { ...COST, maxmem: 64 * 1024 * 1024 });
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const parts = stored?.split('$') ?? [];
  if (parts.length !== 6 || parts[0] !== 'scrypt' || password.length > PASSWORD_MAX) {
    // Spend the same time as a real check, so an unknown account does not answer faster.
    await scrypt(password.slice(0, PASSWORD_MAX), Buffer.alloc(16), KEY_LENGTH, { ...COST, maxmem: 64 * 1024 * 1024 });
    return false;
  }
  const [, n, r, p, salt, hash] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(hash, 'base64url');
  const key = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(n), r: Number(r), p: Number(p), maxmem: 64 * 1024 * 1024 });
  return timingSafeEqual(key, expected);
}
