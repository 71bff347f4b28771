/**
 * The one door every API transport goes through: API key (or, for GraphQL only, the dashboard's
 * session cookie) -> organisation -> rate limit -> ServiceContext. REST, GraphQL and tRPC call this
 * and nothing else to learn who is calling.
 */
import { createContext, type AppDeps, type ServiceContext } from '../context';
import { assertDashboardRequest, readSessionCookie } from './session-cookie';
import { authenticateAdminSession } from '../services/admin-sessions/authenticate-admin-session';
import { authenticateApiKey } from '../services/api-keys/authenticate-api-key';
import type { RateLimiter } from './rate-limit';

export type HttpDeps = AppDeps & { rateLimiter: RateLimiter };

export async function authenticateRequest(
  deps: HttpDeps,
  headers: Headers,
  requestId: string,
  /**
   * `cost`: rate-limit points the request uses (a GraphQL request with 50 root fields costs 50).
   * `receivedAt`: when the request arrived (its time budgets count from there, authentication included).
   */
  opts: { sessionCookie?: boolean; cost?: number; receivedAt?: number } = {},
): Promise<ServiceContext> {
  const apiKey = headers.get('x-api-key');
  const session = opts.sessionCookie && !apiKey ? readSessionCookie(headers) : null;
  if (session) {
    assertDashboardRequest(headers, { trustProxy: deps.config.trustProxy });
    const { org, sessionId } = await authenticateAdminSession(deps, session);
    await deps.rateLimiter.consume(sessionId, opts.cost ?? 1);
    return createContext(deps, org, { requestId, receivedAt: opts.receivedAt });
  }
  const { org, apiKeyId } = await authenticateApiKey(deps, apiKey);
  await deps.rateLimiter.consume(apiKeyId, opts.cost ?? 1);
  return createContext(deps, org, { apiKeyId, requestId, receivedAt: opts.receivedAt });
}
