/**
 * A KB's past conversations (the widget's and the API's alike), most recently active first, one page
 * at a time by keyset on (updated_at, id). Another organisation's KB is "not found".
 */
import { sql } from 'kysely';
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError } from '../../errors';
import { isIdOf, type SessionId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { withOrgRead } from '../org-share';

export const ZListConversationsInput = z
  .object({ kb_id: z.string().min(1), limit: z.number().int().min(1).max(100).default(20), cursor: z.string().min(1).max(100).optional() })
  .strict();

async function listConversationsNow(ctx: ServiceContext, rawInput: z.input<typeof ZListConversationsInput>) {
  const input = parseInput(ZListConversationsInput, rawInput);
  const kb = await requireKb(ctx, input.kb_id);
  let query = ctx.db
    .selectFrom('chat_sessions as s')
    .select((eb) => [
      's.id',
      's.created_at',
      's.updated_at',
      eb.selectFrom('chat_messages as m').select(eb.fn.countAll<string>().as('n')).whereRef('m.session_id', '=', 's.id').as('message_count'),
      eb
        .selectFrom('chat_messages as m')
        .select('m.content')
        .whereRef('m.session_id', '=', 's.id')
        .where('m.role', '=', 'user')
        .orderBy('m.created_at')
        .limit(1)
        .as('first_question'),
    ])
    .where('s.kb_id', '=', kb.id)
    .where('s.org_id', '=', ctx.org.id);
  if (input.cursor) {
    const cursor = input.cursor as SessionId;
    const known = isIdOf('sess', cursor) && (await ctx.db.selectFrom('chat_sessions').select('id').where('id', '=', cursor).where('kb_id', '=', kb.id).executeTakeFirst());
    if (!known) throw new AppError('invalid_input', 'Unknown cursor: start again from the first page', { field: 'cursor' });
    query = query.where(sql<boolean>`(s.updated_at, s.id) < (select c.updated_at, c.id from chat_sessions c where c.id = ${cursor})`);
  }
  const rows = await query.orderBy('s.updated_at', 'desc').orderBy('s.id', 'desc').limit(input.limit + 1).execute();
  const more = rows.length > input.limit;
  const page = more ? rows.slice(0, input.limit) : rows;
  return {
    conversations: page.map((r) => ({
      id: r.id,
      created_at: r.created_at.toISOString(),
      updated_at: r.updated_at.toISOString(),
      message_count: Number(r.message_count ?? 0),
      first_question: r.first_question ?? null,
    })),
    next_cursor: more ? page[page.length - 1]!.id : null,
  };
}

/** In the organisation's read line (src/services/org-share.ts): a fanned-out read holds two connections at most. */
export function listConversations(ctx: ServiceContext, rawInput: z.input<typeof ZListConversationsInput>) {
  return withOrgRead(ctx, () => listConversationsNow(ctx, rawInput));
}
