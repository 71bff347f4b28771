/** Dashboard operations on a conversation: read its messages, or forget it. */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { requireSession } from './sessions';

export const ZSessionRef = z.object({ kb_id: z.string().min(1), session_id: z.string().min(1) }).strict();

export async function listSessionMessages(ctx: ServiceContext, rawInput: z.input<typeof ZSessionRef>) {
  const { kb_id, session_id } = parseInput(ZSessionRef, rawInput);
  const kb = await requireKb(ctx, kb_id);
  const session = await requireSession(ctx, kb.id, session_id);
  const rows = await ctx.db
    .selectFrom('chat_messages')
    .selectAll()
    .where('session_id', '=', session.id)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return {
    session_id: session.id,
    messages: rows.map((m) => ({ id: m.id, role: m.role, content: m.content, citations: m.citations, created_at: m.created_at.toISOString() })),
  };
}

export async function deleteSession(ctx: ServiceContext, rawInput: z.input<typeof ZSessionRef>) {
  const { kb_id, session_id } = parseInput(ZSessionRef, rawInput);
  const kb = await requireKb(ctx, kb_id);
  const session = await requireSession(ctx, kb.id, session_id);
  await ctx.db.deleteFrom('chat_sessions').where('id', '=', session.id).execute();
  return { success: true };
}
