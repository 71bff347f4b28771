/**
 * Chat sessions: per organisation and KB, bounded so memory cannot grow without limit. A session id
 * of another organisation or KB is "not found", exactly like one that never existed.
 *
 * Two bounds that never touch each other: keyed conversations (API, dashboard) are bounded per KB
 * by MAX_SESSIONS_PER_KB; anonymous ones (widget, voice), which anyone on the internet can start,
 * per KB (WIDGET_ANONYMOUS_SESSIONS_PER_KB) and per visitor address
 * (WIDGET_ANONYMOUS_SESSIONS_PER_VISITOR). A flood of anonymous chats therefore evicts only other
 * anonymous conversations, the flooder's own first, and never one that carries feedback.
 */
import { sql } from 'kysely';
import type { ServiceContext } from '../../context';
import type { ConversationSource, KnowledgeBase } from '../../../db/types';
import { notFound } from '../../errors';
import { isIdOf, newId, type MessageId, type SessionId } from '../../ids';
import type { ChatTurn } from '../../ai/prompts';
import { addUsage } from '../insights/usage-daily';

/** Turns of history given to the model and the condenser. */
export const HISTORY_MESSAGES = 12;
/** Messages kept per session; older ones are pruned. */
export const MAX_MESSAGES_PER_SESSION = 200;
/** Keyed (API, dashboard) sessions kept per KB; the least recently used beyond this are deleted. */
export const MAX_SESSIONS_PER_KB = 5000;
/** Conversations anyone may start without a key. */
export const ANONYMOUS_SOURCES: readonly ConversationSource[] = ['widget', 'voice'];

export async function requireSession(ctx: ServiceContext, kbId: string, sessionId: string) {
  if (!isIdOf('sess', sessionId)) throw notFound('Chat session');
  const session = await ctx.db
    .selectFrom('chat_sessions')
    .selectAll()
    .where('id', '=', sessionId as SessionId)
    .where('org_id', '=', ctx.org.id)
    .where('kb_id', '=', kbId as never)
    .executeTakeFirst();
  if (!session) throw notFound('Chat session');
  return session;
}

/**
 * `source` is recorded on a new session only: a conversation keeps the source it was started from.
 * `visitor`: the address an anonymous conversation comes from (the widget's rate-limit key).
 */
export async function openSession(
  ctx: ServiceContext,
  kb: KnowledgeBase,
  sessionId: string | undefined,
  source: ConversationSource,
  opts: { visitor?: string } = {},
) {
  if (sessionId) return requireSession(ctx, kb.id, sessionId);
  const anonymous = ANONYMOUS_SOURCES.includes(source);
  const visitor = anonymous ? (opts.visitor ?? null) : null;
  const session = await ctx.db
    .insertInto('chat_sessions')
    .values({ id: newId('sess'), org_id: ctx.org.id, kb_id: kb.id, source, visitor, created_at: new Date(), updated_at: new Date() })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (!anonymous) {
    await sql`delete from chat_sessions where id in (
        select id from chat_sessions where kb_id = ${kb.id} and source not in ('widget', 'voice')
        order by updated_at desc offset ${MAX_SESSIONS_PER_KB})`.execute(ctx.db);
    return session;
  }
  const { anonymousSessionsPerKb, anonymousSessionsPerVisitor } = ctx.config.widget;
  // The visitor's own oldest first, then the KB's. Rated conversations past the bound are kept on
  // top of it, never removed (ratings are capped per conversation and per day, so they stay bounded).
  if (visitor) {
    await sql`delete from chat_sessions where id in (
        select c.id from (select id from chat_sessions where kb_id = ${kb.id} and visitor = ${visitor} and source in ('widget', 'voice')
          order by updated_at desc offset ${anonymousSessionsPerVisitor}) c
        where not exists (select 1 from chat_messages m where m.session_id = c.id and m.feedback is not null))`.execute(ctx.db);
  }
  await sql`delete from chat_sessions where id in (
      select c.id from (select id from chat_sessions where kb_id = ${kb.id} and source in ('widget', 'voice')
        order by updated_at desc offset ${anonymousSessionsPerKb}) c
      where not exists (select 1 from chat_messages m where m.session_id = c.id and m.feedback is not null))`.execute(ctx.db);
  return session;
}

/** A conversation's newest `limit` messages, newest first (chat memory and voice's seed read the same). */
export function newestMessages(ctx: ServiceContext, sessionId: SessionId, limit: number) {
  return ctx.db
    .selectFrom('chat_messages')
    .select(['role', 'content'])
    .where('session_id', '=', sessionId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
}

export async function loadHistory(ctx: ServiceContext, sessionId: SessionId): Promise<ChatTurn[]> {
  return (await newestMessages(ctx, sessionId, HISTORY_MESSAGES)).reverse();
}

/**
 * Support of an answer: the best cosine similarity between the question and a passage it cites
 * (absolute, unlike the fused score, which ranks within one retrieval); null for a refusal.
 */
export function answerSupport(
  refused: boolean,
  citations: readonly { chunk_id?: unknown; source_type?: unknown; score?: unknown }[],
  similarity: ReadonlyMap<string, number>,
): number | null {
  if (refused) return null;
  // A curated answer is supported by its question's match (at least ANNOTATION_MATCH).
  const curated = citations.find((c) => c.source_type === 'annotation');
  if (curated && typeof curated.score === 'number') return curated.score;
  const scores = citations.map((c) => similarity.get(String(c.chunk_id))).filter((s): s is number => typeof s === 'number');
  return scores.length ? Math.max(...scores) : null;
}

/** Stores a question and its answer, and counts them; returns the answer's message id. */
export async function appendExchange(
  ctx: ServiceContext,
  session: { id: SessionId; kb_id: KnowledgeBase['id'] },
  user: string,
  assistant: { content: string; citations: unknown[]; refused: boolean; support: number | null },
): Promise<MessageId> {
  const sessionId = session.id;
  const answerId = newId('msg');
  await ctx.db.transaction().execute(async (trx) => {
    const now = Date.now();
    await trx
      .insertInto('chat_messages')
      .values([
        { id: newId('msg'), session_id: sessionId, role: 'user', content: user, citations: JSON.stringify([]), created_at: new Date(now) },
        {
          id: answerId,
          session_id: sessionId,
          role: 'assistant',
          content: assistant.content,
          citations: JSON.stringify(assistant.citations),
          refused: assistant.refused,
          support: assistant.support,
          created_at: new Date(now + 1),
        },
      ])
      .execute();
    await addUsage(trx, { org_id: ctx.org.id, kb_id: session.kb_id, at: new Date(now) }, { questions: 1, refused: assistant.refused ? 1 : 0 });
    await trx.updateTable('chat_sessions').set({ updated_at: new Date() }).where('id', '=', sessionId).execute();
    await sql`delete from chat_messages where id in (
        select id from chat_messages where session_id = ${sessionId}
        order by created_at desc, id desc offset ${MAX_MESSAGES_PER_SESSION})`.execute(trx);
  });
  return answerId;
}
