/**
 * Spoken turns go into the same chat session as typed ones, one message at a time (a spoken
 * question's transcript and its answer arrive separately), with the session's bounds.
 */
import { sql } from 'kysely';
import type { ServiceContext } from '../../context';
import { newId, type SessionId } from '../../ids';
import { MAX_MESSAGES_PER_SESSION, newestMessages } from '../chat/sessions';
import { addUsage } from '../insights/usage-daily';

export async function appendVoiceMessage(
  ctx: ServiceContext,
  sessionId: SessionId,
  message: { role: 'user' | 'assistant'; content: string; citations?: unknown[]; at: Date; interrupted?: boolean },
): Promise<void> {
  await ctx.db.transaction().execute(async (trx) => {
    await trx
      .insertInto('chat_messages')
      .values({
        id: newId('msg'),
        session_id: sessionId,
        role: message.role,
        content: message.content,
        citations: JSON.stringify(message.citations ?? []),
        interrupted: message.interrupted ?? false,
        created_at: message.at,
      })
      .execute();
    const session = await trx.updateTable('chat_sessions').set({ updated_at: new Date() }).where('id', '=', sessionId).returning(['kb_id']).executeTakeFirst();
    if (session && message.role === 'user') await addUsage(trx, { org_id: ctx.org.id, kb_id: session.kb_id, at: message.at }, { questions: 1 });
    await sql`delete from chat_messages where id in (
        select id from chat_messages where session_id = ${sessionId}
        order by created_at desc, id desc offset ${MAX_MESSAGES_PER_SESSION})`.execute(trx);
  });
}

/** Seeding bounds: a spoken follow-up needs the last few turns, not the whole conversation. */
export const SEED_MAX_MESSAGES = 10;
export const SEED_MAX_CHARS = 6_000;

/**
 * The conversation's most recent messages, oldest first, for the voice model's context when voice
 * continues a typed conversation (or re-seeds after an upstream drop): at most SEED_MAX_MESSAGES,
 * newest kept first within SEED_MAX_CHARS. Citation markers are dropped: the voice model has not
 * seen those passages, so "[2]" would mean nothing to it.
 */
export async function recentTurnsForVoice(ctx: ServiceContext, sessionId: SessionId): Promise<{ role: 'user' | 'assistant'; content: string }[]> {
  const rows = await newestMessages(ctx, sessionId, SEED_MAX_MESSAGES);
  const out: { role: 'user' | 'assistant'; content: string }[] = [];
  let chars = 0;
  for (const row of rows) {
    const content = row.content.replace(/\s*\[\d+\]/g, '').trim();
    if (!content) continue;
    if (chars + content.length > SEED_MAX_CHARS) break;
    chars += content.length;
    out.push({ role: row.role, content });
  }
  return out.reverse();
}
