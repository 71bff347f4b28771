/**
 * Spoken turns go into the same chat session as typed ones, one message at a time (a spoken
 * question's transcript and its answer arrive separately), with the session's bounds.
 */
import { sql } from 'kysely';
import type { ServiceContext } from '../../context';
import { newId, type SessionId } from '../../ids';
import { MAX_MESSAGES_PER_SESSION } from '../chat/sessions';
import { addUsage } from '../insights/usage-daily';

export async function appendVoiceMessage(
  ctx: ServiceContext,
  sessionId: SessionId,
  message: { role: 'user' | 'assistant'; content: string; citations?: unknown[]; at: Date },
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
