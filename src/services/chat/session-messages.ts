/** Dashboard operations on a conversation: read its messages, or forget it. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { sql } from 'kysely';
import { selectConversations, toConversation } from './list-conversations';
import { requireSession } from './sessions';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const ZSessionRef = z.object({ kb_id: z.string().min(1), session_id: z.string().min(1) }).strict();

/** A conversation's messages, for the dashboard and API clients that may read the organisation's content. */
export async function listSessionMessages(ctx: ServiceContext, rawInput: z.input<typeof ZSessionRef>) {
  authorize(ctx, 'content.read');
  return readSessionMessages(ctx, rawInput);
}

/** The same without the role check: the widget reads back only its own visitor's conversation. */
export async function readSessionMessages(ctx: ServiceContext, rawInput: z.input<typeof ZSessionRef>) {
  const { kb_id, session_id } = parseInput(ZSessionRef, rawInput);
  const kb = await requireKb(ctx, kb_id);
  const session = await requireSession(ctx, kb.id, session_id);
  const rows = await ctx.db
    .selectFrom('chat_messages')
    .select(['id', 'role', 'content', 'citations', 'created_at', 'refused', 'support', 'feedback', 'feedback_comment'])
    .where('session_id', '=', session.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return {
    session_id: session.id,
    messages: rows.map((m) => ({
      id: m.id,
      role: m.role,
      content: m.content,
      citations: m.citations,
      created_at: m.created_at.toISOString(),
      refused: m.refused,
      support: m.support,
      feedback: m.feedback === 1 ? ('up' as const) : m.feedback === -1 ? ('down' as const) : null,
      feedback_comment: m.feedback_comment,
    })),
  };
}

/** One conversation as the dashboard opens it: its summary (source, counts) and its transcript. */
export async function getConversation(ctx: ServiceContext, rawInput: z.input<typeof ZSessionRef>) {
  authorize(ctx, 'content.read');
  const { messages, session_id } = await listSessionMessages(ctx, rawInput);
  const [row] = await selectConversations(ctx, rawInput.kb_id, [sql`s.id = ${session_id}`], 1);
  return { ...toConversation(row!), messages };
}

export async function deleteSession(ctx: ServiceContext, rawInput: z.input<typeof ZSessionRef>) {
  authorize(ctx, 'conversation.delete');
  const { kb_id, session_id } = parseInput(ZSessionRef, rawInput);
  const kb = await requireKb(ctx, kb_id);
  const session = await requireSession(ctx, kb.id, session_id);
  await ctx.db.deleteFrom('chat_sessions').where('id', '=', session.id).execute();
  await recordAudit(ctx, { action: 'conversation.delete', targetType: 'conversation', targetId: session.id, changes: { kb_id: kb.id } });
  return { success: true };
}
