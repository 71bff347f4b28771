/**
 * Who may open a voice session: the widget token's checks (signature, expiry, Origin, allowlist,
 * KB widget on), then voice availability (plan, setting, provider). Every refusal carries the
 * protocol's code (the close-code table in docs/voice.md), which the gateway sends and closes with.
 */
import { VISITOR_ACTOR } from '../access/actor';
import type { KnowledgeBase } from '../../../db/types';
import { createContext, type AppDeps, type ServiceContext } from '../../context';
import { AppError } from '../../errors';
import type { SessionId } from '../../ids';
import { openSession } from '../chat/sessions';
import { planLimits } from '../plans';
import { assertOriginAllowed, loadWidgetKb, requestOrigin } from '../widget/start-widget-session';
import { verifyWidgetToken, widgetTokenKey, type WidgetClaims } from '../widget/widget-token';
import { voiceAvailability } from './voice-availability';
import { providerRefusalReason } from './voice-provider-status';
import type { VoiceSlot, VoiceSlots } from './voice-slots';

export type VoiceRefusalCode =
  | 'invalid_token'
  | 'origin_not_allowed'
  | 'voice_not_in_plan'
  | 'voice_disabled'
  | 'widget_disabled'
  | 'voice_unavailable'
  | 'too_many_voice_sessions'
  | 'protocol_error';

export class VoiceRefusal extends Error {
  constructor(
    readonly code: VoiceRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'VoiceRefusal';
  }
}

export type VoiceCaller = {
  ctx: ServiceContext;
  kb: KnowledgeBase;
  claims: WidgetClaims;
  chatSessionId: SessionId;
  maxConcurrentSessions: number;
  /** The organisation's voice slot this session holds: release it when the session ends. */
  slot: VoiceSlot;
};

const SUBPROTOCOL_TOKEN_PREFIX = 'bearer.';

/** The widget token from the offered subprotocols (`bearer.<token>`), or null. */
export function tokenFromSubprotocols(offered: Iterable<string>): string | null {
  for (const p of offered) if (p.startsWith(SUBPROTOCOL_TOKEN_PREFIX)) return p.slice(SUBPROTOCOL_TOKEN_PREFIX.length) || null;
  return null;
}

/** On success the caller holds one of the organisation's voice slots (`slot`) and must release it when the session ends. */
export async function authorizeVoice(
  deps: AppDeps,
  request: { token: string | null; origin: string | null | undefined; sessionId: string | null; requestId: string },
  slots: VoiceSlots,
): Promise<VoiceCaller> {
  if (!request.token) throw new VoiceRefusal('invalid_token', 'Missing widget session token');
  let claims: WidgetClaims;
  try {
    claims = verifyWidgetToken(await widgetTokenKey(deps), request.token);
  } catch {
    throw new VoiceRefusal('invalid_token', 'The widget session is invalid or has expired; start a new session');
  }
  let origin: string;
  try {
    origin = requestOrigin(request.origin);
  } catch {
    throw new VoiceRefusal('origin_not_allowed', 'The voice connection has no valid Origin');
  }
  if (origin !== claims.origin) throw new VoiceRefusal('origin_not_allowed', 'This widget session belongs to another website');
  const org = await deps.db.selectFrom('organizations').selectAll().where('id', '=', claims.org).executeTakeFirst();
  if (!org) throw new VoiceRefusal('invalid_token', 'The widget session is invalid or has expired; start a new session');
  try {
    assertOriginAllowed(org, origin);
  } catch (err) {
    throw new VoiceRefusal('origin_not_allowed', err instanceof Error ? err.message : 'This website may not use this assistant');
  }
  let kb: KnowledgeBase;
  try {
    kb = await loadWidgetKb(deps, org.id, claims.kb);
  } catch {
    throw new VoiceRefusal('invalid_token', 'The widget session is invalid or has expired; start a new session');
  }
  const voice = voiceAvailability(org, deps.config, await providerRefusalReason(deps));
  if (!voice.available && voice.code !== 'voice_unavailable') throw new VoiceRefusal(voice.code, voice.reason);
  if (!kb.widget_enabled) throw new VoiceRefusal('widget_disabled', 'The assistant is turned off for this knowledge base');
  if (!voice.available) throw new VoiceRefusal(voice.code, voice.reason);

  const maxConcurrentSessions = planLimits(org.plan).maxVoiceSessions;
  const slot = await slots.tryAcquire(org.id, maxConcurrentSessions);
  if (!slot) {
    throw new VoiceRefusal('too_many_voice_sessions', `This organisation already has ${maxConcurrentSessions} voice conversations open; try again shortly`);
  }
  const ctx = createContext(deps, org, { actor: VISITOR_ACTOR, requestId: request.requestId });
  let chatSessionId: SessionId;
  try {
    const session = await openSession(ctx, kb, request.sessionId ?? undefined, 'voice');
    // A typed widget conversation continued by voice is listed as voice: it has a spoken transcript.
    if (session.source === 'widget') await ctx.db.updateTable('chat_sessions').set({ source: 'voice' }).where('id', '=', session.id).execute();
    chatSessionId = session.id;
  } catch (err) {
    await slot.release();
    if (err instanceof AppError && err.code === 'not_found') {
      throw new VoiceRefusal('protocol_error', 'Unknown chat session: omit session_id to start a new conversation');
    }
    throw err;
  }
  return { ctx, kb, claims, chatSessionId, maxConcurrentSessions, slot };
}
