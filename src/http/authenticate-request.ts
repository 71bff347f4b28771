/**
 * The one door every API transport goes through: API key (or, for GraphQL only, the dashboard's
 * session cookie) -> organisation -> rate limit -> ServiceContext. REST, GraphQL and tRPC call this
 * and nothing else to learn who is calling.
 */
import { createContext, type AppDeps, type ServiceContext } from '../context';
import { assertDashboardRequest, readSessionCookie } from './session-cookie';
import { authenticateAdminSession } from '../services/admin-sessions/authenticate-admin-session';
import { authenticateApiKey } from '../services/api-keys/authenticate-api-key';
import { apiKeyPrefix } from '../services/api-keys/api-key-secret';
import { AppError } from '../errors';
import { apiKeyActor, type Actor } from '../services/access/actor';
import type { FailedKeyThrottle } from './failed-key-throttle';
import type { SignInThrottle } from './sign-in-throttle';
import type { RateLimiter } from './rate-limit';

export type HttpDeps = AppDeps & { rateLimiter: RateLimiter; failedKeys: FailedKeyThrottle; signIns: SignInThrottle };

export async function authenticateRequest(
  deps: HttpDeps,
  headers: Headers,
  requestId: string,
  /**
   * `cost`: rate-limit points the request uses (a GraphQL request with 50 root fields costs 50).
   * `receivedAt`: when the request arrived (its time budgets count from there, authentication included).
   * `clientIp`: the caller's address as rate limits key it (refused keys are counted per address).
   * `signal`: a read's request signal, which stops its database work when it aborts (src/context.ts).
   */
  opts: { sessionCookie?: boolean; cost?: number; receivedAt?: number; clientIp?: string; signal?: AbortSignal } = {},
): Promise<ServiceContext> {
  const { ctx, charge } = await identifyRequest(deps, headers, requestId, opts);
  await charge(opts.cost ?? 1);
  return ctx;
}

/**
 * Who is calling, with the rate limit not yet charged: `charge(points)` charges the key or dashboard
 * session once the request's cost is known. GraphQL prices a read from the caller's own chunk sizes
 * before charging it (src/graphql/limits.ts), and this lets it do so with one key lookup.
 */
export async function identifyRequest(
  deps: HttpDeps,
  headers: Headers,
  requestId: string,
  opts: { sessionCookie?: boolean; receivedAt?: number; clientIp?: string; signal?: AbortSignal } = {},
): Promise<{ ctx: ServiceContext; charge: (points: number) => Promise<void> }> {
  const apiKey = headers.get('x-api-key');
  const session = opts.sessionCookie && !apiKey ? readSessionCookie(headers) : null;
  if (session) {
    assertDashboardRequest(headers, { trustProxy: deps.config.trustProxy });
    const { org, sessionId, user } = await authenticateAdminSession(deps, session);
    const ip = opts.clientIp ?? null;
    // A person acts with their role; a session opened with a full API key acts as an owner.
    const actor: Actor = user
      ? { type: 'user', id: user.id, label: user.email, role: user.role, scope: 'full', sessionId, ip }
      : { type: 'key_session', id: null, label: 'dashboard session (API key)', role: 'owner', scope: 'full', sessionId, ip };
    return { ctx: createContext(deps, org, { actor, requestId, receivedAt: opts.receivedAt, signal: opts.signal }), charge: (points) => deps.rateLimiter.consume(sessionId, points) };
  }
  const { org, apiKeyId, prefix, scope } = await authenticateThrottled(deps, apiKey, opts.clientIp ?? 'unknown');
  const actor = apiKeyActor({ id: apiKeyId, prefix, scope }, opts.clientIp);
  return { ctx: createContext(deps, org, { apiKeyId, actor, requestId, receivedAt: opts.receivedAt, signal: opts.signal }), charge: (points) => deps.rateLimiter.consume(apiKeyId, points) };
}

/** A presented key from an address (or for a prefix) that keeps failing is refused before its lookup. */
async function authenticateThrottled(deps: HttpDeps, apiKey: string | null, address: string) {
  if (!apiKey) return authenticateApiKey(deps, apiKey);
  const prefix = apiKeyPrefix(apiKey.trim());
  const key = apiKey.trim();
  await deps.failedKeys.check(address, prefix, key);
  try {
    const found = await authenticateApiKey(deps, apiKey);
    await deps.failedKeys.succeed(address, key);
    return found;
  } catch (err) {
    if (err instanceof AppError && err.code === 'unauthorized') await deps.failedKeys.fail(address, prefix);
    throw err;
  }
}
