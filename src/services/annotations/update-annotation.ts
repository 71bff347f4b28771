/**
 * Edits a curated answer or switches it on or off; fields left out keep their value. A new question
 * is embedded again. The audit entry holds each changed field before and after.
 */
import { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';
import { questionModel, toBytes } from '../../answering/retrieval/question-vectors';
import { requireAnnotation, toAnnotationDto, ZAnnotationFields, ZAnnotationRef, type AnnotationDto } from './annotation-dto';

export const ZUpdateAnnotationInput = ZAnnotationFields.partial().extend(ZAnnotationRef.shape).strict();
export type UpdateAnnotationInput = z.input<typeof ZUpdateAnnotationInput>;

export async function updateAnnotation(ctx: ServiceContext, raw: UpdateAnnotationInput): Promise<{ annotation: AnnotationDto }> {
  authorize(ctx, 'annotation.write');
  const { kb_id, id, ...changes } = parseInput(ZUpdateAnnotationInput, raw);
  const { kb, row } = await requireAnnotation(ctx, kb_id, id);
  const newQuestion = changes.question !== undefined && changes.question !== row.question ? changes.question : null;
  const model = questionModel(ctx, kb);
  const vector = newQuestion ? (await model.embedDocuments([newQuestion]))[0]! : null;
  const before: Record<string, unknown> = {};
  const after: Record<string, unknown> = {};
  for (const key of ['question', 'answer', 'enabled'] as const) {
    if (changes[key] !== undefined && changes[key] !== row[key]) {
      before[key] = row[key];
      after[key] = changes[key];
    }
  }
  return ctx.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('annotations')
      .set({
        ...(changes.question !== undefined ? { question: changes.question } : {}),
        ...(changes.answer !== undefined ? { answer: changes.answer } : {}),
        ...(changes.enabled !== undefined ? { enabled: changes.enabled } : {}),
        ...(vector ? { embedding: toBytes(vector), embedding_model: model.id } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', row.id)
      .returningAll()
      .executeTakeFirstOrThrow();
    if (Object.keys(after).length > 0) {
      const action = Object.keys(after).length === 1 && 'enabled' in after ? (after.enabled ? 'annotation.enable' : 'annotation.disable') : 'annotation.update';
      await recordAudit({ ...ctx, db: trx }, { action, targetType: 'annotation', targetId: row.id, changes: { before, after } });
    }
    return { annotation: toAnnotationDto(updated) };
  });
}
