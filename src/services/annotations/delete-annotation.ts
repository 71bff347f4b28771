/** Deletes a curated answer; its questions go back to retrieval (and, if it fails them, to Unanswered). */
import type { z } from 'zod';
import type { ServiceContext } from '../../context';
import { parseInput } from '../../validation';
import { authorize } from '../access/roles';
import { recordAudit } from '../audit/record-audit';
import { requireAnnotation, ZAnnotationRef } from './annotation-dto';

export async function deleteAnnotation(ctx: ServiceContext, raw: z.input<typeof ZAnnotationRef>): Promise<{ deleted: true; id: string }> {
  authorize(ctx, 'annotation.write');
  const input = parseInput(ZAnnotationRef, raw);
  const { row } = await requireAnnotation(ctx, input.kb_id, input.id);
  await ctx.db.transaction().execute(async (trx) => {
    await trx.deleteFrom('annotations').where('id', '=', row.id).execute();
    await recordAudit({ ...ctx, db: trx }, { action: 'annotation.delete', targetType: 'annotation', targetId: row.id, changes: { kb_id: row.kb_id, question: row.question, answer: row.answer } });
  });
  return { deleted: true, id: row.id };
}
