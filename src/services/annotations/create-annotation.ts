/**
 * Gives the right answer to a question: a curated question/answer of one KB that answers matching
 * questions before retrieval (match-annotation.ts). Made from a conversation turn, an Unanswered
 * group or directly; `from` only says which, for the audit log. The question's vector is stored
 * with it, so matching embeds only the asked question.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { newId } from '../../ids';
import { parseInput } from '../../validation';
import { AppError } from '../../errors';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';
import { requireKb } from '../kbs/require-kb';
import { questionModel, toBytes } from '../../answering/retrieval/question-vectors';
import { toAnnotationDto, ZAnnotationFields, type AnnotationDto } from './annotation-dto';

export const ZCreateAnnotationInput = ZAnnotationFields.extend({
  kb_id: z.string().min(1),
  enabled: z.boolean().default(true),
  from: z.enum(['manual', 'conversation', 'unanswered']).default('manual'),
  /** The conversation turn (answer message) it corrects, when made from one. */
  message_id: z.string().min(1).max(100).optional(),
}).strict();
export type CreateAnnotationInput = z.input<typeof ZCreateAnnotationInput>;

/** Every question is compared with each enabled curated answer of its KB, so a KB holds at most this many (the list shows 500 at once). */
export const MAX_ANNOTATIONS_PER_KB = 1000;

export async function createAnnotation(ctx: ServiceContext, raw: CreateAnnotationInput): Promise<{ annotation: AnnotationDto }> {
  authorize(ctx, 'annotation.write');
  const input = parseInput(ZCreateAnnotationInput, raw);
  const kb = await requireKb(ctx, input.kb_id);
  const model = questionModel(ctx, kb);
  const [vector] = await model.embedDocuments([input.question]);
  return ctx.db.transaction().execute(async (trx) => {
    // The KB's row lock serialises concurrent creates, so they cannot both slip under the cap.
    await trx.selectFrom('knowledge_bases').select('id').where('id', '=', kb.id).forUpdate().executeTakeFirst();
    const { count } = await trx.selectFrom('annotations').select((eb) => eb.fn.countAll<number>().as('count')).where('kb_id', '=', kb.id).executeTakeFirstOrThrow();
    if (Number(count) >= MAX_ANNOTATIONS_PER_KB) {
      throw new AppError('conflict', `A knowledge base holds at most ${MAX_ANNOTATIONS_PER_KB} curated answers; delete some first`, { limit: MAX_ANNOTATIONS_PER_KB });
    }
    const row = await trx
      .insertInto('annotations')
      .values({
        id: newId('annotation'),
        org_id: ctx.org.id,
        kb_id: kb.id,
        question: input.question,
        answer: input.answer,
        enabled: input.enabled,
        created_by: ctx.actor.label,
        embedding: toBytes(vector!),
        embedding_model: model.id,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    await recordAudit({ ...ctx, db: trx }, {
      action: 'annotation.create',
      targetType: 'annotation',
      targetId: row.id,
      changes: { kb_id: kb.id, question: row.question, answer: row.answer, enabled: row.enabled, from: input.from, ...(input.message_id ? { message_id: input.message_id } : {}) },
    });
    return { annotation: toAnnotationDto(row) };
  });
}
