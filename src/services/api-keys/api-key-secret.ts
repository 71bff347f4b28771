import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '../../ids';

/** Keys look like `gw_<40 base62>`: ~238 bits of entropy. The first 12 characters are the visible prefix. */
const KEY_PREFIX = 'gw_';
const PREFIX_LENGTH = 12;
const KEY_SHAPE = /^gw_[0-9A-Za-z]{40}$/;

export function generateApiKey(): { key: string; prefix: string; hash: string } {
  const key = `${KEY_PREFIX}${randomBase62(40)}`;
  return { key, prefix: key.slice(0, PREFIX_LENGTH), hash: hashApiKey(key) };
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function apiKeyPrefix(key: string): string | null {
  return KEY_SHAPE.test(key) ? key.slice(0, PREFIX_LENGTH) : null;
}

/** Constant-time comparison of the presented key's hash with the stored one. */
export function apiKeyMatches(key: string, storedHash: string): boolean {
  const a = Buffer.from(hashApiKey(key), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
