/**
 * Rate limiting: a token bucket per key, refilled every minute. The one entry point for every
 * limit (API keys, widget IPs and sessions, and whatever comes next).
 *
 * On PostgreSQL the buckets live in the database (rate-limiter-flexible's PostgreSQL store, table
 * `rate_limits` from migration 0402), so a limit holds across all web processes: two processes
 * do not each allow the full rate. On the embedded default there is one process and the buckets
 * stay in memory. If the database cannot be reached, an in-memory bucket per process stands in
 * (the request itself then fails with a clean 503; the limiter does not turn that into a 500).
 */
import { CompiledQuery } from 'kysely';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { AppDeps } from '../context';
import { AppError } from '../errors';

/** `points`: what the request costs (1 for most; GraphQL charges one per root field). */
export type RateLimiter = { consume(key: string, points?: number): Promise<void> };

/** Shared across processes when given the service's deps on PostgreSQL; `name` keeps limits apart. */
export type SharedLimit = { deps: Pick<AppDeps, 'db' | 'config'>; name: string };

export function createRateLimiter(pointsPerMinute: number, shared?: SharedLimit): RateLimiter {
  const limiter = createStore(pointsPerMinute, shared);
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

/**
 * Counts events (refused keys, feedback) in fixed windows of `windowSeconds` on the same store. The window's
 * number is part of the key, so a window ends when `now` says so: tests move an injected clock and the
 * count starts over on both stores without waiting for the store's own expiry.
 */
export type WindowCounter = {
  /** Events recorded for `key` in the current window, and seconds until that window ends. */
  read(key: string): Promise<{ count: number; retryAfter: number }>;
  record(key: string): Promise<void>;
};

export function createWindowCounter(windowSeconds: number, shared: SharedLimit | undefined, now: () => number): WindowCounter {
  // Points are never consumed here, only added (penalty); the ceiling is the caller's.
  const store = createStore(Number.MAX_SAFE_INTEGER, shared, windowSeconds + 1);
  const windowMs = windowSeconds * 1000;
  const at = (key: string) => {
    const t = now();
    const window = Math.floor(t / windowMs);
    return { key: `${key}@${window}`, retryAfter: Math.max(1, Math.ceil(((window + 1) * windowMs - t) / 1000)) };
  };
  return {
    async read(key) {
      const { key: k, retryAfter } = at(key);
      const res = await store.get(k);
      return { count: res?.consumedPoints ?? 0, retryAfter };
    },
    async record(key) {
      await store.penalty(at(key).key, 1);
    },
  };
}

function createStore(points: number, shared?: SharedLimit, duration = 60): RateLimiterAbstract {
  const memory = new RateLimiterMemory({ points, duration });
  if (!shared || shared.deps.config.database.kind !== 'postgres') return memory;
  const { db } = shared.deps;
  // The store speaks to a pg-like client; this one runs its statements through the service's pool.
  const storeClient = {
    query: (q: { text: string; values?: unknown[] }) => db.executeQuery(CompiledQuery.raw(q.text, q.values ?? [])),
  };
  return new RateLimiterPostgres({
    storeClient,
    storeType: 'pool',
    tableName: 'rate_limits',
    tableCreated: true,
    keyPrefix: shared.name,
    points,
    duration,
    insuranceLimiter: memory,
  });
}
