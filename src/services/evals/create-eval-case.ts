/**
 * Adds a test case to a KB's set: typed by hand, saved from the Sandbox, from a conversation turn
 * (`message_id` of a question someone asked, whose text becomes the case's question) or from an
 * unanswered group. A KB holds at most MAX_EVAL_CASES cases.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { AppError, notFound } from '../../errors';
import { isIdOf, newId, type KbId, type MessageId } from '../../ids';
import { parseInput } from '../../validation';
import { requireKb } from '../kbs/require-kb';
import { EVAL_CASE_SOURCES, MAX_EVAL_CASES, toEvalCaseDto, ZEvalCaseFields, type EvalCaseDto } from './eval-dto';
import type { Db } from '../../../db/connect';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';

export const ZCreateEvalCaseInput = ZEvalCaseFields.partial({ question: true })
  .extend({
    kb_id: z.string().min(1),
    source: z.enum(EVAL_CASE_SOURCES).default('manual'),
    message_id: z.string().min(1).optional().describe('A question asked in one of the KB\'s conversations: its text becomes the case\'s question'),
  })
  .strict();
export type CreateEvalCaseInput = z.input<typeof ZCreateEvalCaseInput>;

export type EvalCaseValues = z.output<typeof ZEvalCaseFields>;

/** The row a case's fields make (create and import). */
export const caseColumns = (c: EvalCaseValues) => ({
  question: c.question,
  expected_answer: c.answer ?? null,
  expected_documents: JSON.stringify(c.documents ?? []),
  expected_pages: JSON.stringify(c.pages ?? []),
  answerable: c.answerable ?? true,
});

export async function assertRoomFor(db: Db, kbId: KbId, adding: number): Promise<void> {
  const { n } = await db.selectFrom('eval_cases').select((eb) => eb.fn.countAll<string>().as('n')).where('kb_id', '=', kbId).executeTakeFirstOrThrow();
  if (Number(n) + adding > MAX_EVAL_CASES) {
    throw new AppError('invalid_input', `A knowledge base holds at most ${MAX_EVAL_CASES} eval cases`, { field: 'question' });
  }
}

async function questionOfMessage(ctx: ServiceContext, kbId: KbId, messageId: string): Promise<string> {
  if (!isIdOf('msg', messageId)) throw notFound('Message');
  const row = await ctx.db
    .selectFrom('chat_messages')
    .innerJoin('chat_sessions', 'chat_sessions.id', 'chat_messages.session_id')
    .select(['chat_messages.content', 'chat_messages.role'])
    .where('chat_messages.id', '=', messageId as MessageId)
    .where('chat_sessions.kb_id', '=', kbId)
    .where('chat_sessions.org_id', '=', ctx.org.id)
    .executeTakeFirst();
  if (!row) throw notFound('Message');
  if (row.role !== 'user') throw new AppError('invalid_input', 'Pick a question (a visitor\'s message), not an answer', { field: 'message_id' });
  return row.content;
}

export async function createEvalCase(ctx: ServiceContext, raw: CreateEvalCaseInput): Promise<{ case: EvalCaseDto }> {
  authorize(ctx, 'eval.write');
  const { kb_id, source, message_id, ...fields } = parseInput(ZCreateEvalCaseInput, raw);
  const kb = await requireKb(ctx, kb_id);
  const question = message_id ? await questionOfMessage(ctx, kb.id, message_id) : fields.question;
  if (!question) throw new AppError('invalid_input', '"question" is required', { field: 'question' });
  const values = parseInput(ZEvalCaseFields, { ...fields, question });
  await assertRoomFor(ctx.db, kb.id, 1);
  const row = await ctx.db
    .insertInto('eval_cases')
    .values({ id: newId('evalCase'), org_id: ctx.org.id, kb_id: kb.id, source: message_id && source === 'manual' ? 'conversation' : source, ...caseColumns(values) })
    .returningAll()
    .executeTakeFirstOrThrow();
  await recordAudit(ctx, { action: 'eval_case.create', targetType: 'eval_case', targetId: row.id, changes: { kb_id: kb.id, question: row.question } });
  return { case: toEvalCaseDto(row) };
}
