/**
 * A KB's past conversations (widget text and voice, API, Sandbox), most recently active first, one
 * page at a time by keyset on (updated_at, id), each with its source, turns, refused answers and
 * feedback. Filters: activity in a date range, source, with or without refusals, feedback, and text
 * in any message. Another organisation's KB is "not found".
 */
import { sql, type Expression, type SqlBool } from 'kysely';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { isIdOf, type SessionId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { withOrgRead } from '../org-share';
import { authorize } from '../access/roles';

export const CONVERSATION_SOURCES = ['api', 'widget', 'voice', 'sandbox'] as const;
export const FEEDBACK_FILTERS = ['any', 'up', 'down', 'none'] as const;

const ZDate = z.iso.datetime({ offset: true }).or(z.iso.date());

export const ZConversationFilters = z
  .object({
    /** Conversations active on or after this instant (a date means its UTC midnight). */
    from: ZDate.optional(),
    /** Conversations started before this instant (a date means the end of that UTC day). */
    to: ZDate.optional(),
    source: z.enum(CONVERSATION_SOURCES).optional(),
    /** true: with at least one refused answer; false: none refused. */
    refused: z.boolean().optional(),
    /** any: rated at all; up / down: at least one such rating; none: not rated. */
    feedback: z.enum(FEEDBACK_FILTERS).optional(),
    /** Case-insensitive text in any question or answer. */
    search: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

export const ZListConversationsInput = ZConversationFilters.extend({
  kb_id: z.string().min(1),
  limit: z.number().int().min(1).max(100).default(20),
  cursor: z.string().min(1).max(100).optional(),
}).strict();

export const startOf = (d: string) => new Date(d.length === 10 ? `${d}T00:00:00Z` : d);
export const endOf = (d: string) => (d.length === 10 ? new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000) : new Date(d));
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** Per session: the counts every listing shows, as one aggregate over its messages. */
const summary = sql`left join lateral (
    select count(*) filter (where m.role = 'user')::int as turn_count,
           count(*)::int as message_count,
           count(*) filter (where m.role = 'assistant' and m.refused)::int as refused_count,
           count(*) filter (where m.feedback = 1)::int as feedback_up,
           count(*) filter (where m.feedback = -1)::int as feedback_down
    from chat_messages m where m.session_id = s.id) a on true`;

type SummaryRow = {
  id: SessionId;
  source: string;
  created_at: Date | string;
  updated_at: Date | string;
  turn_count: number;
  message_count: number;
  refused_count: number;
  feedback_up: number;
  feedback_down: number;
  first_question: string | null;
};

export function toConversation(r: SummaryRow) {
  return {
    id: r.id,
    source: r.source as (typeof CONVERSATION_SOURCES)[number],
    created_at: new Date(r.created_at).toISOString(),
    updated_at: new Date(r.updated_at).toISOString(),
    message_count: Number(r.message_count ?? 0),
    turn_count: Number(r.turn_count ?? 0),
    refused_count: Number(r.refused_count ?? 0),
    feedback_up: Number(r.feedback_up ?? 0),
    feedback_down: Number(r.feedback_down ?? 0),
    first_question: r.first_question ?? null,
  };
}
export type Conversation = ReturnType<typeof toConversation>;

/** The summary rows of a KB's sessions matching `where` (all conditions on `s` and `a`). */
export async function selectConversations(ctx: ServiceContext, kbId: string, where: Expression<SqlBool>[], limit: number): Promise<SummaryRow[]> {
  const conditions = [sql`s.kb_id = ${kbId}`, sql`s.org_id = ${ctx.org.id}`, ...where];
  const { rows } = await sql<SummaryRow>`
    select s.id, s.source, s.created_at, s.updated_at, a.*,
      (select m.content from chat_messages m where m.session_id = s.id and m.role = 'user' order by m.created_at, m.id limit 1) as first_question
    from chat_sessions s ${summary}
    where ${sql.join(conditions, sql` and `)}
    order by s.updated_at desc, s.id desc
    limit ${limit}`.execute(ctx.db);
  return rows;
}

async function listConversationsNow(ctx: ServiceContext, rawInput: z.input<typeof ZListConversationsInput>) {
  const input = parseInput(ZListConversationsInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  const where: Expression<SqlBool>[] = [];
  if (input.from) where.push(sql`s.updated_at >= ${startOf(input.from)}`);
  if (input.to) where.push(sql`s.created_at < ${endOf(input.to)}`);
  if (input.source) where.push(sql`s.source = ${input.source}`);
  if (input.refused === true) where.push(sql`a.refused_count > 0`);
  if (input.refused === false) where.push(sql`a.refused_count = 0`);
  if (input.feedback === 'any') where.push(sql`a.feedback_up + a.feedback_down > 0`);
  if (input.feedback === 'up') where.push(sql`a.feedback_up > 0`);
  if (input.feedback === 'down') where.push(sql`a.feedback_down > 0`);
  if (input.feedback === 'none') where.push(sql`a.feedback_up + a.feedback_down = 0`);
  if (input.search) {
    where.push(sql`exists (select 1 from chat_messages q where q.session_id = s.id and q.content ilike ${likePattern(input.search)})`);
  }
  if (input.cursor) {
    const cursor = input.cursor as SessionId;
    const known = isIdOf('sess', cursor) && (await ctx.db.selectFrom('chat_sessions').select('id').where('id', '=', cursor).where('kb_id', '=', kb.id).executeTakeFirst());
    if (!known) throw new AppError('invalid_input', 'Unknown cursor: start again from the first page', { field: 'cursor' });
    where.push(sql`(s.updated_at, s.id) < (select c.updated_at, c.id from chat_sessions c where c.id = ${cursor})`);
  }
  const rows = await selectConversations(ctx, kb.id, where, input.limit + 1);
  const more = rows.length > input.limit;
  const page = more ? rows.slice(0, input.limit) : rows;
  return { conversations: page.map(toConversation), next_cursor: more ? page[page.length - 1]!.id : null };
}

/** In the organisation's read line (src/services/org-share.ts): a fanned-out read holds two connections at most. */
export function listConversations(ctx: ServiceContext, rawInput: z.input<typeof ZListConversationsInput>) {
  authorize(ctx, 'content.read');
  return withOrgRead(ctx, () => listConversationsNow(ctx, rawInput));
}
