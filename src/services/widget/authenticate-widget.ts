/**
 * The widget's counterpart of authenticateRequest: bearer widget token -> organisation, KB ->
 * ServiceContext. The token must verify, the request must come from the Origin it was issued to,
 * and what was true at issue time must still be true now (origin still allowed, KB still there and
 * still enabled), so switching the widget off or tightening the allowlist takes effect at once.
 */
import { VISITOR_ACTOR } from '../access/actor';
import type { KnowledgeBase } from '../../../db/types';
import { createContext, type AppDeps, type ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { assertOriginAllowed, assertWidgetEnabled, loadWidgetKb, requestOrigin } from './start-widget-session';
import { verifyWidgetToken, widgetTokenKey, type WidgetClaims } from './widget-token';

/** `visitor`: the caller's address as the rate limits key it (bounds the visitor's conversations). */
export type WidgetCaller = { ctx: ServiceContext; kb: KnowledgeBase; claims: WidgetClaims; visitor?: string };

export async function authenticateWidget(
  deps: AppDeps,
  request: { authorization: string | null | undefined; origin: string | null | undefined; requestId: string; visitor?: string },
): Promise<WidgetCaller> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.authorization ?? '')?.[1];
  if (!bearer) throw new AppError('unauthorized', 'Missing widget session token: send it as Authorization: Bearer <token>');
  const claims = verifyWidgetToken(await widgetTokenKey(deps), bearer);
  if (requestOrigin(request.origin) !== claims.origin) {
    throw new AppError('forbidden', 'This widget session belongs to another website');
  }
  const org = await deps.db.selectFrom('organizations').selectAll().where('id', '=', claims.org).executeTakeFirst();
  if (!org) throw new AppError('unauthorized', 'The widget session is invalid or has expired; start a new session');
  assertOriginAllowed(org, claims.origin);
  const kb = await loadWidgetKb(deps, org.id, claims.kb);
  assertWidgetEnabled(kb);
  return { ctx: createContext(deps, org, { actor: VISITOR_ACTOR, requestId: request.requestId }), kb, claims, visitor: request.visitor };
}
