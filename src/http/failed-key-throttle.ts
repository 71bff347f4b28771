/**
 * Failed-key throttling: an address that has presented FAILED_KEYS_PER_ADDRESS refused API keys or
 * widget tokens in the current window, or an API key prefix refused FAILED_KEYS_PER_PREFIX times
 * (a guess spread over many addresses), gets 429 with Retry-After before any database lookup until
 * the window ends. Counts live in the shared rate-limit store, so every web process sees them.
 *
 * Only refusals count: a key that authenticates is never slowed, and the prefix ceiling applies only
 * to addresses that have themselves failed in the window, so guessers cannot lock the holder of a
 * real key (whose prefix is not secret) out of it from elsewhere. Nor from the same address (an
 * office behind one NAT, a shared proxy): a key that authenticated from an address in the window
 * keeps working there when that address is throttled. A key first presented after the throttle
 * began is refused like any guess, so the throttle still stops a guesser finding new keys.
 */
import { createHash } from 'node:crypto';
import type { AppDeps } from '../context';
import { AppError } from '../errors';
import { createWindowCounter } from './rate-limit';

export type FailedKeyThrottle = {
  /**
   * Throws rate_limited when this address (or, for an address that failed before, this prefix) is
   * over its ceiling, unless `key` is one that worked from this address in the window.
   */
  check(address: string, prefix: string | null, key?: string): Promise<void>;
  /** Records one refused key or token from `address`. */
  fail(address: string, prefix: string | null): Promise<void>;
  /** Records that `key` authenticated from `address` (once per window and process). */
  succeed(address: string, key: string): Promise<void>;
};

/** Pairs remembered as recorded in this window, so a busy key writes once per window, not per request. */
const MEMO_LIMIT = 10_000;

export function createFailedKeyThrottle(deps: Pick<AppDeps, 'db' | 'config'>, now: () => number = Date.now): FailedKeyThrottle {
  const { perAddress, perPrefix, windowSeconds } = deps.config.failedKeys;
  const byAddress = createWindowCounter(windowSeconds, { deps, name: 'failed_key_ip' }, now);
  const byPrefix = createWindowCounter(windowSeconds, { deps, name: 'failed_key_prefix' }, now);
  const working = createWindowCounter(windowSeconds, { deps, name: 'working_key' }, now);
  const recorded = new Set<string>();
  let memoWindow = -1;
  // The whole key, hashed: a guess that shares a working key's (public) prefix is not trusted.
  const pair = (address: string, key: string) => `${address} ${createHash('sha256').update(key).digest('base64url').slice(0, 22)}`;
  const refuse = (retryAfter: number) =>
    new AppError('rate_limited', `Too many refused keys; retry in ${retryAfter}s`, { retryAfter });
  return {
    async check(address, prefix, key) {
      const mine = await byAddress.read(address);
      if (mine.count === 0) return;
      if (key && (await working.read(pair(address, key))).count > 0) return;
      if (mine.count >= perAddress) throw refuse(mine.retryAfter);
      if (!prefix) return;
      const guessed = await byPrefix.read(prefix);
      if (guessed.count >= perPrefix) throw refuse(guessed.retryAfter);
    },
    async fail(address, prefix) {
      await Promise.all([byAddress.record(address), prefix ? byPrefix.record(prefix) : null]);
    },
    async succeed(address, key) {
      const window = Math.floor(now() / (windowSeconds * 1000));
      if (window !== memoWindow || recorded.size >= MEMO_LIMIT) {
        recorded.clear();
        memoWindow = window;
      }
      const id = pair(address, key);
      if (recorded.has(id)) return;
      recorded.add(id);
      await working.record(id);
    },
  };
}
