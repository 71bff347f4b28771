/**
 * Password sign-in throttling: an account with SIGN_IN_FAILS_PER_ACCOUNT refused passwords in the
 * window, or an address with SIGN_IN_FAILS_PER_ADDRESS, gets 429 with Retry-After before the
 * password is checked, until the window ends. Counts live in the shared rate-limit store, so every
 * web process sees them. A right password does not reset the count: a guesser who also knows one
 * account's password gains no extra tries on another.
 */
import type { AppDeps } from '../context';
import { AppError } from '../errors';
import { createWindowCounter } from './rate-limit';

export const SIGN_IN_WINDOW_SECONDS = 15 * 60;
export const SIGN_IN_FAILS_PER_ACCOUNT = 10;
export const SIGN_IN_FAILS_PER_ADDRESS = 30;

export type SignInThrottle = {
  check(email: string, address: string): Promise<void>;
  fail(email: string, address: string): Promise<void>;
};

export function createSignInThrottle(deps: Pick<AppDeps, 'db' | 'config'>, now: () => number = Date.now): SignInThrottle {
  const byAccount = createWindowCounter(SIGN_IN_WINDOW_SECONDS, { deps, name: 'sign_in_account' }, now);
  const byAddress = createWindowCounter(SIGN_IN_WINDOW_SECONDS, { deps, name: 'sign_in_ip' }, now);
  const account = (email: string) => email.trim().toLowerCase();
  return {
    async check(email, address) {
      const [a, b] = await Promise.all([byAccount.read(account(email)), byAddress.read(address)]);
      const over = a.count >= SIGN_IN_FAILS_PER_ACCOUNT ? a : b.count >= SIGN_IN_FAILS_PER_ADDRESS ? b : null;
      if (over) throw new AppError('rate_limited', `Too many failed sign-ins; retry in ${Math.ceil(over.retryAfter / 60)} min`, { retryAfter: over.retryAfter });
    },
    async fail(email, address) {
      await Promise.all([byAccount.record(account(email)), byAddress.record(address)]);
    },
  };
}
