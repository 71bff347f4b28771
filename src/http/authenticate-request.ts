/**
 * The one door every API transport goes through: API key -> organisation -> rate limit ->
 * ServiceContext. REST, GraphQL and tRPC call this and nothing else to learn who is calling.
 */
import { createContext, type AppDeps, type ServiceContext } from '../context';
import { authenticateApiKey } from '../services/api-keys/authenticate-api-key';
import type { RateLimiter } from './rate-limit';

export type HttpDeps = AppDeps & { rateLimiter: RateLimiter };

/** `cost`: rate-limit points the request uses (a GraphQL request with 50 root fields costs 50). */
export async function authenticateRequest(deps: HttpDeps, headers: Headers, requestId: string, cost = 1): Promise<ServiceContext> {
  const { org, apiKeyId } = await authenticateApiKey(deps, headers.get('x-api-key'));
  await deps.rateLimiter.consume(apiKeyId, cost);
  return createContext(deps, org, { apiKeyId, requestId });
}
