/**
 * Per-API-key rate limiting (a token bucket per key, refilled every minute). In-process: with
 * several web processes each enforces its own share; documented in the README.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError } from '../errors';

/** `points`: what the request costs (1 for most; GraphQL charges one per root field). */
export type RateLimiter = { consume(key: string, points?: number): Promise<void> };

export function createRateLimiter(pointsPerMinute: number): RateLimiter {
  const limiter = new RateLimiterMemory({ points: pointsPerMinute, duration: 60 });
  return {
    async consume(key, points = 1) {
      try {
        await limiter.consume(key, points);
      } catch (res) {
        if (res instanceof RateLimiterRes) {
          const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
          throw new AppError('rate_limited', `Rate limit of ${pointsPerMinute} requests per minute exceeded; retry in ${retryAfter}s`, { retryAfter });
        }
        throw res;
      }
    },
  };
}
